// Shared by the API and CLI tests: a demo project whose agents all use the mailbox backend (so
// nothing runs on its own and every message in a test is one the test sent), a daemon on it for
// the tests of one file, the daemon's API endpoint as it wrote it into .tenex/, raw requests that
// bypass the typed client, and the CLI run in this process (fast) or as a child (stdout, stderr,
// exit code, signals).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { main } from "../../daemon/cli/main.js";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { ApiClientError } from "../../daemon/front-desk/client/errors.js";
import { BIN, makeProject, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";

export function mailboxProject(dir: string, limits: Record<string, number> = {}): TestProject {
  const project = makeProject(dir, (c) => {
    c.limits = { ...c.limits, ...limits };
  });
  const file = join(project.tenexDir, "agents.json");
  const agents = JSON.parse(readFileSync(file, "utf8")) as { agents: { backend: unknown }[] };
  for (const a of agents.agents) a.backend = { type: "mailbox" };
  writeFileSync(file, JSON.stringify(agents, null, 2));
  return project;
}

export function endpointOf(project: TestProject): { url: string; token: string } {
  const port = readFileSync(join(project.tenexDir, "daemon.port"), "utf8").trim();
  return { url: `http://127.0.0.1:${port}`, token: readFileSync(join(project.tenexDir, "daemon.token"), "utf8").trim() };
}

export interface MailboxDaemon {
  project: TestProject;
  daemon: RunningDaemon;
  ep: { url: string; token: string };
  api: TenexClient;
}

/**
 * A daemon on a fresh mailbox project (in a temp directory named after `prefix`) for the tests of
 * one file: started before them, given to `started`; stopped and its directory deleted after them.
 */
export function useMailboxDaemon(prefix: string, limits: Record<string, number>, started: (d: MailboxDaemon) => void): void {
  let tmp: string | undefined;
  let daemon: RunningDaemon | undefined;
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), prefix));
    const project = mailboxProject(join(tmp, "p"), limits);
    daemon = await startDaemon(project.dir);
    const ep = endpointOf(project);
    started({ project, daemon, ep, api: new TenexClient(ep) });
  });
  afterAll(async () => {
    await daemon?.stop();
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  });
}

/** The error a request the API refused rejects with (fails the test if it did not reject). */
export async function refused(p: Promise<unknown>): Promise<ApiClientError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiClientError);
  return err as ApiClientError;
}

export interface RawAnswer {
  status: number;
  body: any;
}

/** A request with exactly the headers given (no token unless `token` is set). */
export async function raw(url: string, method: string, path: string, opts: { token?: string; body?: string | object; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
  const body = typeof opts.body === "object" ? JSON.stringify(opts.body) : opts.body;
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json(): any;
}

const result = (code: number, stdout: string, stderr: string): CliRun => ({ code, stdout, stderr, json: () => JSON.parse(stdout) });

/** `tenexd <args> --project <dir>` in this process: the real CLI code, without Node's start-up cost. */
export async function cli(project: TestProject, ...args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main([...args, "--project", project.dir], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    cwd: project.dir,
  });
  return result(code, stdout, stderr);
}

/** The same as a child process (bin/tenexd.js, needs dist/). */
export function cliProcess(project: TestProject, ...args: string[]): CliRun {
  const r = spawnSync(process.execPath, [BIN, ...args, "--project", project.dir], { encoding: "utf8", timeout: 30_000 });
  return result(r.status ?? -1, r.stdout, r.stderr);
}
