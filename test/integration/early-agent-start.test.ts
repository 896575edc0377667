// A trigger's agent program is started while the trigger is made durable, and handed its input
// only once it is (daemon/engine/agents/agent-runner.ts, `prepare`). Over the real route, log,
// index and runner, with one real program: the trigger's fdatasync is held, then released, or
// it fails, the way a broken disk fails it. An agent must never act on a trigger a crash could
// take back, nor be left waiting for an input that will never come.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { KeySigner } from "../../adapters/nostr/key-signer.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { AgentRunner } from "../../daemon/engine/agents/agent-runner.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import type { LoadedAgent } from "../../daemon/config/index.js";
import { ConversationQueues } from "../../daemon/engine/ingest/conversation-queues.js";
import { IngestCounters } from "../../daemon/engine/ingest/counters.js";
import { InboundRoute } from "../../daemon/engine/ingest/route.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import { createLogger } from "../../daemon/logger.js";
import { ContextCache } from "../../src/agent-view.js";
import { DEFAULT_LIMITS } from "../../src/edge/validate-inbound.js";
import type { NostrEvent } from "../../src/types.js";
import { eventually } from "../helpers/daemon.js";
import { testProject } from "../helpers/events.js";
import { syncHookOps } from "../helpers/sync-hook-ops.js";
import { tempDir } from "../helpers/temp-dir.js";

const FIXTURE = resolve(import.meta.dirname, "../fixtures/agents/early-start.mjs");
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const realNow = () => performance.timeOrigin + performance.now();

/** What the program noted (early-start.mjs): started, then `input <bytes>`; with its pid and when. */
function notes(dir: string): { what: string; pid: number; at: number }[] {
  let text = "";
  try {
    text = readFileSync(join(dir, "early-start.log"), "utf8");
  } catch {
    return [];
  }
  return text.trim().split("\n").filter(Boolean).map((l) => {
    const parts = l.split(" ");
    return { what: parts.slice(0, -2).join(" "), pid: Number(parts.at(-2)), at: Number(parts.at(-1)) };
  });
}

const running = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/** The route and a runner with one command agent (the planner), the trigger's syncs handed to `beforeSync`. */
async function setup(beforeSync: (path: string | undefined) => Promise<void> | void) {
  const dir = tempDir("tenexd-early-");
  const p = testProject();
  const planner = p.agents.planner!;
  const agents = p.info.agents.map((a) => ({
    ...a, secretKey: a.slug === "planner" ? planner.sk : new Uint8Array(32), keySource: { kind: "file", path: "-" },
    backend: a.slug === "planner" ? { type: "command", command: [process.execPath, FIXTURE], timeoutSeconds: 20 } : { type: "mailbox" },
  })) as unknown as LoadedAgent[];
  const agent = agents.find((a) => a.slug === "planner") as CommandAgent;
  const log = new FileConversationLog(join(dir, "data"), { fileOps: syncHookOps(beforeSync) });
  const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const queues = new ConversationQueues(4);
  const store = new ConversationStore({ log, index, isBusy: (id) => queues.isBusy(id) });
  await store.init();
  const route = new InboundRoute({
    project: p.info, limits: DEFAULT_LIMITS, store, queues, counters: new IngestCounters(), clock: { now: () => Date.now() },
    verifier: { check: async (ev: NostrEvent) => wasmCheck(ev) },
    runnable: new Map([[agent.pubkey, agent]]),
    signers: new Map([[agent.pubkey, new KeySigner(planner.sk)], [p.orchestrator.pubkey, new KeySigner(p.orchestrator.sk)]]),
  });
  const abort = new AbortController();
  const runner = new AgentRunner({
    project: p.info, agents, orchestrator: p.info.agents[0]!, projectDir: dir, store, queues, route,
    clock: { now: () => Date.now() }, logger: createLogger({ stream: { write: () => true } }), cache: new ContextCache(),
    turnTimeoutMs: 60_000, nameOf: () => "User", signal: abort.signal,
  });
  route.connect({ runs: runner, outbox: { enqueue: async () => undefined }, threads: { request: () => undefined } });
  closers.push(async () => {
    abort.abort();
    await runner.idle();
    await queues.idle();
    await store.indexed();
    await log.close();
    index.close();
  });
  return { dir, route, runner, p, trigger: p.root(p.owner, "start early, answer late", [planner.pubkey]) };
}

describe("an agent's program started while its trigger is made durable", () => {
  it("is running before the trigger is durable, and has its input only once it is", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let trigger: NostrEvent | undefined;
    let syncsHeld = 0;
    const s = await setup(async (path) => {
      if (trigger && path?.includes(trigger.id)) {
        syncsHeld++;
        await held;
      }
    });
    // Should the test fail while the sync is held, the teardown must not wait on it.
    closers.unshift(async () => release());
    trigger = s.trigger;
    const ingested = s.route.ingest(trigger);
    const started = await eventually(() => notes(s.dir).find((n) => n.what === "started"), 10_000, "the program started");
    // Its trigger's sync is still held: the program waits for its input, however long that takes.
    await new Promise((r) => setTimeout(r, 300));
    expect(syncsHeld).toBeGreaterThan(0);
    expect(notes(s.dir).map((n) => n.what)).toEqual(["started"]);
    expect(running(started.pid)).toBe(true);
    const releasedAt = realNow();
    release();
    expect((await ingested).status).toBe("accepted");
    await s.runner.idle();
    const input = notes(s.dir).find((n) => n.what.startsWith("input"));
    expect(input, "the program had its input").toBeDefined();
    expect(Number(input!.what.split(" ")[1])).toBeGreaterThan(100);
    // The same process, started early, was given the input, and only after the trigger was durable.
    expect(input!.pid).toBe(started.pid);
    expect(input!.at).toBeGreaterThan(releasedAt);
    expect(s.runner.stats).toMatchObject({ runs: 1, failures: 0 });
    expect(s.runner.latency.trigger.summary().runs).toBe(1);
  });

  it("the same for an agent's own event that sets another to work (the orchestrator routing to the planner)", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding: string | undefined;
    const s = await setup(async (path) => {
      if (holding && path?.includes(holding)) await held;
    });
    closers.unshift(async () => release());
    // A conversation the owner opened, addressed to nobody the daemon runs.
    const root = s.p.root(s.p.owner, "a conversation for the team");
    expect((await s.route.ingest(root)).status).toBe("accepted");
    const routing = s.p.reply(s.p.orchestrator, root, "planner, your turn", [s.p.agents.planner!.pubkey]);
    holding = root.id;
    const published = s.route.inConversation(root.id, () => ({
      records: [], result: undefined,
      publish: { author: s.p.orchestrator.pubkey, event: { kind: routing.kind, created_at: routing.created_at, tags: routing.tags, content: routing.content } },
    }));
    const started = await eventually(() => notes(s.dir).find((n) => n.what === "started"), 10_000, "the program started");
    await new Promise((r) => setTimeout(r, 300));
    expect(notes(s.dir).map((n) => n.what)).toEqual(["started"]);
    const releasedAt = realNow();
    release();
    expect((await published).published?.pubkey).toBe(s.p.orchestrator.pubkey);
    await s.runner.idle();
    const input = notes(s.dir).find((n) => n.what.startsWith("input"));
    expect([input?.pid, (input?.at ?? 0) > releasedAt]).toEqual([started.pid, true]);
    expect(s.runner.stats).toMatchObject({ runs: 1, failures: 0 });
  });

  it("is stopped with an empty input when the trigger's write fails, and no run is counted", async () => {
    let trigger: NostrEvent | undefined;
    let fail!: () => void;
    const failing = new Promise<void>((r) => (fail = r));
    const s = await setup(async (path) => {
      if (!trigger || !path?.includes(trigger.id)) return;
      // The sync fails once the program is up and waiting for its input (so it can be watched).
      await failing;
      throw Object.assign(new Error("EIO: simulated disk failure"), { code: "EIO" });
    });
    trigger = s.trigger;
    const ingested = s.route.ingest(trigger).then((o) => o.status, (e: unknown) => `failed: ${String(e)}`);
    const started = await eventually(() => notes(s.dir).find((n) => n.what === "started"), 10_000, "the program started");
    fail();
    expect(await ingested).toMatch(/EIO/);
    // Its stdin closed empty and its group was sent SIGTERM: it ends, having been given nothing.
    await eventually(() => (running(started.pid) ? undefined : true), 10_000, "the program stopped");
    expect(notes(s.dir).filter((n) => n.what.startsWith("input") && n.what !== "input 0")).toEqual([]);
    await s.runner.idle();
    expect(s.runner.stats.runs).toBe(0);
  });
});
