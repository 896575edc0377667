// An unlucky operator's storage: the disk under .tenex fills up, or .tenex becomes read-only (a
// file system remounted read-only after an error, a backup mounted for inspection). Each gets
// its own message saying what to do, its own exit code (4 read-only, 5 full) and API error
// (503 storage_read_only, 507 storage_full), never "internal error", a stack trace or a 500;
// the read commands still answer from the index. One failing cause repeated a hundred times is
// one problem with its count, and does not push the others out of the status.

import { cpSync, existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { eventually, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { inLogs } from "../helpers/catchup-fixture.js";
import {
  apiStatus, eventIdCounts, ProjectEvents, publishAll, recordCase, snapshotLogs, statusEventually, wasmSigner,
} from "../helpers/fault-tools.js";
import { bindReadOnly, fill, mountTmpfs, unmount } from "../helpers/mounts.js";
import { cli, cliProcess, endpointOf, mailboxProject, raw, type CliRun } from "./api-fixture.js";

let tmp: string;
const mounted: string[] = [];
const daemons: RunningDaemon[] = [];

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-storage-"));
});

afterAll(async () => {
  for (const d of daemons) await d.stop();
  for (const dir of mounted.reverse()) unmount(dir);
  rmSync(tmp, { recursive: true, force: true });
});

/** A mailbox project with two conversations in its logs and index, stopped cleanly. */
async function projectWithData(name: string): Promise<TestProject> {
  const project = mailboxProject(join(tmp, name));
  const d = await startDaemon(project.dir);
  const api = new TenexClient(endpointOf(project));
  const direct = await api.sendDirect({ from: "planner", to: "coder", content: "Plan attached" });
  await api.reply({ from: "coder", conversation: direct.conversationId, content: "Got it" });
  await api.discuss({ from: "orchestrator", scope: "all", title: "Retro", content: "what went well?" });
  expect(await d.stop()).toBe(0);
  return project;
}

/** No stack trace, no "internal error": an operator's fault is said as such. */
function expectOperatorMessage(r: CliRun, exitCode: number, pattern: RegExp): void {
  expect(r.code, r.stderr).toBe(exitCode);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);
}

/**
 * Every read command answers from the index, with exit 0: run in this process (the same code,
 * without a Node start-up per command), and `status` once as a child, as a user runs it, saying
 * where the answer came from.
 */
async function expectReadsAnswer(project: TestProject, conversation: string): Promise<void> {
  const reads = [["status"], ["conversations"], ["inbox", "-a", "coder"], ["stats"], ["show", "-c", conversation],
    ["context", "-a", "coder", "-c", conversation], ["routing", "-c", conversation]];
  for (const args of reads) {
    const r = await cli(project, ...args, "--json");
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    expect(r.json().source, args.join(" ")).toBe("index");
  }
  const status = cliProcess(project, "status");
  expect(status.code, status.stderr).toBe(0);
  expect(status.stdout).toMatch(/^tenexd is not running on /);
  expect(status.stderr).toContain("answered from the index, read-only");
}

describe("a read-only .tenex", () => {
  it("start and reindex say it is read-only (exit 4), the read commands answer from the index", async () => {
    const project = await projectWithData("ro");
    const conv = (await cli(project, "conversations", "--json")).json().items[0].alias as string;
    bindReadOnly(project.tenexDir);
    mounted.push(project.tenexDir);

    const start = cliProcess(project, "start");
    expectOperatorMessage(start, 4, /^tenexd: .*\.tenex.* is not writable \(EROFS: read-only file system.*\): .*remount it read-write.*read commands/m);
    expect(cliProcess(project, "start", "--json").stdout).toContain('"code":"storage_read_only"');
    expectOperatorMessage(cliProcess(project, "reindex"), 4, /not writable \(EROFS/);
    await expectReadsAnswer(project, conv);

    unmount(project.tenexDir);
    mounted.pop();
    const again = await startDaemon(project.dir);
    expect(await again.stop()).toBe(0);
  });

  it("after a crash (the index's WAL files left behind) the read commands answer too", async () => {
    const project = await projectWithData("ro-crash");
    const d = await startDaemon(project.dir);
    const conv = (await cli(project, "conversations", "--json")).json().items[0].alias as string;
    await d.kill();
    expect(existsSync(join(project.tenexDir, "index.sqlite-wal"))).toBe(true);
    bindReadOnly(project.tenexDir);
    mounted.push(project.tenexDir);
    await expectReadsAnswer(project, conv);
  });
});

describe("a full disk", () => {
  let project: TestProject;
  let daemon: RunningDaemon;
  let ep: { url: string; token: string };
  let convDir: string;
  let filler: string;
  /** Events the relay took while the disk was full: each refused, each to come back once there is room. */
  let refused: string[] = [];

  beforeAll(async () => {
    project = await projectWithData("full");
    convDir = join(project.tenexDir, "conversations");
    const saved = join(tmp, "full-saved");
    cpSync(convDir, saved, { recursive: true });
    rmSync(convDir, { recursive: true });
    mountTmpfs(convDir, 1024 * 1024);
    mounted.push(convDir);
    cpSync(saved, convDir, { recursive: true });
    // Reported at start; must still be in the status after a hundred failures of another cause.
    writeFileSync(join(convDir, "notes.txt"), "not a log\n");
    filler = fill(convDir);
    daemon = await startDaemon(project.dir);
    daemons.push(daemon);
    ep = endpointOf(project);
  });

  it("a write request gets 507 storage_full saying what to do; the CLI exits 5 with the same message", async () => {
    const r = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: { from: "planner", scope: "all", content: "won't fit" } });
    expect(r.status).toBe(507);
    expect(r.body.error.code).toBe("storage_full");
    expect(r.body.error.message).toMatch(/no space left.*ENOSPC.*free space/i);
    const send = await cli(project, "discuss", "--from", "planner", "--all", "-m", "won't fit either");
    expectOperatorMessage(send, 5, /^tenexd: .*no space left.*free space/im);
    expect((await cli(project, "discuss", "--json", "--from", "planner", "--all", "-m", "nor this")).json().error.code).toBe("storage_full");
  });

  it("a hundred failed events are one problem with its count; the problem found at start stays", async () => {
    const status = await apiStatus(project.tenexDir);
    const events = new ProjectEvents(project, await wasmSigner(project.owner.sk), { rootShare: 0.3 });
    refused = await publishAll(status.embeddedRelay, events.next(150));
    expect(refused, "the embedded relay took every event").toHaveLength(150);
    const failed = await statusEventually(project.tenexDir, (s) => {
      const p = s.problems.find((x: { kind: string; count: number }) => x.kind === "ingest_failed" && x.count >= 120);
      return p ? s : undefined;
    }, 30_000, "120 ingest failures");
    const kinds = failed.problems.map((p: { kind: string }) => p.kind);
    expect(kinds).toContain("log_stray_file");
    expect(kinds.filter((k: string) => k === "ingest_failed").length).toBeLessThanOrEqual(3);
    const entry = failed.problems.find((p: { kind: string }) => p.kind === "ingest_failed");
    expect(entry).toEqual(expect.objectContaining({ count: expect.any(Number), first: expect.any(Number), last: expect.any(Number) }));
    expect(entry.first).toBeLessThanOrEqual(entry.last);
    const text = await cli(project, "status");
    // Retries of the back-fill add failures of their own: at least the 120 seen above.
    expect(text.stdout).toMatch(/ingest_failed +x[1-9]\d{2,} since \S+ ago/);
    expect(text.stdout).toMatch(/log_stray_file +once/);
  });

  it("read-only storage under a running daemon: 503 storage_read_only, CLI exit 4", async () => {
    // The daemon's files stay open for writing (a remount would be refused as busy): new files,
    // such as a new conversation's log, can no longer be created.
    bindReadOnly(convDir);
    try {
      const r = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: { from: "planner", scope: "all", content: "read-only" } });
      expect([r.status, r.body.error.code]).toEqual([503, "storage_read_only"]);
      expect(r.body.error.message).toMatch(/not writable.*EROFS/);
      expectOperatorMessage(await cli(project, "discuss", "--from", "planner", "--all", "-m", "ro"), 4, /not writable/);
      // Reads are served all the same.
      expect((await cli(project, "conversations")).code).toBe(0);
    } finally {
      unmount(convDir); // the read-only view; the tmpfs stays
    }
    unlinkSync(filler);
    // Room again: writes work without a restart.
    const ok = await raw(ep.url, "POST", "/api/v1/messages", { token: ep.token, body: { from: "planner", scope: "all", content: "fits now" } });
    expect(ok.status).toBe(201);
  });

  it("every event refused while the disk was full comes back once there is room, once, without a restart", async () => {
    expect(refused.length, "the hundred failures above ran").toBe(150);
    const inAtFull = refused.filter((id) => eventIdCounts(snapshotLogs(project.tenexDir)).has(id));
    // Refused live events are retried by the back-fill's retry loop, which backed off (to 5 min at
    // most) while the disk stayed full: the wait covers its longest step.
    const counts = await inLogs(project.tenexDir, refused, 320_000).catch(() => eventIdCounts(snapshotLogs(project.tenexDir)));
    recordCase("storage-full", {
      case: "storage: full disk, then read-only, then room", asked: 150, ran: refused.length, unit: "events", inputs: refused.length,
      lost: refused.filter((id) => !counts.has(id)).length, doubled: refused.filter((id) => (counts.get(id) ?? 0) > 1).length,
      in_logs_while_full: inAtFull.length,
    });
    expect(refused.filter((id) => counts.get(id) !== 1)).toEqual([]);
  }, 330_000);

  it("start on a .tenex with no space at all: exit 5 with what to do; the reads still answer", async () => {
    const other = await projectWithData("full-start");
    const conv = (await cli(other, "conversations", "--json")).json().items[0].alias as string;
    const saved = join(tmp, "full-start-saved");
    cpSync(other.tenexDir, saved, { recursive: true });
    rmSync(other.tenexDir, { recursive: true });
    mountTmpfs(other.tenexDir, 2 * 1024 * 1024);
    mounted.push(other.tenexDir);
    cpSync(saved, other.tenexDir, { recursive: true });
    fill(other.tenexDir);
    expectOperatorMessage(cliProcess(other, "start"), 5, /^tenexd: no space left .*ENOSPC.*free space/m);
    await expectReadsAnswer(other, conv);
  });
});
