// Everything under .tenex/ is its owner's alone: conversations, the index, the relay's store,
// quarantined bytes, the API's token and port, the pid lock. Under a umask of 000 (a
// misconfigured service manager, a shared container) nothing may come out readable by others:
// every directory 0700, every file without group or other bits. Files left open by an older
// tenexd are made private at the next start, and `doctor` reports any that are not, with the fix.

import { appendFileSync, chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { startDaemon, type TestProject } from "../helpers/daemon.js";
import { cli, endpointOf, mailboxProject } from "./api-fixture.js";

let tmp: string;
let project: TestProject;
let umask: number;

beforeAll(() => {
  // Inherited by every tenexd this file starts: init, the daemon, doctor.
  umask = process.umask(0);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-modes-"));
  project = mailboxProject(join(tmp, "p"));
});

afterAll(() => {
  process.umask(umask);
  rmSync(tmp, { recursive: true, force: true });
});

/** Every entry under .tenex/ (itself included) that group or others may use, with its mode. */
function openToOthers(tenexDir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${relative(tenexDir, path) || "."} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(tenexDir);
  return out;
}

const listed = (tenexDir: string) => {
  const names: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      names.push(relative(tenexDir, path));
      if (statSync(path).isDirectory()) walk(path);
    }
  };
  walk(tenexDir);
  return names;
};

describe("under umask 000", () => {
  it("init, a running daemon and its data: every directory 0700, no file open to others", async () => {
    expect(openToOthers(project.tenexDir)).toEqual([]);
    const d = await startDaemon(project.dir);
    const api = new TenexClient(endpointOf(project));
    const sent = await api.sendDirect({ from: "planner", to: "coder", content: "private?" });
    await api.discuss({ from: "orchestrator", scope: "all", content: "everyone" });
    const names = listed(project.tenexDir);
    // The files this checks are there: a log, the index and its WAL, the relay's store, the lock, the API's files.
    for (const f of [`conversations/${sent.conversationId}.jsonl`, "index.sqlite", "index.sqlite-wal", "relay.sqlite", "daemon.pid", "daemon.token", "daemon.port"]) {
      expect(names, f).toContain(f);
    }
    expect(openToOthers(project.tenexDir)).toEqual([]);
    expect(statSync(project.tenexDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(project.tenexDir, "conversations")).mode & 0o777).toBe(0o700);
    expect(await d.stop()).toBe(0);

    // A torn tail: its bytes go to quarantine/ at the next start.
    appendFileSync(join(project.tenexDir, "conversations", `${sent.conversationId}.jsonl`), '{"t":"event","n":99,');
    const again = await startDaemon(project.dir);
    expect(await again.stop()).toBe(0);
    expect(readdirSync(join(project.tenexDir, "quarantine"))).toHaveLength(1);
    expect(listed(project.tenexDir)).toContain("clean-shutdown");
    expect(openToOthers(project.tenexDir)).toEqual([]);
  });

  it("files an older tenexd left open to others are made private at start", async () => {
    const conv = readdirSync(join(project.tenexDir, "conversations")).find((n) => n.endsWith(".jsonl"))!;
    chmodSync(project.tenexDir, 0o755);
    chmodSync(join(project.tenexDir, "conversations"), 0o777);
    chmodSync(join(project.tenexDir, "conversations", conv), 0o666);
    chmodSync(join(project.tenexDir, "index.sqlite"), 0o644);
    chmodSync(join(project.tenexDir, "relay.sqlite"), 0o644);
    expect(openToOthers(project.tenexDir)).toHaveLength(5);
    const d = await startDaemon(project.dir);
    expect(openToOthers(project.tenexDir)).toEqual([]);
    expect(await d.stop()).toBe(0);
  });

  it("doctor reports a .tenex or a data file open to others, with the chmod that fixes it", async () => {
    expect((await cli(project, "doctor")).code).toBe(0);
    chmodSync(project.tenexDir, 0o755);
    chmodSync(join(project.tenexDir, "index.sqlite"), 0o644);
    const text = await cli(project, "doctor");
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^FAIL +permissions +2 entries under .+\.tenex are open to other users \(\.tenex 0755, index\.sqlite 0644\): run `chmod -R go-rwx .+\.tenex'?`$/m);
    const json = (await cli(project, "doctor", "--json")).json();
    expect(json.checks.find((c: { check: string }) => c.check === "permissions")).toEqual(expect.objectContaining({ ok: false }));
    chmodSync(project.tenexDir, 0o700);
    chmodSync(join(project.tenexDir, "index.sqlite"), 0o600);
    const fixed = await cli(project, "doctor");
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^ok +permissions +/m);
  });
});
