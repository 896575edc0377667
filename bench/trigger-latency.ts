// Milliseconds from message to agent, and from the agent's answer to the relay (issue 18):
// `tenexd start` as a child process, one command agent (a shell script), and a loopback relay of
// the benchmark's own (like replay-relay.ts) that pushes each trigger down the daemon's live
// subscription at a known time and takes the daemon's published events.
//   trigger_spawn_p50_ms / _p99_ms        the trigger frame sent → the agent's script running
//                                          (its first `date`), an idle daemon
//   trigger_input_p50_ms                  the same → the script has read its input (its `date`
//                                          after reading stdin to its end): the process is started
//                                          while the trigger is made durable, its input given after
//   trigger_spawn_loaded_p99_ms           the same while 2,000 ev/s of other traffic (the 200×50
//                                          set, which sets nobody to work) flows down the same socket
//   answer_to_relay_p99_ms                the agent's answer printed (its last `date`, then `echo`)
//                                          → its signed reply received by the relay
//   trigger_spawn_loaded_warm_p99_ms,     the same in a second burst right after the first (other
//   answer_to_relay_warm_p99_ms            conversations): a daemon that has run under load
// Each figure's limit is the same sequence against a minimal host (trigger-floor-host.ts, one
// journal); its notes add the same host with a file per conversation, and the daemon's own
// account of its steps (the `latency` of its status: after the idle triggers, and at the end).
// Two rounds, the hosts' order reversed in the second, each host started on a settled disk
// (quiet-disk.ts); each figure is over both rounds' runs together.
// Clocks: the script's `date +%s%N` and this process's realtimeMs() (realtime-clock.ts), both the
// system's real-time clock. The spawn figure includes `sh` starting and one `date` (~1-2 ms).

import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { WebSocketServer, type WebSocket } from "ws";
import { defaultSpawner, spawnerText } from "../adapters/spawn/spawner-choice.js";
import type { NostrEvent } from "../src/types.js";
import { round, type BenchContext } from "./bench-context.js";
import { settleDisk } from "./quiet-disk.js";
import { realtimeMs } from "./realtime-clock.js";
import { writeBenchProject } from "./bench-project.js";
import { daemonApi, logLine, pollFor, startDaemon } from "./child-daemon.js";
import type { LatencySummary } from "../src/latency-window.js";
import type { Figure } from "./figure.js";
import { liveEvents } from "./live-ingest.js";
import { benchCoordinate, benchKeys, inArrivalOrder, loadDataset, SHAPES } from "./workload.js";

const IDLE_TRIGGERS = 60;
const IDLE_GAP_MS = 40;
const LOADED_TRIGGERS = 50;
const BACKGROUND_EVPS = 2_000;
const nowMs = realtimeMs;

class ClockError extends Error {
  override name = "ClockError";
}

// Two clocks' readings of one span (this process's and a script's `date`): a span below zero
// means they disagree, and a figure from them would be wrong, not fast.
function elapsed(fromMs: number, toMs: number, what: string): number {
  const ms = toMs - fromMs;
  if (ms < 0) throw new ClockError(`${what} took ${ms.toFixed(2)} ms by the two clocks: they disagree (realtime-clock.ts)`);
  return ms;
}
const FLOOR_HOST = join(import.meta.dirname, "trigger-floor-host.js");

const SCRIPT = (log: string) => `#!/bin/sh
s=$(date +%s%N)
in=$(cat)
r=$(date +%s%N)
id=$(printf '%s' "$in" | grep -o '"id":"[0-9a-f]\\{64\\}"' | head -n 1 | cut -d'"' -f4)
p=$(date +%s%N)
echo "$id $s $r $p" >> ${JSON.stringify(log)}
echo '{"reply":"ok"}'
`;

interface LatencyRelay {
  url: string;
  live(): WebSocket | undefined;
  subId(): string | undefined;
  /** When each root's reply (by root id) reached the relay, ms. */
  replies: Map<string, number>;
  close(): Promise<void>;
}

async function startLatencyRelay(author: string): Promise<LatencyRelay> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((ok) => wss.once("listening", ok));
  let live: WebSocket | undefined;
  let sub: string | undefined;
  const replies = new Map<string, number>();
  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      const at = nowMs();
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (!Array.isArray(msg)) return;
      if (msg[0] === "EVENT" && typeof msg[1]?.id === "string") {
        const ev = msg[1] as NostrEvent;
        if (ev.pubkey === author) {
          const root = ev.tags.find((t) => t[0] === "E")?.[1];
          if (root && !replies.has(root)) replies.set(root, at);
        }
        ws.send(JSON.stringify(["OK", ev.id, true, ""]));
      }
      if (msg[0] !== "REQ" || typeof msg[1] !== "string") return;
      ws.send(JSON.stringify(["EOSE", msg[1]]));
      if (msg.slice(2).every((f: { limit?: number }) => f?.limit === 0)) {
        live = ws;
        sub = msg[1];
      }
    });
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    live: () => live, subId: () => sub, replies,
    close: () => new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => r());
    }),
  };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

interface Latencies {
  idleMs: number[];
  /** The idle triggers, the frame sent → the script has read its input. */
  idleInputMs: number[];
  loadedMs: number[];
  answerMs: number[];
  /** The background's rate as sent. */
  pushedEvps: number;
  backgroundEvents: number;
  /** Each later background (a host that has taken a burst already): its triggers, their answers, its rate as sent. */
  warm: { loadedMs: number[]; answerMs: number[]; pushedEvps: number }[];
  /** The daemon's own account of its steps (its status), after the idle triggers and at the end, a round each. */
  steps?: { idle: DaemonLatency; all: DaemonLatency }[];
}

type DaemonLatency = { trigger: LatencySummary; answer: LatencySummary; publish: LatencySummary };

/**
 * The same sequence for either host: 60 idle triggers, then 50 among each background at
 * BACKGROUND_EVPS (the first is the host's first burst: its code and files cold; the next, in
 * other conversations, a host that has run under load), all down the relay's live subscription;
 * waits until each is answered.
 */
async function drive(
  relay: LatencyRelay, owner: Uint8Array, agentPk: string, coordinate: string, backgrounds: readonly (readonly NostrEvent[])[], log: string,
  afterIdle?: () => Promise<void>,
): Promise<Latencies> {
  const ws = await pollFor(() => relay.live(), 30_000, "no live subscription");
  const head = `["EVENT",${JSON.stringify(relay.subId())},`;
  let n = 0;
  const trigger = (): NostrEvent => finalizeEvent({
    kind: 11, created_at: Math.floor(Date.now() / 1000), content: `latency ${n}`,
    tags: [["a", coordinate], ["title", `latency ${n++}`], ["p", agentPk]],
  }, owner) as NostrEvent;
  const sent = new Map<string, number>();
  // Timed before the send, not after it: the host may start the script while this process waits
  // for a core (two cores here), and a span would then come out shorter than it was, even below 0.
  const send = (ev: NostrEvent) => {
    const frame = `${head}${JSON.stringify(ev)}]`;
    sent.set(ev.id, nowMs());
    ws.send(frame);
  };
  const answered = (ids: string[], timeoutMs: number) =>
    pollFor(() => (ids.every((id) => relay.replies.has(id)) ? true : undefined), timeoutMs, `not every one of ${ids.length} triggers answered`);
  // Idle: one trigger at a time, a pause between.
  const idle: string[] = [];
  for (let i = 0; i < IDLE_TRIGGERS; i++) {
    const ev = trigger();
    idle.push(ev.id);
    send(ev);
    await new Promise((r) => setTimeout(r, IDLE_GAP_MS));
  }
  await answered(idle, 30_000);
  await afterIdle?.();
  // Loaded: each background at BACKGROUND_EVPS, a trigger every 1/LOADED_TRIGGERS of it.
  const phases: { ids: string[]; pushedEvps: number; events: number }[] = [];
  for (const background of backgrounds) {
    const ids: string[] = [];
    const bodies = background.map((ev) => `${head}${JSON.stringify(ev)}]`);
    const every = Math.floor(bodies.length / LOADED_TRIGGERS);
    const t0 = performance.now();
    for (let i = 0; i < bodies.length; i++) {
      const due = t0 + (i * 1000) / BACKGROUND_EVPS;
      if (performance.now() < due) await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      ws.send(bodies[i]!);
      if (i % every === 0) {
        const ev = trigger();
        ids.push(ev.id);
        send(ev);
      }
    }
    phases.push({ ids, pushedEvps: Math.round(bodies.length / ((performance.now() - t0) / 1000)), events: bodies.length });
    await answered(ids, 60_000);
  }
  const seen = new Map(readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((l) => {
    const [id, s, r, p] = l.split(" ");
    const ms = (ns: string) => Number(BigInt(ns) / 1000n) / 1000;
    return [id!, { spawned: ms(s!), input: ms(r!), printed: ms(p!) }] as const;
  }));
  const spawnMs = (ids: string[]) => ids.map((id) => elapsed(sent.get(id)!, seen.get(id)!.spawned, "a trigger's spawn"));
  const inputMs = (ids: string[]) => ids.map((id) => elapsed(sent.get(id)!, seen.get(id)!.input, "a trigger's input"));
  const answerMs = (ids: string[]) => ids.map((id) => elapsed(seen.get(id)!.printed, relay.replies.get(id)!, "an answer's trip"));
  const [first, ...later] = phases;
  return {
    idleMs: spawnMs(idle), idleInputMs: inputMs(idle), loadedMs: spawnMs(first!.ids), answerMs: answerMs([...idle, ...first!.ids]),
    pushedEvps: first!.pushedEvps, backgroundEvents: first!.events,
    warm: later.map((p) => ({ loadedMs: spawnMs(p.ids), answerMs: answerMs(p.ids), pushedEvps: p.pushedEvps })),
  };
}

function writeScript(dir: string, name: string): { script: string; log: string } {
  const log = join(dir, `${name}.log`);
  const script = join(dir, `${name}.sh`);
  writeFileSync(script, SCRIPT(log));
  chmodSync(script, 0o755);
  return { script, log };
}

/** tenexd as a child process, the script as a command agent. */
async function daemonRun(dir: string, keys: ReturnType<typeof benchKeys>, sk: Uint8Array, backgrounds: readonly (readonly NostrEvent[])[]): Promise<Latencies> {
  const agentPk = getPublicKey(sk);
  const relay = await startLatencyRelay(agentPk);
  try {
    const project = writeBenchProject(join(dir, "project"), keys, [relay.url]);
    const { script, log } = writeScript(dir, "daemon-agent");
    writeFileSync(join(project.tenexDir, "keys", "latency.key"), `${Buffer.from(sk).toString("hex")}\n`, { mode: 0o600 });
    const agentsFile = join(project.tenexDir, "agents.json");
    const agents = JSON.parse(readFileSync(agentsFile, "utf8")) as { agents: unknown[] };
    agents.agents.push({ slug: "latency", name: "Latency", role: "latency", key: { file: "keys/latency.key" }, backend: { type: "command", command: ["/bin/sh", script] } });
    writeFileSync(agentsFile, JSON.stringify(agents, null, 2));
    const daemon = await startDaemon(project.dir);
    try {
      await logLine(daemon, "caught up", 30_000);
      const latency = async () => ((await daemonApi(project.tenexDir, "/api/v1/status")) as { latency: DaemonLatency }).latency;
      let idle: DaemonLatency | undefined;
      const run = await drive(relay, ownerKey(keys), agentPk, benchCoordinate(keys), backgrounds, log, async () => void (idle = await latency()));
      return { ...run, steps: [{ idle: idle!, all: await latency() }] };
    } finally {
      await daemon.stop();
    }
  } finally {
    await relay.close();
  }
}

/** The floor: the minimal host of trigger-floor-host.ts, same relay, script and sequence. */
async function floorRun(dir: string, keys: ReturnType<typeof benchKeys>, sk: Uint8Array, backgrounds: readonly (readonly NostrEvent[])[], layout: "journal" | "files"): Promise<Latencies> {
  const agentPk = getPublicKey(sk);
  const relay = await startLatencyRelay(agentPk);
  const { script, log } = writeScript(dir, `floor-${layout}-agent`);
  const where = join(dir, `floor-${layout}`);
  if (layout === "files") mkdirSync(where);
  const host = spawn(process.execPath, [FLOOR_HOST, relay.url, script, where, ...(layout === "files" ? ["files"] : [])], {
    stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, FLOOR_AGENT_SK: Buffer.from(sk).toString("hex") },
  });
  const exited = new Promise<void>((r) => host.once("exit", () => r()));
  try {
    return await drive(relay, ownerKey(keys), agentPk, benchCoordinate(keys), backgrounds, log);
  } finally {
    host.kill("SIGTERM");
    await exited;
    await relay.close();
  }
}

/** Which of n samples a p99 by nearest rank is, counted from the largest. */
function p99Rank(n: number): string {
  const k = n - Math.ceil(0.99 * n) + 1;
  return k === 1 ? "the largest" : k === 2 ? "the second largest" : `the ${k}th largest`;
}

/** One host's rounds as one: their runs' samples together, the rates as sent at their lowest, the daemon's own steps round by round. */
function pooled(runs: readonly Latencies[]): Latencies {
  const all = (pick: (l: Latencies) => number[]) => runs.flatMap(pick);
  const lowest = (xs: number[]) => Math.min(...xs);
  return {
    idleMs: all((l) => l.idleMs), idleInputMs: all((l) => l.idleInputMs), loadedMs: all((l) => l.loadedMs), answerMs: all((l) => l.answerMs),
    pushedEvps: lowest(runs.map((l) => l.pushedEvps)), backgroundEvents: runs[0]!.backgroundEvents,
    warm: runs[0]!.warm.map((_, k) => ({
      loadedMs: all((l) => l.warm[k]!.loadedMs), answerMs: all((l) => l.warm[k]!.answerMs), pushedEvps: lowest(runs.map((l) => l.warm[k]!.pushedEvps)),
    })),
    steps: runs.flatMap((l) => l.steps ?? []),
  };
}

/** "checked 0.4 / 1.1, staged …": each step's p50 / p99. */
const stepsText = (l: LatencySummary) => l.steps.map((x) => `${x.step} ${x.p50} / ${x.p99} / ${x.max}`).join(", ");

const ownerKey = (keys: ReturnType<typeof benchKeys>) => Uint8Array.from(Buffer.from(keys.owner.sk, "hex"));

export async function benchTriggerLatency(ctx: BenchContext): Promise<Figure[]> {
  const keys = benchKeys();
  const backgrounds = [await liveEvents(ctx), inArrivalOrder(await loadDataset(SHAPES.warm200x50, ctx.progress))];
  const dir = mkdtempSync(join(tmpdir(), "tenexd-trigger-bench-"));
  try {
    // Two rounds, the hosts' order reversed in the second, each host on a settled disk: what the
    // task before left on the disk, or the host before, falls on none of them, and each
    // percentile is taken over twice the runs (the warm p99 over 100, not the largest of 50).
    // A directory of its own for each host's run.
    const own = (h: string) => mkdtempSync(join(dir, `${h}-`));
    const hosts = {
      d: () => daemonRun(own("d"), keys, generateSecretKey(), backgrounds),
      f: () => floorRun(own("f"), keys, generateSecretKey(), backgrounds, "journal"),
      ff: () => floorRun(own("ff"), keys, generateSecretKey(), backgrounds, "files"),
    };
    const rounds: Record<keyof typeof hosts, Latencies>[] = [];
    const settled: number[] = [];
    for (const order of [["d", "f", "ff"], ["ff", "f", "d"]] as const) {
      const round = {} as Record<keyof typeof hosts, Latencies>;
      for (const h of order) {
        const s = await settleDisk(dir);
        settled.push(s.quiet ? s.waitedMs : NaN);
        round[h] = await hosts[h]();
      }
      rounds.push(round);
    }
    const [d, f, ff] = (["d", "f", "ff"] as const).map((h) => pooled(rounds.map((r) => r[h]))) as [Latencies, Latencies, Latencies];
    const [dw, fw, ffw] = [d.warm[0]!, f.warm[0]!, ff.warm[0]!];
    const stats = (xs: number[]) => `p50 ${round(pct(xs, 50), 1)}, p99 ${round(pct(xs, 99), 1)}, max ${round(Math.max(...xs), 1)} ms`;
    // The daemon and the floor host inherit this process's environment, and with it its choice.
    const started = `its program started with ${spawnerText(defaultSpawner())}, the floor's too`;
    const note = `tenexd as a child process, one command agent (/bin/sh script; ${started}), triggers = kind 11 roots from the owner p-tagging it, pushed down the live subscription of a loopback relay of the benchmark's own`;
    const byRound = (ls: DaemonLatency[], text: (l: DaemonLatency) => string) => ls.map((l, k) => `round ${k + 1}: ${text(l)}`).join("; ");
    const ownSteps = (ls: DaemonLatency[], what: string) => ls.length ? `; the daemon's own steps (its status, ${what}, p50 / p99 / max ms), ${byRound(ls, (l) => stepsText(l.trigger))}` : "";
    const answerOwn = (ls: DaemonLatency[]) => ls.length ? `; the daemon's own steps (its status, all runs, p50 / p99 / max ms), ${byRound(ls, (l) => `${stepsText(l.answer)}, ${stepsText(l.publish)}`)}` : "";
    const [idleSteps, allSteps] = [(d.steps ?? []).map((x) => x.idle), (d.steps ?? []).map((x) => x.all)];
    const waits = settled.filter((ms) => !Number.isNaN(ms));
    const disk = `; each host's run on a settled disk (bench/quiet-disk.ts: \`sync\`, then the device without I/O for 300 ms; ${waits.length} of ${settled.length} found quiet, after ${waits.length ? `${Math.round(Math.min(...waits))}-${Math.round(Math.max(...waits))} ms` : "-"}), two rounds, the hosts' order reversed in the second, their runs pooled`;
    // Each round's first trigger is its host's first after the start.
    const firsts = (h: keyof typeof hosts) => rounds.map((r) => r[h].idleMs[0]!);
    const rest = (h: keyof typeof hosts) => rounds.flatMap((r) => r[h].idleMs.slice(1));
    const floor = `limit = the same sequence against a minimal host (bench/trigger-floor-host.ts: one process; each frame parsed, its signature checked natively, appended to one journal file fsync'd in group commit; the script spawned at once and given the event once it is durable, its answer signed, made durable and sent; no conversation state, no index)`;
    const files = `the same host with a file per conversation, as tenexd's log (a flush syncs every file it touched, a new file's directory too)`;
    return [
      {
        name: "trigger_spawn_p50_ms", value: round(pct(d.idleMs, 50), 1), unit: "ms", limit: round(pct(f.idleMs, 50), 1),
        note: `${note}; ${IDLE_TRIGGERS} triggers ${IDLE_GAP_MS} ms apart, idle daemon: ${stats(d.idleMs)}; from the frame sent to the script's first \`date\`; ${floor}: ${stats(f.idleMs)}; ${files}: ${stats(ff.idleMs)}${ownSteps(idleSteps, "the idle triggers")}${disk}`,
      },
      {
        name: "trigger_input_p50_ms", value: round(pct(d.idleInputMs, 50), 1), unit: "ms", limit: round(pct(f.idleInputMs, 50), 1),
        note: `the same ${IDLE_TRIGGERS} triggers, from the frame sent to the script's \`date\` after reading its input to the end (the trigger durable, its context built, the input written and its pipe closed; \`sh\` reading it and one \`date\` included): ${stats(d.idleInputMs)}; limit: the floor's; a file per conversation: ${stats(ff.idleInputMs)}`,
      },
      {
        name: "trigger_spawn_p99_ms", value: round(pct(d.idleMs, 99), 1), unit: "ms", limit: round(pct(f.idleMs, 99), 1),
        note: `the same ${d.idleMs.length} triggers (p99 by nearest rank: ${p99Rank(d.idleMs.length)}); each round's first after the start ` +
          `(its code run for the first time) ${firsts("d").map((ms) => round(ms, 1)).join(" and ")} ms, the p99 of the ${rest("d").length} after them ${round(pct(rest("d"), 99), 1)} ms ` +
          `(the floor's: ${firsts("f").map((ms) => round(ms, 1)).join(" and ")}, and ${round(pct(rest("f"), 99), 1)}); limit: the floor's`,
      },
      {
        name: "trigger_spawn_loaded_p99_ms", value: round(pct(d.loadedMs, 99), 1), unit: "ms", limit: round(pct(f.loadedMs, 99), 1),
        note: `${d.loadedMs.length} triggers among ${d.backgroundEvents} other events sent at ${BACKGROUND_EVPS} ev/s (achieved ${d.pushedEvps} ev/s; they set nobody to work): ${stats(d.loadedMs)}; the floor (achieved ${f.pushedEvps} ev/s): ${stats(f.loadedMs)}; a file per conversation (achieved ${ff.pushedEvps} ev/s): ${stats(ff.loadedMs)}${ownSteps(allSteps, "all triggers, idle and loaded")}`,
      },
      {
        name: "answer_to_relay_p99_ms", value: round(pct(d.answerMs, 99), 1), unit: "ms", limit: round(pct(f.answerMs, 99), 1),
        note: `all ${d.answerMs.length} runs: from the script's last \`date\` (then it prints its answer and exits) to its signed reply received by the relay: ${stats(d.answerMs)}; the floor: ${stats(f.answerMs)}; a file per conversation: ${stats(ff.answerMs)}${answerOwn(allSteps)}`,
      },
      {
        name: "trigger_spawn_loaded_warm_p99_ms", value: round(pct(dw.loadedMs, 99), 1), unit: "ms", limit: round(pct(fw.loadedMs, 99), 1),
        note: `as trigger_spawn_loaded_p99_ms, in a second burst right after the first: ${dw.loadedMs.length} triggers among ${backgrounds[1]!.length} other events ` +
          `in 200 other conversations (bench/workload.ts 200x50-warm) at ${BACKGROUND_EVPS} ev/s (achieved ${dw.pushedEvps} ev/s), a daemon that has run under load ` +
          `(the first burst is also its first: its ingest path compiled then, its conversations' files created): ${stats(dw.loadedMs)}; ` +
          `the floor (achieved ${fw.pushedEvps} ev/s): ${stats(fw.loadedMs)}; a file per conversation: ${stats(ffw.loadedMs)}`,
      },
      {
        name: "answer_to_relay_warm_p99_ms", value: round(pct(dw.answerMs, 99), 1), unit: "ms", limit: round(pct(fw.answerMs, 99), 1),
        note: `as answer_to_relay_p99_ms, for the ${dw.answerMs.length} triggers of that second burst (all under load): ${stats(dw.answerMs)}; the floor: ${stats(fw.answerMs)}; a file per conversation: ${stats(ffw.answerMs)}`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
