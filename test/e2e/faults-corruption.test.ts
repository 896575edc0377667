// Damaged data on disk (issues 3 and 6; docs/architecture.md): with the daemon stopped, its logs and its
// index are damaged the ways a crash, a bad disk or a user can damage them; then it starts.
// Expected each time: it recovers or quarantines and says so (its log, status.problems), it keeps
// every line that was intact (in its log, or in .tenex/quarantine/), it catches up what it lost
// from the relay, and its index, read after a clean stop, agrees with its logs.
// A full disk is tested on a small tmpfs mounted on the logs' directory, which needs root
// (CAP_SYS_ADMIN) on Linux: where it cannot mount one, that case fails saying why, unless
// TENEXD_NO_TMPFS=1 says to skip it (and the skip is printed; adapter-level ENOSPC is also covered
// by test/integration/fs-log-faults.test.ts).

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../adapters/sqlite-index/migrations/index.js";
import { inLogs } from "../helpers/catchup-fixture.js";
import { eventually, makeProject, ROOT, type TestProject } from "../helpers/daemon.js";
import {
  apiStatus, eventIdCounts, indexDisagreements, indexedNotInLogs, indexSchemaVersion, loggedProblems, ProjectEvents, publishAll, recordCase, sleep,
  snapshotLogs, spawnDaemon, statusEventually, useMailboxAgents, wasmSigner, wholeLines, type SpawnedDaemon,
} from "../helpers/fault-tools.js";
import { queryRaw, spawnRelay, type SpawnedRelay } from "../helpers/relay.js";

let tmp: string;
let relay: SpawnedRelay;
let base: TestProject;
let events: ProjectEvents;
/** Every event the relay holds for the project. */
const published: string[] = [];

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-corrupt-"));
  relay = await spawnRelay();
  base = makeProject(join(tmp, "base"), (c) => {
    c.relays = [relay.url];
  });
  useMailboxAgents(base.tenexDir);
  events = new ProjectEvents(base, await wasmSigner(base.owner.sk), { rootShare: 0.1 });
  const d = spawnDaemon(base.dir);
  await d.ready;
  published.push(...(await publishAll(relay.url, events.next(150))));
  await inLogs(base.tenexDir, published, 60_000).catch((e) => {
    throw new Error(`${String(e)}; daemon stderr: ${d.stderr().slice(-3000)}`);
  });
  await sleep(1_200); // high-water marks are written every second
  expect(await d.stop()).toEqual({ code: 0, signal: null });
  // Longer than the 60 s wait above, so a stall fails with that wait's message and the daemon's
  // stderr instead of a bare hook timeout.
}, 120_000);

afterAll(async () => {
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface Scenario {
  dir: string;
  tenexDir: string;
  log(name: string): string;
  /** The logs as they were before any damage, largest first. */
  logs: [string, string][];
}

/** A copy of the base project (stopped cleanly: its clean-shutdown marker is there). */
function scenario(name: string): Scenario {
  const dir = join(tmp, name);
  cpSync(base.dir, dir, { recursive: true });
  const tenexDir = join(dir, ".tenex");
  const logs = [...snapshotLogs(tenexDir)].sort((a, b) => b[1].length - a[1].length);
  return { dir, tenexDir, logs, log: (file) => join(tenexDir, "conversations", file) };
}

const lines = (text: string) => wholeLines(text).split("\n").slice(0, -1);

/** Cuts the last line in half (a crash mid-append); returns that line. */
function tearTail(path: string): string {
  const text = readFileSync(path, "utf8");
  const last = lines(text).at(-1)!;
  writeFileSync(path, text.slice(0, text.length - 1 - Math.floor(last.length / 2)));
  return last;
}

/** Overwrites line `at` with garbage (shorter than a record); returns the line it replaced. */
function garbageAt(path: string, at: number): string {
  const all = lines(readFileSync(path, "utf8"));
  const gone = all[at]!;
  all[at] = `\u0000\u0000garbage ${"{".repeat(20)}`;
  writeFileSync(path, `${all.join("\n")}\n`);
  return gone;
}

/**
 * Every line of the original logs except `damaged` is still somewhere: in its conversation's log
 * or in a quarantine file of that conversation. Returns the lines that are nowhere.
 */
function lostIntactLines(s: Scenario, damaged: readonly string[]): string[] {
  const qdir = join(s.tenexDir, "quarantine");
  const quarantined = existsSync(qdir) ? readdirSync(qdir).map((f) => [f, readFileSync(join(qdir, f), "utf8")] as const) : [];
  const lost: string[] = [];
  for (const [file, text] of s.logs) {
    const id = file.slice(-70, -6);
    const now = existsSync(s.log(file)) ? readFileSync(s.log(file), "utf8") : "";
    const places = [now, ...quarantined.filter(([f]) => f.startsWith(id)).map(([, t]) => t)].map((t) => `\n${t}`);
    for (const line of lines(text)) {
      if (!damaged.includes(line) && !places.some((p) => p.includes(`\n${line}\n`))) lost.push(`${id}: ${line.slice(0, 80)}`);
    }
  }
  return lost;
}

async function run(s: Scenario): Promise<SpawnedDaemon> {
  const d = spawnDaemon(s.dir);
  await d.ready;
  return d;
}

async function stop(d: SpawnedDaemon): Promise<string[]> {
  expect(await d.stop(), d.stderr().slice(-2000)).toEqual({ code: 0, signal: null });
  return loggedProblems(d.stderr()).map((p) => `${p.msg} ${p.detail ?? ""}`);
}

const once = (counts: Map<string, number>) => published.filter((id) => counts.get(id) !== 1);

/** The soak's row for a damage case: every event the relay holds (all published) must be in the logs, once. */
function recordDamage(name: string, what: string, counts: Map<string, number>): void {
  recordCase(name, {
    case: what, asked: published.length, ran: published.length, unit: "events", inputs: published.length,
    lost: published.filter((id) => !counts.has(id)).length, doubled: published.filter((id) => (counts.get(id) ?? 0) > 1).length,
  });
}

describe.each([
  ["after a crash (no clean-shutdown marker)", false],
  ["after a clean stop", true],
])("damaged logs %s", (_label, marker) => {
  const when = marker ? "clean" : "crash";
  const after = marker ? "after a clean stop" : "after a crash";
  it("a torn tail is cut and kept aside, a wrong-schema file quarantined, a stray file reported; the lost event comes back", async () => {
    const s = scenario(`torn-${marker}`);
    if (!marker) unlinkSync(join(s.tenexDir, "clean-shutdown"));
    const [tornFile] = s.logs[0]!;
    const tornId = tornFile.slice(0, 64);
    const torn = tearTail(s.log(tornFile));
    const wrongId = "f".repeat(64);
    writeFileSync(s.log(`${wrongId}.jsonl`), '{"hello":"world"}\n{"not":"a record"}\n');
    writeFileSync(s.log("notes.txt"), "a note a user left here\n");

    const d = await run(s);
    const counts = await inLogs(s.tenexDir, published).catch(() => eventIdCounts(snapshotLogs(s.tenexDir)));
    const problems = await stop(d);
    recordDamage(`torn-tail-${when}`, `torn tail, wrong-schema log, stray file ${after}`, counts);
    expect(problems.some((p) => p.startsWith(`log_torn_tail ${tornId}`)), problems.join("\n")).toBe(true);
    expect(problems.some((p) => p.startsWith(`log_quarantined ${wrongId}`)), problems.join("\n")).toBe(true);
    expect(problems.some((p) => p.startsWith("log_stray_file notes.txt")), problems.join("\n")).toBe(true);
    const quarantine = readdirSync(join(s.tenexDir, "quarantine"));
    expect(quarantine.some((f) => f.startsWith(`${tornId}.torn-`))).toBe(true);
    expect(quarantine.some((f) => f.startsWith(`${wrongId}.jsonl`))).toBe(true);
    expect(existsSync(s.log("notes.txt")), "a stray file is reported, not moved").toBe(true);
    expect(lostIntactLines(s, [torn])).toEqual([]);
    // The event in the torn line was never acknowledged; the relay still has it.
    expect(once(counts)).toEqual([]);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);

  it("garbage in the middle of a log: only that line is set aside when read, reported, recorded; the rest stays served and the event comes back", async () => {
    const s = scenario(`middle-${marker}`);
    if (!marker) unlinkSync(join(s.tenexDir, "clean-shutdown"));
    const [file, text] = s.logs[1]!;
    const id = file.slice(0, 64);
    const all = lines(text);
    const gone = garbageAt(s.log(file), Math.floor(all.length / 2));
    const goneEvent = (JSON.parse(gone) as { t: string; ev?: { id: string } }).ev?.id;

    const d = await run(s);
    // A reply in that conversation makes the daemon read its log (if the start did not).
    const root = events.roots.find((r) => r.id === id)!;
    const reply = base.signAsOwner(1111, "one more", [["E", id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", id], ["k", "11"], ["a", base.coordinate]]);
    expect(await publishAll(relay.url, [reply])).toEqual([reply.id]);
    published.push(reply.id);
    await inLogs(s.tenexDir, [reply.id]);
    // The daemon still takes events in.
    const next = events.next(3);
    published.push(...(await publishAll(relay.url, next)));
    // The event of the damaged line (if it held one) comes back from the relay, and every other is kept.
    const counts = await inLogs(s.tenexDir, published);
    const problems = await stop(d);
    recordDamage(`middle-line-${when}`, `garbage in a middle line ${after}`, counts);
    expect(problems.some((p) => p.startsWith(`log_damaged_lines ${id}`)), problems.join("\n")).toBe(true);
    expect(problems.filter((p) => p.startsWith("log_quarantined")), "nothing is quarantined whole").toEqual([]);
    expect(existsSync(s.log(file)), "the log stays where it was").toBe(true);
    const records = readdirSync(join(s.tenexDir, "quarantine")).filter((f) => f.startsWith("damage-"));
    expect(records, "the damage is recorded durably").toHaveLength(1);
    expect(lostIntactLines(s, [gone])).toEqual([]);
    expect(goneEvent === undefined || counts.get(goneEvent) === 1, "the damaged line's event is back, once").toBe(true);
    expect(once(counts)).toEqual([]);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);
});

describe("a damaged index", () => {
  it("deleted: rebuilt from the logs, and what was published meanwhile is caught up", async () => {
    const s = scenario("no-index");
    for (const f of ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"]) rmSync(join(s.tenexDir, f), { force: true });
    const meanwhile = await publishAll(relay.url, events.next(10));
    published.push(...meanwhile);
    const d = await run(s);
    const counts = await inLogs(s.tenexDir, published);
    await stop(d);
    recordDamage("index-deleted", "index deleted", counts);
    expect(once(counts)).toEqual([]);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);

  it("of an older schema version: migrated, nothing lost", async () => {
    const s = scenario("old-schema");
    const path = join(s.tenexDir, "index.sqlite");
    downgradeToV2(path);
    expect(indexSchemaVersion(path)).toBe(2);
    const d = await run(s);
    const counts = await inLogs(s.tenexDir, published);
    const problems = await stop(d);
    recordDamage("index-old-schema", "index of an older schema", counts);
    expect(indexSchemaVersion(path)).toBe(MIGRATIONS.at(-1)!.version);
    expect(problems.filter((p) => p.startsWith("index_"))).toEqual([]);
    expect(once(counts)).toEqual([]);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);

  it("garbage: moved aside, reported, rebuilt", async () => {
    const s = scenario("garbage-index");
    const path = join(s.tenexDir, "index.sqlite");
    for (const f of ["index.sqlite-wal", "index.sqlite-shm"]) rmSync(join(s.tenexDir, f), { force: true });
    writeFileSync(path, Buffer.concat([Buffer.from("this is not a database "), Buffer.alloc(8192, 0xab)]));
    const d = await run(s);
    const counts = await inLogs(s.tenexDir, published);
    const problems = await stop(d);
    recordDamage("index-garbage", "index file of garbage", counts);
    expect(problems.some((p) => p.startsWith("index_unusable")), problems.join("\n")).toBe(true);
    expect(readdirSync(s.tenexDir).some((f) => f.startsWith("index.sqlite.unusable-"))).toBe(true);
    expect(once(counts)).toEqual([]);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);

  it("that refuses writes while the daemon runs: reported, the stop not called clean, the missing rows put in at the next start", async () => {
    const s = scenario("refusing-index");
    const path = join(s.tenexDir, "index.sqlite");
    const marker = join(s.tenexDir, "clean-shutdown");
    // A fault no ordinary damage gives on demand: every new message row is refused.
    execOn(path, "CREATE TRIGGER test_refuse BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    const d = await run(s);
    const next = events.next(5);
    published.push(...(await publishAll(relay.url, next)));
    await inLogs(s.tenexDir, next.map((e) => e.id));
    const problems = await stop(d);
    expect(problems.some((p) => p.startsWith("index_apply_failed")), problems.join("\n")).toBe(true);
    // A clean-shutdown marker would let the next start skip reconciling the index with the logs.
    expect(existsSync(marker), "a stop after an index write failed is not clean").toBe(false);
    execOn(path, "DROP TRIGGER test_refuse");
    expect(indexDisagreements(s.tenexDir), "the refused rows are missing").not.toEqual([]);

    const again = await run(s);
    const counts = await inLogs(s.tenexDir, published);
    await stop(again);
    recordDamage("index-refusing", "index refusing writes while running", counts);
    expect(existsSync(marker)).toBe(true);
    expect(indexDisagreements(s.tenexDir)).toEqual([]);
  }, 60_000);
});

function execOn(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** A v1/v2 index: the objects later migrations create are dropped and user_version set to 2. */
function downgradeToV2(path: string): void {
  const db = new Database(path);
  try {
    for (const m of MIGRATIONS.filter((x) => x.version > 2)) {
      // Dropping objects undoes a migration only if it just creates them (and fills the tables
      // it creates, as v5's back-fill of unread_by_rank does: dropping the table undoes that too).
      // A virtual table (v6's FTS5 words) is dropped as a table, its storage tables with it.
      const created = [...m.up.matchAll(/CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF NOT EXISTS\s+)?(\w+)/gi)].map((x) => x[1]!);
      const rest = m.up.replace(/\bINSERT\s+INTO\s+(\w+)/gi, (all, t: string) => (created.includes(t) ? "" : all));
      expect(rest, `migration ${m.version} does more than CREATE: update downgradeToV2`).not.toMatch(/\bALTER\b|\bUPDATE\b|\bINSERT\b/i);
      for (const [, type, name] of m.up.matchAll(/CREATE\s+(?:UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|VIEW|TRIGGER)\s+(?:IF NOT EXISTS\s+)?(\w+)/gi)) {
        db.exec(`DROP ${type!.toUpperCase()} IF EXISTS ${name}`);
      }
    }
    db.pragma("user_version = 2");
  } finally {
    db.close();
  }
}

// ----- A full disk: a tmpfs on .tenex/conversations (root, CAP_SYS_ADMIN); TENEXD_NO_TMPFS=1 skips it, and says so -----

/** Mounts a tmpfs of `bytes` on `dir`; throws saying why it could not. */
function mountTmpfs(dir: string, bytes: number): void {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    throw new Error(`the full-disk test mounts a tmpfs and needs root on Linux (here: ${process.platform}, uid ${process.getuid?.()}); set TENEXD_NO_TMPFS=1 to skip it`);
  }
  mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mount -t tmpfs on ${dir} failed (${r.status ?? r.error?.message}): ${r.stderr}; set TENEXD_NO_TMPFS=1 to skip the full-disk test`);
}

const noTmpfs = process.env.TENEXD_NO_TMPFS === "1";
if (noTmpfs) console.warn("TENEXD_NO_TMPFS=1: the full-disk test is SKIPPED (nothing checks a full disk end to end in this run)");

describe("a full disk", () => {
  it.skipIf(noTmpfs)("nothing refused is acknowledged; what was refused, in the back-fill and live, comes back once there is room, without a restart", async () => {
    const s = scenario("full-disk");
    // The planner runs as a command: an agent run is an acknowledgement seen from outside.
    useCommandAgent(s.tenexDir, "planner");
    const mark = relayMark(s.tenexDir);
    const convDir = join(s.tenexDir, "conversations");
    const saved = join(s.dir, "saved-conversations");
    cpSync(convDir, saved, { recursive: true });
    rmSync(convDir, { recursive: true });
    const used = s.logs.reduce((sum, [, t]) => sum + Buffer.byteLength(t), 0);
    mountTmpfs(convDir, used + 512 * 1024);
    try {
      cpSync(saved, convDir, { recursive: true });
      // Fill what is left, so the next appends meet ENOSPC.
      const free = statfsSync(convDir);
      writeFileSync(join(convDir, "filler"), Buffer.alloc(Number(free.bavail) * Number(free.bsize)));

      // Published while the daemon is down: its first back-fill meets the full disk.
      const downEvents = events.next(10);
      const whileDown = await publishAll(relay.url, downEvents);
      const d = await run(s);
      const trigger = base.signAsOwner(11, "Planner, plan this", [["a", base.coordinate], ["title", "Full disk"], ["p", base.agents.planner!]]);
      const liveEvents = [...events.next(20), trigger];
      const live = await publishAll(relay.url, liveEvents);
      const refusable = [...whileDown, ...live];
      published.push(...refusable);
      await sleep(3_000);
      expect(d.child.exitCode, "the daemon must live on with a full disk").toBeNull();
      const full = snapshotLogs(s.tenexDir);
      for (const [path, text] of full) expect(text.endsWith("\n") || text === "", `${path} left torn`).toBe(true);
      const refused = refusable.filter((id) => !eventIdCounts(full).has(id));
      expect(refused.length, "the full disk refused events").toBeGreaterThan(0);
      // Nothing refused was acknowledged: no agent ran, the index (fed only with what is
      // durable) holds no event the logs do not, and the relay's mark did not move past them.
      const during = await apiStatus(s.tenexDir);
      expect(during.agents.runs).toBe(0);
      expect(indexedNotInLogs(s.tenexDir)).toEqual([]);
      const createdAt = new Map([...downEvents, ...liveEvents].map((e) => [e.id, e.created_at]));
      expect(during.lag[0].highWater).toBeGreaterThanOrEqual(mark);
      expect(during.lag[0].highWater).toBeLessThanOrEqual(Math.min(...refused.map((id) => createdAt.get(id)!)));
      expect(during.backfill.relays[0].complete, JSON.stringify(during.backfill)).toBe(false);

      unlinkSync(join(convDir, "filler"));
      // Room again: new events go in at once, and the refused ones come back on their own.
      const later = await publishAll(relay.url, events.next(5));
      published.push(...later);
      const counts = await inLogs(s.tenexDir, [...refusable, ...later], 90_000).catch((err: unknown) => {
        throw new Error(`${String(err)}; the daemon's log: ${d.stderr().slice(-3000)}`);
      });
      // The planner's trigger was refused too: it runs now, once.
      const answers = () => queryRaw(relay.url, { kinds: [1111], authors: [base.agents.planner!], "#E": [trigger.id] });
      await eventually(async () => ((await answers()).length > 0 ? true : undefined), 30_000, "the planner's answer");
      const after = await statusEventually(s.tenexDir, (st) => (st.backfill.relays.every((b: any) => b.complete) ? st : undefined), 30_000, "the back-fill complete");
      const failures = (await stop(d)).filter((p) => !p.startsWith("log_stray_file filler"));
      console.info(`full disk: ${refused.length} of ${refusable.length} refused; ${failures.length} problems reported, e.g. ${failures[0]?.slice(0, 300)}`);
      const sent = [...refusable, ...later];
      recordCase("full-disk", {
        case: "a full disk: back-fill and live refusals back without restart", asked: downEvents.length + liveEvents.length + 5,
        ran: sent.length, unit: "events", inputs: sent.length, refused: refused.length,
        lost: sent.filter((id) => !counts.has(id)).length, doubled: sent.filter((id) => (counts.get(id) ?? 0) > 1).length,
        write_failures: failures.length,
      });
      expect(failures.some((p) => p.includes("ENOSPC")), "the write failures are reported").toBe(true);
      expect(after.lag[0].highWater).toBeGreaterThan(mark);
      expect(await answers()).toHaveLength(1);
      expect(refusable.filter((id) => counts.get(id) !== 1)).toEqual([]);
      expect(lostIntactLines(s, [])).toEqual([]);
      expect(indexDisagreements(s.tenexDir)).toEqual([]);
    } finally {
      spawnSync("umount", ["-l", convDir]);
    }
  }, 150_000);
});

/** Gives `slug` back the example's command backend (the base project made every agent a mailbox). */
function useCommandAgent(tenexDir: string, slug: string): void {
  const file = join(tenexDir, "agents.json");
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { agents: { slug: string; backend: unknown }[] };
  parsed.agents.find((a) => a.slug === slug)!.backend = { type: "command", command: ["node", `./agents/${slug}.mjs`] };
  writeFileSync(file, JSON.stringify(parsed, null, 2));
}

/** The one relay's high-water mark in a stopped project's index. */
function relayMark(tenexDir: string): number {
  const db = new Database(join(tenexDir, "index.sqlite"), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT max_created_at AS at FROM relay_marks").get() as { at: number }).at;
  } finally {
    db.close();
  }
}
