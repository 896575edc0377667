import Database from "better-sqlite3";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildAgentInput, type AgentInput } from "../../src/agent-input.js";
import { parseAgentOutput } from "../../src/agent-output.js";
import { runCommand, startCommand, type CommandResult, type CommandSpec, type RunCommandOptions, type StartedCommand } from "../../daemon/engine/agents/command-backend.js";
import type { SpawnProgram } from "../../adapters/spawn/agent-process.js";
import { forkSpawn } from "../../adapters/spawn/fork-spawn.js";
import { loadNativeSpawn } from "../../adapters/spawn/native-spawn.js";
import { buildAgentMessages } from "../../src/agent-messages.js";
import { decideAddEvent, stamp } from "../../src/conversation.js";
import { applyRecord, emptyConversation } from "../../src/conversation-reducer.js";
import type { NostrEvent } from "../../src/types.js";
import { testProject } from "../helpers/events.js";

const FIXTURES = resolve(import.meta.dirname, "../fixtures/agents");
const cwd = mkdtempSync(join(tmpdir(), "tenexd-command-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** A real conversation (signed root from the owner, p-tagging the coder) and inputs built from it. */
function scene(content = "please fix the build") {
  const p = testProject({ agents: ["planner", "coder"] });
  const root = JSON.parse(JSON.stringify(p.root(p.owner, content, [p.agents.coder!.pubkey], [["claude-session", "sess-1"]]))) as NostrEvent;
  const conv = emptyConversation(root.id, p.coordinate);
  for (const r of stamp(conv, decideAddEvent(conv, root, "relay", 1_000))) applyRecord(conv, r);
  const names = new Map(p.info.agents.map((a) => [a.pubkey, a.name]));
  const nameOf = (pk: string) => names.get(pk) ?? "User";
  const isAgent = (pk: string) => names.has(pk);
  const inputFor = (slug: string): AgentInput => {
    const agent = p.info.agents.find((a) => a.slug === slug)!;
    const context = buildAgentMessages(conv, agent, root, { nameOf, isAgent });
    return buildAgentInput({ agent, project: p.info, conversation: conv, trigger: root, context, nameOf });
  };
  return { root, inputFor };
}

const spec = (fixture: string, extra: Partial<CommandSpec> = {}): CommandSpec =>
  ({ command: [process.execPath, join(FIXTURES, fixture)], cwd, timeoutMs: 5_000, ...extra });

function failure(r: CommandResult) {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output)}`);
  return r.error;
}

function success(r: CommandResult) {
  if (!r.ok) throw new Error(`expected success, got ${r.error.kind}: ${r.error.message}`);
  return r.output;
}

/** Running, not a zombie: an orphan is reaped by pid 1 whenever pid 1 gets to it. */
const isRunning = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("agent input", () => {
  it("gives an ordinary agent its context, peers and legal phases, and the orchestrator its routing", () => {
    const { root, inputFor } = scene();
    const coder = inputFor("coder");
    expect(coder).toMatchObject({
      version: 1,
      agent: { slug: "coder", name: "Coder", role: "coder", orchestrator: false },
      conversation: { id: root.id, phase: "chat" },
      trigger: { id: root.id, authorName: "User", kind: 11, content: "please fix the build" },
      messages: [{ role: "user", content: "please fix the build" }],
      allowedPhases: ["chat", "execute", "plan", "brainstorm"],
      session: "sess-1",
    });
    expect(coder.agents.map((a) => a.slug)).toEqual(["orchestrator", "planner"]);
    expect(coder.routing).toBeUndefined();
    const orch = inputFor("orchestrator");
    expect(orch.routing).toEqual({ user_request: "please fix the build", routing_history: [], current_routing: null });
    expect(orch.agents.map((a) => a.slug)).toEqual(["planner", "coder"]);
  });
});

// Every behaviour with each way of starting a program: the native module must have built (npm ci).
const native = loadNativeSpawn();
const SPAWNERS: [string, SpawnProgram][] = [
  ["posix-spawn", "spawn" in native ? native.spawn : () => { throw new Error(`the native spawner is missing: ${native.reason}`); }],
  ["child-process", forkSpawn],
];

describe.each(SPAWNERS)("runCommand, programs started with %s", (name, spawn) => {
  const run = (s: CommandSpec, input: AgentInput, opts: RunCommandOptions = {}, started?: StartedCommand) => runCommand(s, input, { spawn, ...opts }, started);
  const start = (s: CommandSpec) => startCommand(s, { spawn });

  it("runs an echo agent: the trigger content comes back as its reply, with its session", async () => {
    const { inputFor } = scene("hello from the owner");
    const r = await run(spec("echo.mjs"), inputFor("coder"));
    expect(success(r)).toEqual({ reply: "hello from the owner", complete: true, session: "sess-1" });
    expect(r.durationMs).toBeGreaterThan(0);
  });

  it("runs an orchestrator that routes to an agent", async () => {
    const { inputFor } = scene("planner");
    const r = await run(spec("route.mjs"), inputFor("orchestrator"));
    expect(success(r).route).toEqual({ agents: ["planner"], phase: "execute", reason: "named in the request" });
  });

  it("takes the last JSON line of a program that logs first, and keeps its stderr", async () => {
    const r = await run(spec("chatty.mjs"), scene().inputFor("coder"));
    expect(success(r)).toEqual({ reply: "final", type: "result", priority: "high" });
    expect(r.stderr).toBe("a note on stderr\n");
  });

  it("reports garbage on stdout as bad_output, quoting it", async () => {
    const err = failure(await run(spec("garbage.mjs"), scene().inputFor("coder")));
    expect(err.kind).toBe("bad_output");
    expect(err.message).toBe('no line of stdout is JSON (last line: "<<< neither am I >>>")');
  });

  it("names the field when the orchestrator routes to an unknown slug", async () => {
    const err = failure(await run(spec("route.mjs"), scene("ghost").inputFor("orchestrator")));
    expect(err).toEqual({ kind: "bad_output", message: 'route.agents[0]: unknown agent slug "ghost" (known: planner, coder)' });
  });

  it("reports a non-zero exit with its stderr", async () => {
    const r = await run(spec("exit3.mjs"), scene().inputFor("coder"));
    expect(failure(r)).toEqual({ kind: "exit_code", message: "exited with code 3: boom: no API key configured" });
    expect(r.stderr).toBe("loading model...\nboom: no API key configured\n");
  });

  it("stops a program that runs past its timeout", async () => {
    const r = await run(spec("sleep.mjs", { timeoutMs: 300 }), scene().inputFor("coder"));
    expect(failure(r)).toEqual({ kind: "timeout", message: "timed out after 300 ms: stopped with SIGTERM" });
  });

  // These two time out after 1 s so the fixture has surely installed its handler or started its
  // grandchild by then, even on a loaded machine.
  it("kills with SIGKILL a program that ignores SIGTERM", async () => {
    const r = await run(spec("stubborn.mjs", { timeoutMs: 1_000 }), scene().inputFor("coder"), { killGraceMs: 200 });
    expect(failure(r)).toEqual({ kind: "timeout", message: "timed out after 1000 ms: did not stop on SIGTERM, killed with SIGKILL after 200 ms" });
    expect(r.stderr).toContain("ignoring SIGTERM");
  });

  it("stops the program's children too", async () => {
    const r = await run(spec("forks.mjs", { timeoutMs: 1_000 }), scene().inputFor("coder"));
    expect(failure(r).kind).toBe("timeout");
    const pid = Number(/grandchild (\d+)/.exec(r.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => isRunning(pid), { timeout: 2_000 }).toBe(false);
  });

  it("stops a program that prints more than the output limit", async () => {
    const r = await run(spec("flood.mjs"), scene().inputFor("coder"));
    expect(failure(r)).toEqual({ kind: "output_too_large", message: "printed more than 1048576 bytes on stdout: stopped with SIGTERM" });
  });

  it("reports a missing executable as spawn_failed", async () => {
    const missing = join(cwd, "no-such-agent");
    const err = failure(await run({ command: [missing], cwd, timeoutMs: 1_000 }, scene().inputFor("coder")));
    expect(err).toEqual({ kind: "spawn_failed", message: `cannot start ${JSON.stringify(missing)}: no such program (neither a path that exists nor a program on PATH)` });
  });

  it("tells a missing working directory from a missing program", async () => {
    const gone = join(cwd, "gone");
    const err = failure(await run(spec("echo.mjs", { cwd: gone }), scene().inputFor("coder")));
    expect(err.message).toBe(`cannot start ${JSON.stringify(process.execPath)}: the working directory ${gone} does not exist`);
  });

  it("stops a run when the daemon aborts it, and does not start one already aborted", async () => {
    const ac = new AbortController();
    const running = run(spec("sleep.mjs"), scene().inputFor("coder"), { signal: ac.signal });
    setTimeout(() => ac.abort(), 100);
    expect(failure(await running)).toEqual({ kind: "aborted", message: "aborted by the daemon: stopped with SIGTERM" });
    expect(failure(await run(spec("echo.mjs"), scene().inputFor("coder"), { signal: ac.signal })).kind).toBe("aborted");
  });

  it("started ahead of its input: answers once given it, its time counted from then", async () => {
    const started = start(spec("echo.mjs"));
    // Long enough for node to start and wait on its stdin.
    await new Promise((r) => setTimeout(r, 400));
    const r = await run(spec("echo.mjs"), scene("given late").inputFor("coder"), {}, started);
    expect(success(r).reply).toBe("given late");
    expect(r.durationMs).toBeLessThan(400);
  });

  it("started ahead of its input: a missing program is reported when it is run, a program that already ended too", async () => {
    const missing = join(cwd, "no-such-agent");
    const early = start({ command: [missing], cwd, timeoutMs: 1_000 });
    const ended = start(spec("quiet.mjs"));
    await new Promise((r) => setTimeout(r, 400));
    expect(failure(await early.run(scene().inputFor("coder"))).kind).toBe("spawn_failed");
    expect(success(await ended.run(scene().inputFor("coder")))).toEqual({ reply: "ok" });
  });

  it("started ahead of its input and cancelled: it and its children are stopped, and it cannot be run after", async () => {
    const pidFile = join(cwd, `cancelled-${name}.pids`);
    // Starts a child, says both pids, then waits for an input that never comes.
    const waits = `const c = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
      require("node:fs").writeFileSync(process.env.PID_FILE, process.pid + " " + c.pid); process.stdin.resume();`;
    const started = start({ command: [process.execPath, "-e", waits], cwd, timeoutMs: 60_000, env: { PID_FILE: pidFile } });
    await expect.poll(() => existsSync(pidFile), { timeout: 5_000 }).toBe(true);
    const pids = readFileSync(pidFile, "utf8").split(" ").map(Number);
    expect(pids.every((pid) => pid > 0 && isRunning(pid))).toBe(true);
    started.cancel();
    await expect.poll(() => pids.filter(isRunning), { timeout: 5_000 }).toEqual([]);
    expect(() => started.run(scene().inputFor("coder"))).toThrow(/runs once/);
  });

  it("survives a program that exits without reading a 2 MB input", async () => {
    const input = { ...scene().inputFor("coder"), messages: [{ role: "user" as const, content: "y".repeat(2 * 1024 * 1024) }] };
    expect(success(await run(spec("quiet.mjs"), input))).toEqual({ reply: "ok" });
  });

  it("passes a minimal environment: no secret keys from the daemon's, plus the spec's variables", async () => {
    process.env.TENEX_KEY_X = "nsec1secret";
    try {
      const r = await run(spec("env.mjs", { env: { AGENT_EXTRA: "given" } }), scene().inputFor("coder"));
      const seen = JSON.parse(success(r).reply!) as { names: string[]; extra: string };
      expect(seen.names).not.toContain("TENEX_KEY_X");
      expect(seen.names).toContain("PATH");
      expect(seen.extra).toBe("given");
    } finally {
      delete process.env.TENEX_KEY_X;
    }
  });
  it("gives the program every signal at its default: a pipeline's writer ends quietly on SIGPIPE", async () => {
    // Node ignores SIGPIPE, and an ignored signal stays ignored across exec: \`yes\` would then
    // get EPIPE instead, and say so on stderr.
    const script = `yes | head -n 1 > /dev/null; cat > /dev/null; echo '{"reply":"ok"}'`;
    const r = await run({ command: ["/bin/sh", "-c", script], cwd, timeoutMs: 5_000 }, scene().inputFor("coder"));
    expect(success(r)).toEqual({ reply: "ok" });
    expect(r.stderr).toBe("");
  });

  it("starts the program in a session of its own (what lets a timeout stop its whole group)", async () => {
    const script = `cat > /dev/null; echo "{\\"reply\\":\\"$$ $(cut -d' ' -f6 /proc/$$/stat)\\"}"`;
    const r = await run({ command: ["/bin/sh", "-c", script], cwd, timeoutMs: 5_000 }, scene().inputFor("coder"));
    const [pid, session] = success(r).reply!.split(" ").map(Number);
    expect(pid).toBeGreaterThan(1);
    expect(session).toBe(pid);
  });

  it("hands the program none of the daemon's files (a log, an SQLite database); posix-spawn nothing but its three pipes", async () => {
    const logPath = join(cwd, `held-${name}.log`);
    const dbPath = join(cwd, `held-${name}.sqlite`);
    const log = openSync(logPath, "a");
    const db = new Database(dbPath);
    db.exec("CREATE TABLE IF NOT EXISTS t (x)");
    // cat opens nothing of its own: what it holds while it waits on its stdin is what it was given.
    const child = spawn({ file: "cat", args: [], cwd, env: { PATH: "/usr/bin:/bin" } });
    try {
      await new Promise((r) => setTimeout(r, 100));
      const fds = readdirSync(`/proc/${child.pid}/fd`);
      const target = (fd: string) => readlinkSync(`/proc/${child.pid}/fd/${fd}`);
      expect(fds.map(target).filter((t) => t.startsWith(cwd))).toEqual([]);
      // Its stdio: pipes (child_process makes them socket pairs).
      expect(["0", "1", "2"].map(target)).toEqual([expect.stringMatching(/^(pipe|socket):/), expect.stringMatching(/^(pipe|socket):/), expect.stringMatching(/^(pipe|socket):/)]);
      // child_process hands on what the daemon itself inherited (here, the test runner's own
      // descriptors); the native spawner closes everything from 3 up.
      if (name === "posix-spawn") expect(fds.sort()).toEqual(["0", "1", "2"]);
    } finally {
      child.stdin.end();
      closeSync(log);
      db.close();
    }
    const end = await new Promise((resolve) => child.onEnd(resolve));
    expect(end).toEqual({ code: 0, signal: null });
  });

  it("looks a bare program name up on the program's own PATH", async () => {
    const bin = mkdtempSync(join(cwd, "bin-"));
    writeFileSync(join(bin, "my-agent"), `#!/bin/sh\ncat > /dev/null\necho '{"reply":"found"}'\n`, { mode: 0o755 });
    const r = await run({ command: ["my-agent"], cwd, timeoutMs: 5_000, env: { PATH: `${bin}:/usr/bin:/bin` } }, scene().inputFor("coder"));
    expect(success(r)).toEqual({ reply: "found" });
    const err = failure(await run({ command: ["my-agent"], cwd, timeoutMs: 5_000 }, scene().inputFor("coder")));
    expect(err.message).toBe(`cannot start "my-agent": no such program (neither a path that exists nor a program on PATH)`);
  });

  it("reports a program without its execute bit as permission denied", async () => {
    const file = join(cwd, "not-executable");
    writeFileSync(file, "#!/bin/sh\n", { mode: 0o644 });
    const err = failure(await run({ command: [file], cwd, timeoutMs: 1_000 }, scene().inputFor("coder")));
    expect(err).toEqual({ kind: "spawn_failed", message: `cannot start ${JSON.stringify(file)}: permission denied (is it executable?)` });
  });

  it("refuses an argument or a variable holding a NUL (a C string would end there) as spawn_failed", async () => {
    for (const bad of [{ command: ["/bin/echo", "a\0b"] }, { command: ["/bin/echo"], env: { X: "a\0b" } }]) {
      const err = failure(await run({ cwd, timeoutMs: 1_000, ...bad }, scene().inputFor("coder")));
      expect(err.kind).toBe("spawn_failed");
      expect(err.message).toMatch(/without null bytes/);
    }
  });

  it("runs 40 programs at once, each started early or not, and leaves no descriptor of theirs open", async () => {
    // What the tests before left closing (their programs' pipes) settles first.
    const fds = () => readdirSync("/proc/self/fd").length;
    let before = fds();
    for (let still = 0; still < 3; ) {
      await new Promise((r) => setTimeout(r, 100));
      const now = fds();
      still = now === before ? still + 1 : 0;
      before = now;
    }
    const script = `cat > /dev/null; echo '{"reply":"ok"}'`;
    const runs = Array.from({ length: 40 }, (_, i) => {
      const s: CommandSpec = { command: ["/bin/sh", "-c", i % 4 === 3 ? "exit 0" : script], cwd, timeoutMs: 10_000 };
      // Some started ahead of their input, some cancelled before it, some run at once.
      if (i % 4 === 1) return run(s, scene().inputFor("coder"), {}, start(s));
      if (i % 4 === 2) {
        start(s).cancel();
        return Promise.resolve(undefined);
      }
      return run(s, scene().inputFor("coder"));
    });
    const results = await Promise.all(runs);
    expect(results.filter((r) => r?.ok).length).toBe(20);
    expect(results.filter((r) => r && !r.ok).map((r) => !r!.ok && r!.error.kind)).toEqual(Array(10).fill("bad_output"));
    await expect.poll(fds, { timeout: 5_000 }).toBe(before);
  });

  it("names the signal that ended a program", async () => {
    const r = await run({ command: ["/bin/sh", "-c", "kill -KILL $$"], cwd, timeoutMs: 5_000 }, scene().inputFor("coder"));
    expect(failure(r)).toEqual({ kind: "exit_code", message: "was killed by SIGKILL" });
  });
});

describe("parseAgentOutput", () => {
  const worker = { slugs: ["planner", "coder"], orchestrator: false };
  const orchestrator = { ...worker, orchestrator: true };
  const message = (stdout: string, rules = worker) => {
    const r = parseAgentOutput(stdout, rules);
    return r.ok ? "ok" : r.message;
  };

  it("accepts a pretty-printed object and every documented field", () => {
    const out = {
      reply: "done", recipients: ["planner"], phase: { to: "execute", message: "go" },
      session: "s", priority: "low", type: "result",
    };
    expect(parseAgentOutput(JSON.stringify(out, null, 2), worker)).toEqual({ ok: true, output: out });
  });

  it("names each wrong field", () => {
    expect(message("")).toBe('stdout is empty: print one JSON object, e.g. {"reply":"…"}');
    expect(message("[1]")).toBe("output: must be an object (got a list)");
    expect(message('{"reply":3,"colour":"red"}')).toBe('reply: must be a string (got number 3); colour: unknown field (see docs/agent-protocol.md)');
    expect(message('{"complete":false}')).toBe("output: does nothing: give at least one of reply, complete: true, route, phase");
    expect(message('{"phase":{"to":"party","message":"x"}}')).toMatch(/^phase\.to: must be one of chat, brainstorm, .* \(got string "party"\)$/);
    expect(message('{"reply":"x","recipients":["coder","coder"]}')).toBe('recipients[1]: "coder" is listed twice');
    expect(message('{"route":{"agents":["coder"],"phase":"plan","reason":"r"}}')).toBe("route: only the orchestrator routes");
    expect(message('{"complete":true,"recipients":["coder"]}')).toMatch(/^recipients: a completion \(complete: true\) goes to the orchestrator only/);
    expect(message('{"reply":"x","complete":true}', orchestrator)).toMatch(/^complete: the orchestrator does not complete/);
    expect(message('{"route":{"agents":[],"phase":"plan","reason":"r"}}', orchestrator)).toBe("route.agents: must name at least one agent");
    expect(message('{"route":{"agents":["coder"],"phase":"plan","reason":"r"},"phase":{"to":"chat","message":"m"}}', orchestrator))
      .toBe('phase.to: "chat" contradicts route.phase "plan"');
  });
});
