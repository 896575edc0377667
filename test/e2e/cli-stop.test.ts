// `tenexd stop` against a real daemon (a child process): it stops cleanly, as SIGTERM would, and
// the command returns only once the project's lock is released, so a reindex can follow at once;
// a second stop finds nothing to stop and says so. Written as an unlucky operator would meet it:
// after a crash the lock may name a live process that is not tenexd (its pid reused), with the
// dead daemon's port and token files still there; the command must not signal it. A lock that
// records its owner's start time tells such a process from its owner: the project is free.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../../daemon/lock-holder.js";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { readLog, startDaemon, type TestProject } from "../helpers/daemon.js";
import { cli, cliProcess, endpointOf, mailboxProject } from "./api-fixture.js";

let tmp: string;
let project: TestProject;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-stop-"));
  project = mailboxProject(join(tmp, "p"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("tenexd stop", () => {
  it("stops the running daemon cleanly and returns once the project is free; again, says nothing runs", async () => {
    const daemon = await startDaemon(project.dir);
    try {
      const sent = await new TenexClient(endpointOf(project)).sendDirect({ from: "planner", to: "coder", content: "before the stop" });
      const r = await cli(project, "stop", "--json");
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toEqual({ stopped: true, pid: daemon.child.pid, ms: expect.any(Number) });
      // Returned once the lock was released: the project is free, and the daemon ended as on SIGTERM.
      expect(existsSync(join(project.tenexDir, "daemon.pid"))).toBe(false);
      expect(await daemon.stop()).toBe(0);
      expect(daemon.stderr()).toMatch(/"msg":"stopping".*"by":"tenexd stop"/);
      expect(daemon.stderr()).toMatch(/"msg":"stopped"/);
      expect(existsSync(join(project.tenexDir, "clean-shutdown"))).toBe(true);
      expect(readLog(project.tenexDir, sent.conversationId).some((rec) => rec.t === "event" && rec.ev.id === sent.event.id)).toBe(true);
      expect((await cli(project, "reindex")).code).toBe(0);
    } finally {
      await daemon.kill();
    }
    const again = cliProcess(project, "stop");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`no tenexd is running on ${project.dir}\n`);
    expect(JSON.parse(cliProcess(project, "stop", "--json").stdout)).toEqual({ stopped: false, running: false });
  });

  it("a lock left by a crash, naming another live program: exit 1 naming it, and that program is not signalled", async () => {
    const stranger = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(project.tenexDir, "daemon.pid"), `${stranger.pid}\n`);
      // What a SIGKILLed daemon leaves: its API's port and the owner's token.
      writeFileSync(join(project.tenexDir, "daemon.port"), `${await closedPort()}\n`, { mode: 0o600 });
      writeFileSync(join(project.tenexDir, "daemon.token"), "a-dead-daemon-s-token\n", { mode: 0o600 });
      const r = cliProcess(project, "stop");
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^tenexd: pid ${stranger.pid} holds the project's lock but does not answer .*ECONNREFUSED.*another program that now has that pid \\(then remove .*daemon\\.pid\\)`, "m"));
      expect(r.stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);
      expect(JSON.parse(cliProcess(project, "stop", "--json").stdout).error.code).toBe("daemon_unreachable");
      // Any signal that stops a process (SIGTERM, SIGINT, SIGKILL) would have ended it by now.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stranger.exitCode).toBe(null);
      expect(stranger.signalCode).toBe(null);
      expect(isAlive(stranger.pid!)).toBe(true);
    } finally {
      stranger.kill("SIGKILL");
    }
  });

  it("a lock left by a crash whose pid is another program's now (it started later): start takes the project, stop stops the daemon only", async () => {
    const stranger = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      // A lock as a daemon that started at tick 1 after boot would have written it, its pid now the stranger's.
      writeFileSync(join(project.tenexDir, "daemon.pid"), `${stranger.pid} 1\n`);
      expect(JSON.parse(cliProcess(project, "stop", "--json").stdout)).toEqual({ stopped: false, running: false });
      const daemon = await startDaemon(project.dir);
      try {
        const r = await cli(project, "stop");
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^stopped tenexd \\(pid ${daemon.child.pid}\\) in \\d+ ms\n$`));
        expect(await daemon.stop()).toBe(0);
      } finally {
        await daemon.kill();
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stranger.exitCode).toBe(null);
      expect(stranger.signalCode).toBe(null);
    } finally {
      stranger.kill("SIGKILL");
    }
  });
});
