// The CLI as users run it: `node bin/tenexd.js …` against the compiled dist/ (built by
// `npm test` beforehand; run `npx tsc -p tsconfig.build.json` first when running this alone).

import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/tenexd.js");
let tmp: string;

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist/daemon/cli/main.js"))) {
    throw new Error("dist/ is not built: run `npx tsc -p tsconfig.build.json` (npm test does it)");
  }
  tmp = mkdtempSync(join(tmpdir(), "tenexd-cli-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const tenexd = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 20_000 });

/** Resolves once `predicate` holds for the child's stdout so far. */
function waitForStdout(child: ReturnType<typeof spawn>, predicate: (out: string) => boolean): Promise<string> {
  return new Promise((done, fail) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (predicate(out)) done(out);
    });
    child.on("close", (code) => fail(new Error(`tenexd exited (${code}) before its report; stdout: ${out}`)));
  });
}

describe("tenexd CLI", () => {
  it("--help exits 0 and lists every command", () => {
    const r = tenexd("--help");
    expect(r.status).toBe(0);
    for (const cmd of ["init", "keys", "doctor", "start"]) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} +\\S`, "m"));
    const start = tenexd("start", "--help");
    expect(start.status).toBe(0);
    expect(start.stdout).toContain("Usage: tenexd start [--project DIR]");
  });

  it("init --example, then start reports what it loaded and stops with exit 0 on SIGTERM", async () => {
    const project = join(tmp, "demo");
    const init = tenexd("init", "--example", "--project", project);
    expect(init.status, init.stderr).toBe(0);
    expect(statSync(join(project, ".tenex/keys/coder.nsec")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(project, ".tenex/.gitignore"), "utf8")).toMatch(/^keys\/$/m);
    expect(existsSync(join(project, ".tenex/agents/coder.mjs"))).toBe(true);
    expect(tenexd("init", "--example", "--project", project).status).toBe(1);

    const child = spawn(process.execPath, [BIN, "start", "--project", project], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    // "close": its stderr read to the end before the test looks for "stopping".
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const report = await waitForStdout(child, (out) => out.includes("reviewer"));
    expect(report).toMatch(/coordinate {2}31933:[0-9a-f]{64}:tenexd-demo/);
    expect(report).toContain("embedded relay on 127.0.0.1");
    expect(report).toMatch(/orchestrator \* +orchestrator +[0-9a-f]{8}… +command: node \.\/agents\/orchestrator\.mjs/);

    const stoppedAt = Date.now();
    child.kill("SIGTERM");
    expect(await exited, `stderr: ${stderr}`).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    expect(stderr).toContain('"msg":"stopping"');
  });

  it("a broken config exits 2 naming the file and field, without a stack trace", () => {
    const project = join(tmp, "broken");
    expect(tenexd("init", "--example", "--project", project).status).toBe(0);
    const file = join(project, ".tenex/config.json");
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.relays = ["https://relay.example"];
    writeFileSync(file, JSON.stringify(config));

    const r = tenexd("start", "--project", project);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe('tenexd: config.json: relays[0]: must be a ws:// or wss:// URL, e.g. "wss://relay.example" (got "https://relay.example")\n');

    const json = tenexd("start", "--json", "--project", project);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "config_invalid", message: expect.stringContaining("relays[0]") } });

    const doctor = tenexd("doctor", "--json", "--project", project);
    expect(doctor.status).toBe(2);
    expect(JSON.parse(doctor.stdout).checks).toContainEqual({ check: "config.json", ok: false, detail: expect.stringContaining("relays[0]") });
  });

  // What tenexd start chooses at start, each with an environment variable to force its fallback.
  const CHOICES = [
    { check: "verifier", what: "which signature verifier runs", variable: "TENEXD_VERIFIER", native: "bcrypto-native", fallback: "nostr-wasm",
      forced: "nostr-wasm (native verifier not used: TENEXD_VERIFIER=nostr-wasm)", wrong: "noble", fix: "use bcrypto-native or nostr-wasm", noun: "a verifier" },
    { check: "spawner", what: "how agents' programs are started", variable: "TENEXD_SPAWNER", native: "posix-spawn", fallback: "child-process",
      forced: "child-process (native spawner not used: TENEXD_SPAWNER=child-process)", wrong: "vfork", fix: "use posix-spawn or child-process", noun: "a spawner" },
  ];

  it.each(CHOICES)("doctor and start say $what; $variable forces the fallback, a wrong value exits 2", (c) => {
    const project = join(tmp, c.check);
    expect(tenexd("init", "--example", "--project", project).status).toBe(0);
    const row = (env: NodeJS.ProcessEnv) => {
      const r = spawnSync(process.execPath, [BIN, "doctor", "--json", "--project", project], { encoding: "utf8", timeout: 20_000, env: { ...process.env, ...env } });
      return { status: r.status, row: (JSON.parse(r.stdout) as { checks: { check: string }[] }).checks.find((x) => x.check === c.check) };
    };
    expect(row({}).row).toEqual({ check: c.check, ok: true, detail: c.native });
    expect(row({ [c.variable]: c.fallback }).row).toEqual({ check: c.check, ok: true, detail: c.forced });
    const bad = row({ [c.variable]: c.wrong });
    expect(bad.status).toBe(2);
    expect(bad.row).toEqual({ check: c.check, ok: false, detail: expect.stringContaining(c.fix) });
    const start = spawnSync(process.execPath, [BIN, "start", "--project", project], { encoding: "utf8", timeout: 20_000, env: { ...process.env, [c.variable]: c.wrong } });
    expect(start.status).toBe(2);
    expect(start.stderr).toContain(`tenexd: ${c.variable}=${c.wrong} is not ${c.noun}`);
    expect(start.stderr).not.toMatch(/\n\s+at /);
  });

  it("doctor says whether freed memory is handed back (glibc's malloc_trim, built at install)", () => {
    const project = join(tmp, "memory-trim");
    expect(tenexd("init", "--example", "--project", project).status).toBe(0);
    const r = tenexd("doctor", "--json", "--project", project);
    expect((JSON.parse(r.stdout) as { checks: unknown[] }).checks).toContainEqual({ check: "memory trim", ok: true, detail: "malloc_trim" });
  });

  it("an unknown command or option is a usage error (exit 2)", () => {
    const r = tenexd("frobnicate");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(tenexd("start", "--no-such-flag").status).toBe(2);
  });
});
