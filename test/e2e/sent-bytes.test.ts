// An event's bytes as its relay sent them (docs/architecture.md, "The event's own bytes"): the log
// writes them in place of serializing the event again, when they hold nothing but the event.
// The daemon as a child process, its only relay one that checks nothing (a `ws` server in this
// test), live and then in a back-fill after a restart:
// - keys in another order, escapes JSON.stringify does not write (\u00e9, \/), tabs and spaces:
//   the log line holds those very bytes and parses back to the event that was signed;
// - a field besides the seven, a `__proto__` key, an object padded with whitespace, a line break
//   between two tokens: written as the event alone, one record a line;
// and the index agrees with the logs (its thread parsed the lines), the restarted daemon loads
// the conversations from them.

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NostrEvent } from "../../src/types.js";
import { eventually, makeProject, ROOT, type TestProject } from "../helpers/daemon.js";
import {
  brokenLines, indexDisagreements, snapshotLogs, spawnDaemon, useMailboxAgents, wasmSigner, type SignFn, type SpawnedDaemon,
} from "../helpers/fault-tools.js";
import { startFakeRelay, type FakeRelay } from "../helpers/hostile-events.js";

interface Case {
  label: string;
  ev: NostrEvent;
  /** The event's object as the relay sends it. */
  sent: string;
  /** Whether the log may write `sent` as it is. */
  asSent: boolean;
}

let tmp: string;
let fake: FakeRelay;
let project: TestProject;
let owner: SignFn;
let daemon: SpawnedDaemon | undefined;

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-sent-"));
  fake = await startFakeRelay();
  project = makeProject(join(tmp, "p"), (c) => (c.relays = [fake.url]));
  useMailboxAgents(project.tenexDir);
  owner = await wasmSigner(project.owner.sk);
});

afterAll(async () => {
  await daemon?.kill();
  await fake?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** One event of each kind of sending, in conversations of their own. */
function cases(where: string): Case[] {
  const root = (label: string) => {
    // A plain object, as JSON.parse makes one (the signer marks what it signed with a symbol).
    const ev = JSON.parse(JSON.stringify(owner(11, `${where} ${label}: café / bar`, [["a", project.coordinate], ["title", label]]))) as NostrEvent;
    return { ev, json: JSON.stringify(ev) };
  };
  const unusual = (ev: NostrEvent) =>
    `{ "sig" : "${ev.sig}",\t"content":${JSON.stringify(ev.content).replace("é", "\\u00e9").replace("/", "\\/")}, "tags":${JSON.stringify(ev.tags)}, ` +
    `"kind":${ev.kind}, "created_at":${ev.created_at}, "pubkey":"${ev.pubkey}", "id":"${ev.id}" }`;
  const make = (label: string, sentOf: (ev: NostrEvent, json: string) => string, asSent: boolean): Case => {
    const { ev, json } = root(label);
    return { label, ev, sent: sentOf(ev, json), asSent };
  };
  return [
    make("as sent", (ev) => unusual(ev), true),
    make("a field more", (_ev, json) => `${json.slice(0, -1)},"relay_note":"seen"}`, false),
    make("__proto__", (_ev, json) => `{"__proto__":{"polluted":true},${json.slice(1)}`, false),
    make("padded", (_ev, json) => `{${" ".repeat(4000)}${json.slice(1)}`, false),
    make("line break", (_ev, json) => json.replace(",", ",\n"), false),
  ];
}

/** The event as the daemon serializes it: the fields in the order the edge reads them (src/edge/envelope.ts). */
const canonical = (ev: NostrEvent) =>
  JSON.stringify({ id: ev.id, pubkey: ev.pubkey, created_at: ev.created_at, kind: ev.kind, tags: ev.tags, content: ev.content, sig: ev.sig });

const frame = (sub: string, c: Case) => `["EVENT",${JSON.stringify(sub)},${c.sent}]`;

/** Each case's log line, once every one is in the logs. */
async function linesOf(list: readonly Case[]): Promise<Map<Case, string>> {
  return eventually(() => {
    const lines = [...snapshotLogs(project.tenexDir).values()].flatMap((text) => text.split("\n"));
    const out = new Map<Case, string>();
    for (const c of list) {
      const line = lines.find((l) => l.includes(c.ev.id) && l.includes('"t":"event"'));
      if (line) out.set(c, line);
    }
    return out.size === list.length ? out : undefined;
  }, 20_000, `the ${list.length} events in the logs`);
}

function expectWritten(lines: Map<Case, string>): void {
  for (const [c, line] of lines) {
    const rec = JSON.parse(line) as { t: string; ev: Record<string, unknown> };
    expect(rec.ev, c.label).toEqual(c.ev);
    expect(Object.keys(rec.ev), c.label).toHaveLength(7);
    if (c.asSent) expect(line, `${c.label}: the bytes as sent`).toContain(c.sent);
    else expect(line, `${c.label}: the event alone`).toContain(`"ev":${canonical(c.ev)}`);
  }
  expect(brokenLines(snapshotLogs(project.tenexDir))).toEqual([]);
}

describe("the log writes an event's bytes as its relay sent them", () => {
  const live = () => cases("live");
  const backfilled = () => cases("back-fill");
  let firstCases: Case[];

  it("live: as sent when they hold the event alone, serialized again otherwise", async () => {
    daemon = spawnDaemon(project.dir);
    await daemon.ready;
    await eventually(() => (fake.liveSubs().length > 0 ? true : undefined), 15_000, "the daemon's live subscription");
    firstCases = live();
    expect(fake.push(firstCases.map((c) => (sub: string) => frame(sub, c)))).toBe(firstCases.length);
    expectWritten(await linesOf(firstCases));
    await daemon.stop();
    daemon = undefined;
    expect(indexDisagreements(project.tenexDir)).toEqual([]);
  }, 60_000);

  it("back-fill: the same, and the restarted daemon loads the conversations from those lines", async () => {
    await daemon?.kill();
    const list = backfilled();
    // After a restart the back-fill asks from the high-water mark on (since): answered here.
    fake.onNextFetch((conn) => {
      for (const c of list) conn.send(frame(conn.subId, c));
      conn.send(JSON.stringify(["EOSE", conn.subId]));
    }, (filters) => filters.every((f) => f.since !== undefined));
    daemon = spawnDaemon(project.dir);
    const ready = await daemon.ready;
    expect(ready.conversations, "the live cases' conversations, loaded at start").toBeGreaterThanOrEqual(firstCases.length);
    expectWritten(await linesOf(list));
    await daemon.stop();
    daemon = undefined;
    expect(indexDisagreements(project.tenexDir)).toEqual([]);
  }, 60_000);
});
