// A project another tenexd runs on: a second `start`, a reindex or an import is refused with
// its own message and exit code 3 (naming the pid that holds the lock, and how to stop it),
// never "internal error" or a stack trace, and the running daemon is left alone. The read
// commands still answer: from the daemon, or from the index when the lock's holder has no API
// (a daemon still starting, a reindex).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { writeTenexFixture } from "../helpers/tenex-fixture.js";
import { cli, cliProcess, endpointOf, mailboxProject, type CliRun } from "./api-fixture.js";

let tmp: string;
let project: TestProject;
let daemon: RunningDaemon | undefined;
let conv: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-lock-"));
  project = mailboxProject(join(tmp, "p"));
  daemon = await startDaemon(project.dir);
  conv = (await new TenexClient(endpointOf(project)).sendDirect({ from: "planner", to: "coder", content: "hello" })).conversationAlias!;
});

afterAll(async () => {
  await daemon?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function expectLocked(r: CliRun, pid: number): void {
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(new RegExp(`^tenexd: .*tenexd \\(pid ${pid}\\) is running on this project.*stop it .*kill ${pid}`, "m"));
  expect(r.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);
}

describe("a project locked by a running daemon", () => {
  it("start, reindex and import exit 3 naming the running daemon; it runs on, and reads ask it", async () => {
    const pid = daemon!.child.pid!;
    const second = cliProcess(project, "start");
    expectLocked(second, pid);
    expect(second.stdout).toBe(""); // refused before reporting a project it will not run
    expect(JSON.parse(cliProcess(project, "start", "--json").stdout).error.code).toBe("project_locked");
    expectLocked(await cli(project, "reindex"), pid);
    // A real TENEX project to import (another project's: --force), so the import gets as far as the lock.
    writeTenexFixture(join(tmp, "tenex"));
    expectLocked(await cli(project, "import", "--from", join(tmp, "tenex"), "--force"), pid);
    const status = await cli(project, "status", "--json");
    expect(status.json()).toEqual(expect.objectContaining({ source: "daemon", running: true }));
    expect(status.json().status.pid).toBe(pid);
    expect((await cli(project, "show", "-c", conv)).code).toBe(0);
  });

  it("a lock holder without an API: reads answer from the index naming it, start exits 3", async () => {
    expect(await daemon!.stop()).toBe(0);
    daemon = undefined;
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(project.tenexDir, "daemon.pid"), `${holder.pid}\n`);
      for (const args of [["conversations"], ["show", "-c", conv], ["inbox", "-a", "coder"], ["stats"]]) {
        const r = cliProcess(project, ...args);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain(`tenexd pid ${holder.pid} holds the project's lock but its API does not answer`);
      }
      const status = await cli(project, "status", "--json");
      expect(status.json()).toEqual(expect.objectContaining({ source: "index", running: false, lockedBy: holder.pid }));
      expect((await cli(project, "status")).stdout).toMatch(new RegExp(`^tenexd pid ${holder.pid} holds the lock`));
      expectLocked(cliProcess(project, "start"), holder.pid!);
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
