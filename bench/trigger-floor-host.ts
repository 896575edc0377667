// The floor beside the trigger figures (bench/trigger-latency.ts): the least an agent host must
// do between a trigger on the socket and its agent's process, and between the agent's answer and
// the relay, on this machine. One process, no conversation state, no index, no queues: each
// EVENT frame parsed once and its signature checked natively on the main thread; every event
// appended to one journal file and fdatasync'd (group commit: what arrives during a sync goes in
// the next); a trigger (an event p-tagging the agent) spawns the agent's script at once and gives
// it the event on its stdin once durable (started as tenexd starts its agents: adapters/spawn); its printed answer is signed natively, made durable the
// same way and sent to the relay. What tenexd does beyond this (checks, the fold, a log per
// conversation, the index, runs recorded before they start) is what the figures' ratio to this
// floor prices.
//
// With a fourth argument `files`, JOURNAL is a directory and each conversation (the root's id: an
// `E` tag, else the event's own) has a file of its own there, as tenexd's log does: a flush writes
// and fdatasyncs every file it touched, and a new file's directory is synced too. The two floors
// side by side price that layout apart from the rest of the daemon.
//
//   node dist/bench/trigger-floor-host.js RELAY_URL SCRIPT JOURNAL [files]   (FLOOR_AGENT_SK: the agent's key, hex)

import { defaultSpawner } from "../adapters/spawn/spawner-choice.js";
import { KeySigner } from "../adapters/nostr/key-signer.js";
import { loadNativeCheck } from "../adapters/verify/native-verify.js";
import type { NostrEvent } from "../src/types.js";
import { conversationFile, FloorJournal } from "./floor-journal.js";
import { subscribeLive } from "./floor-subscribe.js";

const [url, script, journalPath, layout] = process.argv.slice(2) as (string | undefined)[];
const sk = process.env.FLOOR_AGENT_SK;
if (!url || !script || !journalPath || !sk) throw new Error("usage: trigger-floor-host.js RELAY_URL SCRIPT JOURNAL (FLOOR_AGENT_SK set)");
const agentScript: string = script;
const native = loadNativeCheck();
if (!("check" in native)) throw new Error(`the floor verifies natively: ${native.reason}`);
const check = native.check;
const signer = new KeySigner(Uint8Array.from(Buffer.from(sk, "hex")));
const journal = await FloorJournal.open(journalPath, layout === "files");
const append = journal.append.bind(journal);

const ws = subscribeLive(url, (ev) => {
  if (check(ev) !== "ok") return;
  const trigger = ev.tags.some((t) => t[0] === "p" && t[1] === signer.pubkey);
  if (!trigger) return append(conversationFile(ev), `${JSON.stringify(ev)}\n`);
  // Started while its trigger is made durable, its input given once it is (as tenexd does).
  const child = start(ev);
  append(conversationFile(ev), `${JSON.stringify(ev)}\n`, () => child.stdin.end(JSON.stringify(ev)));
});

// Started as tenexd starts its agents' programs (posix_spawn when it built, as TENEXD_SPAWNER says).
const spawn = defaultSpawner().spawn;

function start(ev: NostrEvent) {
  const child = spawn({ file: "/bin/sh", args: [agentScript], cwd: process.cwd(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.pipe(process.stderr);
  child.onEnd(() => void answer(ev, out));
  return child;
}

async function answer(root: NostrEvent, content: string): Promise<void> {
  const reply = await signer.sign({
    kind: 1111, created_at: Math.floor(Date.now() / 1000), content,
    tags: [["E", root.id], ["p", root.pubkey]],
  });
  append(root.id, `${JSON.stringify(reply)}\n`, () => ws.send(JSON.stringify(["EVENT", reply])));
}

process.on("SIGTERM", () => {
  ws.close();
  void journal.close().then(() => process.exit(0));
});
