// Agents and scripts read the CLI through pipes. A pipe holds 64 KiB; a CLI that exits while
// stdout still has more queued loses the rest (`tenexd show -c … --json | wc -c` gave 65,536
// bytes of a 650 KB document). Every command writes its whole output before it exits: checked
// here through a real shell pipe, with the daemon running and without it.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { BIN, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import { endpointOf, mailboxProject } from "./api-fixture.js";

const MESSAGES = 10;
const CONTENT_BYTES = 60_000;

let tmp: string;
let project: TestProject;
let daemon: RunningDaemon | undefined;
let conversation: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-pipe-"));
  project = mailboxProject(join(tmp, "p"));
  daemon = await startDaemon(project.dir);
  const api = new TenexClient(endpointOf(project));
  const first = await api.sendDirect({ from: "coder", to: "reviewer", content: `first ${"a".repeat(CONTENT_BYTES)}` });
  conversation = first.conversationId;
  for (let i = 1; i < MESSAGES; i++) await api.reply({ from: i % 2 ? "reviewer" : "coder", conversation, content: `${i} ${"b".repeat(CONTENT_BYTES)}` });
});

afterAll(async () => {
  await daemon?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** `tenexd <args>` with its stdout into a shell pipe (`| cmd`), as a script would read it. */
function piped(args: string[], into: string): { code: number; stdout: string; stderr: string } {
  const line = `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(" ")} --project ${q(project.dir)} | ${into}`;
  const r = spawnSync("sh", ["-c", line], { encoding: "utf8", timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The same output redirected to a file: writes to a file are synchronous, nothing is cut. */
function toFile(args: string[]): string {
  const file = join(tmp, "out");
  const r = spawnSync("sh", ["-c", `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(" ")} --project ${q(project.dir)} > ${q(file)}`], { encoding: "utf8", timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(file, "utf8");
}

function expectWhole(args: string[]): void {
  const whole = toFile(args);
  expect(Buffer.byteLength(whole)).toBeGreaterThan(4 * 65_536); // several times what a pipe holds
  const counted = piped(args, "wc -c");
  expect(counted.code, counted.stderr).toBe(0);
  expect(Number(counted.stdout.trim())).toBe(Buffer.byteLength(whole));
  const read = piped(args, "cat");
  expect(read.stdout).toBe(whole);
}

describe("a document of several hundred KB through a pipe", () => {
  it("show --json with the daemon running: every byte, and it parses", () => {
    expectWhole(["show", "-c", conversation, "--json"]);
    const doc = JSON.parse(piped(["show", "-c", conversation, "--json"], "cat").stdout);
    expect(doc.source).toBe("daemon");
    const messages = doc.timeline.filter((e: { kind: string }) => e.kind === "message");
    expect(messages).toHaveLength(MESSAGES);
    expect(messages.every((m: { content: string }) => m.content.length > CONTENT_BYTES)).toBe(true);
  });

  it("context as text with the daemon running", () => {
    expectWhole(["context", "-a", "reviewer", "-c", conversation]);
  });

  it("show --json and context --json from the index (no daemon)", async () => {
    expect(await daemon!.stop()).toBe(0);
    daemon = undefined;
    expectWhole(["show", "-c", conversation, "--json"]);
    expectWhole(["context", "-a", "reviewer", "-c", conversation, "--json"]);
    expect(JSON.parse(piped(["show", "-c", conversation, "--json"], "cat").stdout).source).toBe("index");
  });

  it("a reader that stops early (| head) ends the command quietly, without a stack trace", () => {
    const r = piped(["show", "-c", conversation, "--json"], "head -c 100 >/dev/null; echo done");
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
  });
});
