// A line damaged in the middle of an old log (issue 13; docs/architecture.md, docs/faults.md), as a bad disk or a
// careless editor leaves it while the daemon is stopped. Only that line may be set aside: the
// conversation stays listed and served (API and CLI) minus that line, the damage is recorded
// durably (status, doctor) until the operator clears it, and an event a relay still holds comes
// back whatever its age. Each case copies a base project synced from a relay and stopped cleanly.

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { NostrEvent } from "../../src/types.js";
import { BIN, eventually, makeProject, ROOT, type TestProject } from "../helpers/daemon.js";
import {
  apiGet, eventIdCounts, indexDisagreements, publishAll, recordCase, sleep, snapshotLogs, spawnDaemon, useMailboxAgents, wholeLines,
  type SpawnedDaemon,
} from "../helpers/fault-tools.js";
import { spawnRelay, type SpawnedRelay } from "../helpers/relay.js";

let tmp: string;
/** Holds every event of the base project. */
let relay: SpawnedRelay;
/** Holds nothing: a relay that was wiped, for the cases where no relay can give an event back. */
let empty: SpawnedRelay;
let base: TestProject;
/** An old conversation (two hours old: far outside the back-fill's overlap window). */
let old: { root: NostrEvent; replies: NostrEvent[] };

const HOUR = 3600;

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-damaged-"));
  [relay, empty] = await Promise.all([spawnRelay(), spawnRelay()]);
  base = makeProject(join(tmp, "base"), (c) => {
    c.relays = [relay.url];
  });
  useMailboxAgents(base.tenexDir);
  const now = Math.floor(Date.now() / 1000);
  const a = ["a", base.coordinate];
  const root = base.signAsOwner(11, "an old conversation", [a, ["title", "Old topic"]], now - 2 * HOUR);
  const replyTo = (r: NostrEvent, text: string, at: number) => base.signAsOwner(1111, text, [
    ["E", r.id, "", r.pubkey], ["K", "11"], ["P", r.pubkey], ["e", r.id, "", r.pubkey], ["k", "11"], a,
  ], at);
  old = { root, replies: Array.from({ length: 9 }, (_, i) => replyTo(root, `old message ${i}`, now - 2 * HOUR + 10 + i)) };
  // A newer conversation moves the relay's high-water mark to now: a back-fill asks only for the
  // last few minutes from then on, never for the old conversation again.
  const recent = base.signAsOwner(11, "a recent conversation", [a, ["title", "Recent topic"]], now);
  const all = [old.root, ...old.replies, recent, replyTo(recent, "recent reply", now)];
  const d = spawnDaemon(base.dir);
  await d.ready;
  expect(await publishAll(relay.url, all)).toHaveLength(all.length);
  await eventually(() => {
    const counts = eventIdCounts(snapshotLogs(base.tenexDir));
    return all.every((e) => counts.get(e.id) === 1) ? true : undefined;
  }, 30_000, "the base events in the logs");
  await sleep(1_200); // high-water marks are written every second
  expect(await d.stop()).toEqual({ code: 0, signal: null });
}, 90_000);

afterAll(async () => {
  await Promise.all([relay?.close(), empty?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

interface Scenario {
  dir: string;
  tenexDir: string;
  /** The old conversation's log. */
  logPath: string;
  /** Its text before the damage. */
  original: string;
}

/** A copy of the base project (stopped cleanly), reading from `relays`. */
function scenario(name: string, relays: string[]): Scenario {
  const dir = join(tmp, name);
  cpSync(base.dir, dir, { recursive: true });
  const tenexDir = join(dir, ".tenex");
  const config = JSON.parse(readFileSync(join(tenexDir, "config.json"), "utf8"));
  config.relays = relays;
  writeFileSync(join(tenexDir, "config.json"), JSON.stringify(config, null, 2));
  const logPath = join(tenexDir, "conversations", `${old.root.id}.jsonl`);
  return { dir, tenexDir, logPath, original: readFileSync(logPath, "utf8") };
}

const linesOf = (text: string) => wholeLines(text).split("\n").slice(0, -1);

/**
 * Overwrites the line holding event `eventId` with garbage, of the same length in bytes or
 * shorter; returns the line it replaced and the garbage.
 */
function damage(s: Scenario, eventId: string, sameLength: boolean): { gone: string; garbage: string } {
  const all = linesOf(readFileSync(s.logPath, "utf8"));
  const at = all.findIndex((l) => l.includes(`"id":"${eventId}"`));
  expect(at, "the victim's line").toBeGreaterThan(0);
  expect(at, "a line in the middle of the log").toBeLessThan(all.length - 1);
  const gone = all[at]!;
  const garbage = `\u0000\u0000garbage ${"{".repeat(20)}`;
  all[at] = sameLength ? garbage.padEnd(Buffer.byteLength(gone), "#") : garbage;
  if (sameLength) expect(Buffer.byteLength(all[at]!)).toBe(Buffer.byteLength(gone));
  writeFileSync(s.logPath, `${all.join("\n")}\n`);
  return { gone, garbage: all[at]! };
}

/** One GET as the owner (fault-tools' apiGet: a connection of its own, the reason if it fails), its body parsed. */
async function api(tenexDir: string, path: string): Promise<{ status: number; body: any }> {
  const { status, text } = await apiGet(tenexDir, path);
  return { status, body: JSON.parse(text) };
}

function tenexd(s: Scenario, ...args: string[]): { code: number; stdout: string; stderr: string; json(): any } {
  const r = spawnSync(process.execPath, [BIN, ...args, "--project", s.dir], { encoding: "utf8", timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

/** Daemons started by the running test: a failed check must not leave one behind. */
const running = new Set<SpawnedDaemon>();
afterEach(async () => {
  await Promise.all([...running].map((d) => d.kill()));
  running.clear();
});

async function run(s: Scenario): Promise<SpawnedDaemon> {
  const d = spawnDaemon(s.dir);
  running.add(d);
  await d.ready;
  return d;
}

async function stop(d: SpawnedDaemon): Promise<void> {
  running.delete(d);
  expect(await d.stop(), d.stderr().slice(-2000)).toEqual({ code: 0, signal: null });
}

/** Event ids of the messages in a `show` answer (API body or `tenexd show --json`). */
const shownIds = (detail: any): string[] =>
  (detail.timeline as any[]).filter((e) => e.kind === "message").map((e) => e.data.eventId as string).sort();

const oldIds = () => [old.root, ...old.replies].map((e) => e.id);

/** The soak's row: the old conversation's events that must be in the logs once (all but one no relay can give back). */
function recordKept(name: string, what: string, tenexDir: string, mustKeep: readonly string[]): void {
  const counts = eventIdCounts(snapshotLogs(tenexDir));
  recordCase(name, {
    case: what, asked: oldIds().length, ran: oldIds().length, unit: "events", inputs: oldIds().length,
    lost: mustKeep.filter((id) => !counts.has(id)).length, doubled: mustKeep.filter((id) => (counts.get(id) ?? 0) > 1).length,
    unrecoverable: oldIds().length - mustKeep.length,
  });
}

/** The open damage records about the old conversation, in the daemon's status. */
async function damageInStatus(tenexDir: string): Promise<any[]> {
  const { status, body } = await api(tenexDir, "/api/v1/status");
  expect(status, JSON.stringify(body)).toBe(200);
  expect(Array.isArray(body.damage), "status.damage is a list").toBe(true);
  return (body.damage as any[]).filter((r) => r.conversationId === old.root.id);
}

/** Every line of the log before the damage, except `gone`, is in the log now, byte for byte. */
function intactLinesKept(s: Scenario, gone: string): void {
  const now = `\n${readFileSync(s.logPath, "utf8")}`;
  const lost = linesOf(s.original).filter((l) => l !== gone && !now.includes(`\n${l}\n`));
  expect(lost).toEqual([]);
}

describe("a damaged line in the middle of an old log", () => {
  it("no relay holds its event: the conversation is still listed and served minus that line; the damage is reported until cleared", async () => {
    const s = scenario("unrecoverable", [empty.url]);
    const victim = old.replies[4]!; // "old message 4"
    const { gone, garbage } = damage(s, victim.id, false);
    const expected = oldIds().filter((id) => id !== victim.id).sort();

    let d = await run(s);
    const list = await api(s.tenexDir, "/api/v1/conversations?limit=100");
    expect(list.status).toBe(200);
    expect((list.body.items as any[]).map((c) => c.id), "the conversation is still listed").toContain(old.root.id);
    const shown = await api(s.tenexDir, `/api/v1/conversations/${old.root.id}`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shownIds(shown.body), "served minus the damaged line").toEqual(expected);
    const cliShow = tenexd(s, "show", "-c", old.root.id, "--json");
    expect(cliShow.code, cliShow.stderr).toBe(0);
    expect(shownIds(cliShow.json())).toEqual(expected);
    expect(tenexd(s, "conversations", "--json").json().items.map((c: any) => c.id)).toContain(old.root.id);
    // An agent's context: the intact messages, not the lost one.
    const context = tenexd(s, "context", "-a", "planner", "-c", old.root.id, "--json");
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toContain(old.replies[3]!.content);
    expect(context.stdout).not.toContain(victim.content);
    const records = await damageInStatus(s.tenexDir);
    expect(records, "the damage is in the status").toHaveLength(1);
    const record = records[0];
    expect(record.kind).toBe("damaged_lines");
    const cliStatus = tenexd(s, "status", "--json");
    expect(cliStatus.json().status.damage.map((r: any) => r.id)).toContain(record.id);
    await stop(d);
    recordKept("damaged-line-no-relay", "damaged middle line, no relay holds it", s.tenexDir, expected);

    // The bad bytes are kept, the record is a private file, every intact line is in the log.
    intactLinesKept(s, gone);
    expect(readFileSync(join(s.tenexDir, record.savedTo), "utf8")).toBe(`${garbage}\n`);
    const sidecars = readdirSync(join(s.tenexDir, "quarantine")).filter((f) => f.endsWith(".json"));
    expect(sidecars.length).toBeGreaterThan(0);
    for (const f of sidecars) expect(statSync(join(s.tenexDir, "quarantine", f)).mode & 0o777).toBe(0o600);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);

    // Durable: after a restart (and a crash) the status and doctor still show it.
    unlinkSync(join(s.tenexDir, "clean-shutdown"));
    d = await run(s);
    expect((await damageInStatus(s.tenexDir)).map((r) => r.id)).toEqual([record.id]);
    expect(shownIds((await api(s.tenexDir, `/api/v1/conversations/${old.root.id}`)).body)).toEqual(expected);
    await stop(d);
    const doctor = tenexd(s, "doctor", "--json");
    const failing = (doctor.json().checks as any[]).filter((c) => !c.ok);
    expect(failing.map((c) => c.detail).join("\n")).toContain(old.root.id);
    expect(doctor.code).not.toBe(0);

    // Cleared by the operator: gone from doctor and from the status of the next start.
    const listed = tenexd(s, "damage", "--json");
    expect(listed.json().damage.map((r: any) => r.id)).toEqual([record.id]);
    const cleared = tenexd(s, "damage", "--clear", record.id);
    expect(cleared.code, cleared.stderr).toBe(0);
    const after = tenexd(s, "doctor", "--json");
    expect((after.json().checks as any[]).filter((c) => !c.ok), after.stdout).toEqual([]);
    d = await run(s);
    expect(await damageInStatus(s.tenexDir)).toEqual([]);
    await stop(d);
    // Clearing forgets the report, never the evidence.
    expect(existsSync(join(s.tenexDir, record.savedTo))).toBe(true);
  }, 90_000);

  it("of the same length (found only when read): the first read answers 200, minus that line", async () => {
    const s = scenario("same-length", [empty.url]);
    const victim = old.replies[2]!;
    const { gone } = damage(s, victim.id, true);
    expect(statSync(s.logPath).size).toBe(Buffer.byteLength(s.original));

    const d = await run(s);
    const shown = await api(s.tenexDir, `/api/v1/conversations/${old.root.id}`);
    expect(shown.status, JSON.stringify(shown.body)).toBe(200);
    expect(shownIds(shown.body)).toEqual(oldIds().filter((id) => id !== victim.id).sort());
    expect(await damageInStatus(s.tenexDir)).toHaveLength(1);
    await stop(d);
    recordKept("damaged-line-same-length", "damaged middle line of the same length", s.tenexDir, oldIds().filter((id) => id !== victim.id));
    intactLinesKept(s, gone);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);

  it("a relay still holds its event, older than the back-fill's window: it is fetched back", async () => {
    const s = scenario("recoverable", [relay.url]);
    const victim = old.replies[6]!;
    const { gone } = damage(s, victim.id, false);

    const d = await run(s);
    await eventually(() => (eventIdCounts(snapshotLogs(s.tenexDir)).get(victim.id) === 1 ? true : undefined), 60_000,
      "the damaged line's event fetched back from the relay").catch((err: unknown) => {
      throw new Error(`${String(err)}; daemon stderr: ${d.stderr().slice(-3000)}`);
    });
    // The line is in the file before its fsync returns, and acknowledged only after: the API
    // shows it once acknowledged (reads wait for the index to hold what is acknowledged).
    const shown = await eventually(async () => {
      const r = await api(s.tenexDir, `/api/v1/conversations/${old.root.id}`);
      return r.status === 200 && shownIds(r.body).length === oldIds().length ? r : undefined;
    }, 10_000, "the fetched-back event shown by the API");
    expect(shownIds(shown.body)).toEqual(oldIds().sort());
    await stop(d);
    recordKept("damaged-line-relay-holds", "damaged middle line, a relay holds it", s.tenexDir, oldIds());
    const counts = eventIdCounts(snapshotLogs(s.tenexDir));
    expect(oldIds().filter((id) => counts.get(id) !== 1), "every event of the conversation once").toEqual([]);
    intactLinesKept(s, gone);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 90_000);
});
