// The whole flow with the daemon as a child process and a real relay on loopback: a TENEX web
// client (NDK) starts a conversation; the daemon runs the demo agents; their signed events
// appear on the relay with the TENEX tags; the orchestrator walks the phases; turns complete.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import NDK, { NDKEvent, NDKPrivateKeySigner } from "@nostr-dev-kit/ndk";
import { WebSocket } from "ws";
import { verifyEvent } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRaw, startTestRelay, type TestRelay } from "../helpers/relay.js";
import { BIN, eventually, makeProject, readLog, startDaemon, type RunningDaemon, type TestProject } from "../helpers/daemon.js";
import type { NostrEvent } from "../../src/types.js";

(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;

let tmp: string;
let relay: TestRelay;
let project: TestProject;
let daemon: RunningDaemon;
let ndk: NDK;

const tag = (ev: NostrEvent, name: string) => ev.tags.find((t) => t[0] === name);
const repliesTo = (root: string) => queryRaw(relay.url, { kinds: [1111], "#E": [root], limit: 500 });

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-flow-"));
  relay = await startTestRelay();
  project = makeProject(join(tmp, "p"), (c) => {
    c.relays = [relay.url];
  });
  daemon = await startDaemon(project.dir);
  ndk = new NDK({ explicitRelayUrls: [relay.url], signer: new NDKPrivateKeySigner(project.owner.sk), enableOutboxModel: false, autoConnectUserRelays: false });
  await ndk.connect(5_000);
});

afterAll(async () => {
  await daemon?.stop();
  for (const r of ndk?.pool.relays.values() ?? []) r.disconnect();
  await relay?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("agents on Nostr, end to end", () => {
  it("a kind 11 addressed to an agent (as the TENEX web client sends it) gets that agent's signed NIP-22 reply", async () => {
    const root = new NDKEvent(ndk, {
      kind: 11, content: "Planner, please outline a health endpoint",
      tags: [["a", project.coordinate], ["title", "Health endpoint"], ["p", project.agents.planner!]],
    } as never);
    await root.publish();

    // Its answer to this root: the planner may be set to work again in the same conversation
    // (the orchestrator routing back to it), and that reply can come first.
    const reply = await eventually(async () => (await repliesTo(root.id)).find((e) => e.pubkey === project.agents.planner && tag(e, "triggering-event-id")?.[1] === root.id), 20_000, "planner reply");
    expect(verifyEvent(reply as never)).toBe(true);
    expect(tag(reply, "E")?.slice(0, 2)).toEqual(["E", root.id]);
    expect(tag(reply, "K")).toEqual(["K", "11"]);
    expect(tag(reply, "P")).toEqual(["P", project.owner.pubkey]);
    expect(tag(reply, "e")?.[1]).toBe(root.id);
    expect(tag(reply, "a")).toEqual(["a", project.coordinate]);
    expect(tag(reply, "phase")).toEqual(["phase", "chat"]);
    expect(tag(reply, "triggering-event-id")).toEqual(["triggering-event-id", root.id]);
    expect(Number(tag(reply, "net-time")?.[1])).toBeGreaterThanOrEqual(0);
    // The demo planner completes: a completion goes to the orchestrator.
    expect(tag(reply, "tool")).toEqual(["tool", "complete"]);
    expect(tag(reply, "p")).toEqual(["p", project.agents.orchestrator]);

    // The status times the run's way, step by step. One run so far came from the route (the
    // planner's); the orchestrator's, started by the planner's own event, has no route times and
    // is not counted. The reply reaches the relay just before the outbox times its OK.
    type Latency = Record<string, { runs: number; steps: { step: string; samples: number; p50: number; p99: number; max: number }[] }>;
    const latency = await eventually(() => {
      const cli = spawnSync(process.execPath, [BIN, "status", "--json", "--project", project.dir], { encoding: "utf8" });
      expect(cli.status, cli.stderr).toBe(0);
      const l = (JSON.parse(cli.stdout) as { status: { latency: Latency } }).status.latency;
      return l.publish!.runs > 0 ? l : undefined;
    }, 5_000, "the reply's OK timed");
    expect(latency.trigger!.runs).toBe(1);
    const steps = Object.fromEntries(latency.trigger!.steps.map((x) => [x.step, x]));
    expect(Object.keys(steps)).toEqual(["checked", "staged", "durable", "context", "input", "total", "spawn"]);
    for (const x of Object.values(steps)) expect([x.samples, x.p50 >= 0, x.p50 === x.max]).toEqual([1, true, true]);
    // Contiguous steps: with one run they add up to the total (each rounded to 0.1 ms).
    const sum = ["checked", "staged", "durable", "context", "input"].reduce((a, k) => a + steps[k]!.p50, 0);
    expect(Math.abs(sum - steps.total!.p50)).toBeLessThanOrEqual(0.3);
    expect(steps.total!.p50).toBeGreaterThan(0);
    // The process's spawn is timed apart. That it starts while the trigger is made durable is
    // test/integration/early-agent-start.test.ts's to show, with the trigger's sync held: here,
    // comparing two steps of a few ms each (input shorter than spawn) failed 1 run in 6-8 on this
    // busy machine, on the code before the slice route as on the code after it.
    expect(steps.spawn!.p50).toBeGreaterThan(0);
    // Its answer was made durable and accepted by the relay (the orchestrator's too, perhaps, by now).
    expect(latency.answer!.runs).toBeGreaterThanOrEqual(1);
    expect(latency.publish!.runs).toBeGreaterThanOrEqual(1);
    expect(latency.publish!.steps[0]!.samples).toBeGreaterThanOrEqual(1);
    const text = spawnSync(process.execPath, [BIN, "status", "--project", project.dir], { encoding: "utf8" });
    expect(text.stdout).toMatch(/trigger → agent +total [\d.]+ \/ [\d.]+ ms \(checked [\d.]+ \/ [\d.]+, staged/);
    expect(text.stdout).toMatch(/answer → relay +durable [\d.]+ \/ [\d.]+ ms, p50 \/ p99 of the last \d+ runs?; relay [\d.]+ \/ [\d.]+ ms/);

    // The user answers with NDK's reply() (no `a` tag): the daemon still files it in the conversation.
    const ndkRoot = new NDKEvent(ndk, root.rawEvent() as never);
    const answer = ndkRoot.reply();
    answer.content = "Thanks, planner";
    await answer.publish();
    const log = await eventually(() => {
      const recs = readLog(project.tenexDir, root.id);
      return recs.some((r) => r.t === "event" && r.ev.id === answer.id) ? recs : undefined;
    }, 10_000, "the NDK reply in the log");
    expect(log.filter((r) => r.t === "event" && r.ev.id === answer.id)).toHaveLength(1);
  });

  it("the whole flow: user → orchestrator → planner/coder/reviewer through the phases → turns complete", async () => {
    const root = new NDKEvent(ndk, {
      kind: 11, content: "Add a health endpoint", tags: [["a", project.coordinate], ["title", "Health"]],
    } as never);
    await root.publish();

    // Each agent's event goes out through its own outbox send: the final answer may reach the
    // relay before the reviewer's completion does, so wait for all of them.
    const done = await eventually(async () => {
      const events = await repliesTo(root.id);
      const final = events.some((e) => e.pubkey === project.agents.orchestrator && e.content.startsWith("Done:"));
      const agents = ["planner", "coder", "reviewer"].every((s) => events.some((e) => e.pubkey === project.agents[s]));
      return final && agents ? events : undefined;
    }, 40_000, "the orchestrator's final answer and every agent's completion");

    const by = (slug: string) => done.filter((e) => e.pubkey === project.agents[slug]);
    for (const slug of ["planner", "coder", "reviewer"]) {
      expect(by(slug), slug).toHaveLength(1);
      expect(tag(by(slug)[0]!, "tool")).toEqual(["tool", "complete"]);
    }
    expect(tag(by("planner")[0]!, "phase")).toEqual(["phase", "plan"]);
    expect(tag(by("coder")[0]!, "phase")).toEqual(["phase", "execute"]);
    expect(tag(by("reviewer")[0]!, "phase")).toEqual(["phase", "verification"]);

    const log = await eventually(() => {
      const recs = readLog(project.tenexDir, root.id);
      const runs = recs.filter((r) => r.t === "agent_run").length;
      return recs.filter((r) => r.t === "phase").length === 4 && runs >= 7 ? recs : undefined;
    }, 10_000, "four phase records and seven agent runs");
    expect(log.filter((r) => r.t === "phase").map((r) => `${r.from}→${r.to}`)).toEqual([
      "chat→plan", "plan→execute", "execute→verification", "verification→chat",
    ]);
    const ends = log.filter((r) => r.t === "turn_end");
    expect(ends.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(log.filter((r) => r.t === "completion")).toHaveLength(3);
    // orchestrator ×4 (the request, then each completed turn), planner, coder, reviewer.
    expect(log.filter((r) => r.t === "agent_run" && r.outcome === "ok")).toHaveLength(7);
    // Every event of the conversation is in the log once.
    const ids = log.filter((r) => r.t === "event").map((r) => r.ev.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Seen once in CI (8 replies on the relay, 7 in the log) and not reproduced since: if it
    // comes back, say who wrote the missing event and what it was.
    const missing = done.filter((e) => !ids.includes(e.id)).map((e) => ({
      id: e.id, author: Object.entries(project.agents).find(([, pk]) => pk === e.pubkey)?.[0] ?? e.pubkey,
      created_at: e.created_at, tags: e.tags, content: e.content.slice(0, 200),
    }));
    expect(missing, `log: ${JSON.stringify(log.map((r) => (r.t === "event" ? { t: r.t, id: r.ev.id, at: r.at } : { t: r.t, at: r.at })))}`).toEqual([]);
  });

  it("`tenexd ask` starts a conversation signed by the owner, and the orchestrator takes it from there", async () => {
    const r = spawnSync(process.execPath, [BIN, "ask", "--project", project.dir, "--json", "-m", "Document the API"], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const { event } = JSON.parse(r.stdout);
    expect(event.pubkey).toBe(project.owner.pubkey);
    expect(event.kind).toBe(11);
    expect(verifyEvent(event)).toBe(true);
    expect(tag(event, "a")).toEqual(["a", project.coordinate]);
    const [root] = await queryRaw(relay.url, { ids: [event.id] });
    expect(root?.id).toBe(event.id);
    // The relay answers newest first and the flow moves on: look for the first routing, to the planner.
    const routed = await eventually(async () => (await repliesTo(event.id))
      .find((e) => e.pubkey === project.agents.orchestrator && tag(e, "phase")?.[1] === "plan"), 20_000, "the orchestrator's routing reply");
    expect(tag(routed, "p")).toEqual(["p", project.agents.planner]);
  });
});
