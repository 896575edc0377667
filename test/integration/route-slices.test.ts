// A relay's live events routed a slice at a time (InboundRoute.fromRelayMany), as the daemon takes
// in what it read in one turn (relay-sync.ts): one message to the verifier for the slice, and the
// outcomes, counts and order of one event at a time, for the events that must wait on their own
// too (a copy, an urgent one, a conversation to read, an earlier event still on its way), over a
// real log and index.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Verdict } from "../../adapters/verify/verify-protocol.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import type { IngestOutcome } from "../../daemon/engine/ingest/checks.js";
import type { InboundRoute } from "../../daemon/engine/ingest/route.js";
import type { NostrEvent } from "../../src/types.js";
import { nodeFileOps, type FileOps } from "../../adapters/fs-log/index.js";
import { LogLayout } from "../../adapters/fs-log/layout.js";
import { newKey, sign, testProject } from "../helpers/events.js";
import { openRoute, type RouteFixtureOptions } from "../helpers/route-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A verifier that notes what it was asked: one event at a time (`singles`) or a slice (`slices`). */
function notingVerifier(answer: (evs: readonly NostrEvent[], call: number) => Promise<Verdict[]> = (evs) => Promise.resolve(evs.map(wasmCheck))) {
  const singles: { id: string; urgent: boolean }[] = [];
  const slices: string[][] = [];
  return {
    singles, slices,
    check: async (ev: NostrEvent, urgent = false) => (singles.push({ id: ev.id, urgent }), wasmCheck(ev)),
    checkMany: (evs: readonly NostrEvent[]) => (slices.push(evs.map((e) => e.id)), answer(evs, slices.length)),
  };
}

async function open(o: RouteFixtureOptions, dir = mkdtempSync(join(tmpdir(), "tenexd-slices-"))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  return { dir, ...(await openRoute(dir, p.info, { concurrentConversations: 4, ...o })) };
}

/** Every event's outcome once the slice has them all; a failed one as `failed`. */
function slice(route: InboundRoute, raws: readonly unknown[]): Promise<(IngestOutcome | { status: "failed"; err: unknown })[]> {
  return new Promise((resolve) => {
    const out: (IngestOutcome | { status: "failed"; err: unknown })[] = [];
    let left = raws.length;
    const one = (i: number, o: IngestOutcome | { status: "failed"; err: unknown }) => {
      out[i] = o;
      if (--left === 0) resolve(out);
    };
    route.fromRelayMany(raws.map((raw) => ({ raw, relay: "wss://r.test", quiet: false })), one, (i, err) => one(i, { status: "failed", err }));
  });
}

const eventIds = async (d: { log: { read(id: string): Promise<{ t: string; ev?: NostrEvent }[]> } }, conv: string) =>
  (await d.log.read(conv)).flatMap((r) => (r.t === "event" ? [r.ev!.id] : []));

/**
 * The real file calls, with the reads of the files whose path names `conv` held until `release`
 * (those failed with `err`, if given; later reads are not held); `started` resolves at the first.
 */
function heldReads(conv: string) {
  const paths = new Map<number, string>();
  let released = false;
  let resolveGate!: (err?: Error) => void;
  const gate = new Promise<Error | undefined>((resolve) => (resolveGate = resolve));
  const release = (err?: Error) => {
    released = true;
    resolveGate(err);
  };
  let started!: () => void;
  const startedP = new Promise<void>((resolve) => (started = resolve));
  const ops: FileOps = {
    ...nodeFileOps,
    open: async (path, create) => {
      const fd = await nodeFileOps.open(path, create);
      paths.set(fd, path);
      return fd;
    },
    read: async (fd, buf, offset, length, position) => {
      if (!released && paths.get(fd)?.includes(conv)) {
        started();
        const err = await gate;
        if (err) throw err;
      }
      return nodeFileOps.read(fd, buf, offset, length, position);
    },
  };
  return { ops, started: startedP, release };
}

/** The tasks queued for each conversation (ConversationQueues.run), by id. */
function countTasks(queues: { run: (id: string, ...rest: any[]) => unknown }) {
  const counts = new Map<string, number>();
  const run = queues.run.bind(queues);
  queues.run = (id: string, ...rest: any[]) => (counts.set(id, (counts.get(id) ?? 0) + 1), run(id, ...rest));
  return counts;
}

/** A conversation stored before a restart (its root), and the dir it is in. */
async function storedConversation(): Promise<{ dir: string; root: NostrEvent }> {
  const first = await open({});
  const root = p.root(p.owner, "stored before the restart");
  expect((await slice(first.route, [root]))[0]!.status).toBe("accepted");
  await first.close();
  return { dir: first.dir, root };
}

const p = testProject();
const planner = p.agents.planner!;

describe("InboundRoute.fromRelayMany", () => {
  it("checks a slice's signatures in one message, and gives each event the outcome it gets alone", async () => {
    const v = notingVerifier();
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const replies = [1, 2, 3].map((i) => p.reply(p.owner, root, `reply ${i}`));
    const forged = { ...p.reply(p.owner, root, "forged"), sig: p.reply(p.owner, root, "other").sig };
    const stranger = p.root(newKey(), "not whitelisted");
    const other = testProject().root(testProject().owner, "another project");
    const outcomes = await slice(d.route, [root, ...replies, forged, root, stranger, other, { junk: true }]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted", "rejected", "duplicate", "rejected", "ignored", "rejected"]);
    expect(outcomes[4]).toMatchObject({ reason: "bad_signature" });
    // One message for the slice; nothing checked alone (the copy waited for its original).
    expect(v.slices).toEqual([[root.id, ...replies.map((r) => r.id), forged.id, stranger.id, other.id]]);
    expect(v.singles).toEqual([]);
    expect(await eventIds(d, root.id)).toEqual([root.id, ...replies.map((r) => r.id)]);
    expect(d.counters.snapshot()).toMatchObject({ accepted: 4, duplicates: 1 });
    await d.close();
  });

  it("an urgent event goes alone (checked inline, its own lane), and its conversation keeps the order events came in", async () => {
    const v = notingVerifier();
    const runnable = new Map([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    const d = await open({ verifier: v, runnable });
    const root = p.root(p.owner, "a root");
    const before = p.reply(p.owner, root, "said first");
    const trigger = p.reply(p.owner, root, "planner, go", [planner.pubkey]);
    const after = p.reply(p.owner, root, "said after");
    const outcomes = await slice(d.route, [root, before, trigger, after]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(v.singles).toEqual([{ id: trigger.id, urgent: true }]);
    expect(v.slices).toEqual([[root.id, before.id, after.id]]);
    expect(await eventIds(d, root.id)).toEqual([root.id, before.id, trigger.id, after.id]);
    await d.close();
  });

  it("stages slices in the order they came, whatever order their verdicts come in", async () => {
    // The first slice's verdicts come 100 ms after the second's.
    const v = notingVerifier(async (evs, call) => {
      if (call === 1) await new Promise((r) => setTimeout(r, 100));
      return evs.map(wasmCheck);
    });
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const [r1, r2, r3] = [1, 2, 3].map((i) => p.reply(p.owner, root, `reply ${i}`));
    const [first, second] = await Promise.all([slice(d.route, [root, r1!]), slice(d.route, [r2!, r3!])]);
    expect([...first, ...second].map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(v.slices).toHaveLength(2);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id]);
    await d.close();
  });

  it("a conversation to read first: its event goes alone, and the slice's later events of it wait for it", async () => {
    const first = await open({});
    const root = p.root(p.owner, "stored earlier");
    const elsewhere = p.root(p.owner, "another conversation");
    expect((await slice(first.route, [root, elsewhere])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await first.close();
    // Restarted with room for one conversation: the second root's fills it.
    const d = await open({ maxCachedBytes: 1 }, first.dir);
    expect((await slice(d.route, [p.reply(p.owner, elsewhere, "warm")]))[0]!.status).toBe("accepted");
    const [r1, r2, r3] = [1, 2, 3].map((i) => p.reply(p.owner, root, `after the restart ${i}`));
    const outcomes = await slice(d.route, [r1, r2, r3]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id]);
    await d.close();
  });

  it("a conversation to read: the events next in its line, over several slices, wait for one read and are staged in one task", async () => {
    const { dir, root } = await storedConversation();
    const held = heldReads(root.id);
    const d = await open({ fileOps: held.ops }, dir);
    const tasks = countTasks(d.queues);
    const [r1, r2, r3, r4] = [1, 2, 3, 4].map((i) => p.reply(p.owner, root, `after the restart ${i}`));
    const first = slice(d.route, [r1, r2]);
    await held.started;
    // Two more slices while the read is held; each is staged in turn (its verdicts and the one before it).
    const second = slice(d.route, [r3]);
    const third = slice(d.route, [r4]);
    await new Promise((r) => setTimeout(r, 50));
    expect(tasks.get(root.id) ?? 0).toBe(0);
    held.release();
    const outcomes = [...(await first), ...(await second), ...(await third)];
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
    expect(tasks.get(root.id)).toBe(1);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id, r4!.id]);
    await d.close();
  });

  it("a conversation whose log a crash left empty: its events, waiting for the read together, are stored in order on one aggregate", async () => {
    const first = await open({});
    const other = p.root(p.owner, "so that the log's directory exists");
    expect((await slice(first.route, [other]))[0]!.status).toBe("accepted");
    await first.close();
    // The flush created the file (O_EXCL) and the process died before it wrote a byte.
    const root = p.root(p.owner, "its first line never written");
    writeFileSync(new LogLayout(first.dir).logPath(root.id, false), "", { mode: 0o600 });
    const d = await open({}, first.dir);
    const [r1, r2] = [1, 2].map((i) => p.reply(p.owner, root, `reply ${i}`));
    const outcomes = await slice(d.route, [root, r1, r2]);
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id]);
    await d.close();
  });

  it("copies of stored events of conversations not in memory: one index lookup for the slice, nothing verified", async () => {
    const first = await open({});
    const roots = [1, 2, 3].map((i) => p.root(p.owner, `stored ${i}`));
    expect((await slice(first.route, roots)).map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    await first.close();
    const v = notingVerifier();
    const d = await open({ verifier: v }, first.dir);
    const asked: string[][] = [];
    let alone = 0;
    const processedAmong = d.index.processedAmong.bind(d.index);
    d.index.processedAmong = (ids: readonly string[]) => (asked.push([...ids]), processedAmong(ids));
    const isProcessed = d.index.isProcessed.bind(d.index);
    d.index.isProcessed = (id: string) => (alone++, isProcessed(id));
    const fresh = p.reply(p.owner, roots[0]!, "new");
    const outcomes = await slice(d.route, [...roots, fresh]);
    expect(outcomes.map((o) => o.status)).toEqual(["duplicate", "duplicate", "duplicate", "accepted"]);
    expect(asked).toEqual([[...roots.map((r) => r.id), fresh.id]]);
    expect(alone).toBe(0);
    expect(v.slices).toEqual([[fresh.id]]);
    await d.close();
  });

  it("an event that goes alone between them keeps its place: those after it do not join the read", async () => {
    const { dir, root } = await storedConversation();
    const held = heldReads(root.id);
    const runnable = new Map([[planner.pubkey, { ...planner, backend: { type: "command", command: ["true"], timeoutSeconds: 5 } } as unknown as CommandAgent]]);
    const d = await open({ fileOps: held.ops, runnable }, dir);
    const before = p.reply(p.owner, root, "said first");
    const trigger = p.reply(p.owner, root, "planner, go", [planner.pubkey]);
    const after = p.reply(p.owner, root, "said after");
    const first = slice(d.route, [before]);
    await held.started;
    // The trigger is urgent: checked inline, it goes alone, and holds its place in line.
    const second = slice(d.route, [trigger, after]);
    await new Promise((r) => setTimeout(r, 50));
    held.release();
    const outcomes = [...(await first), ...(await second)];
    expect(outcomes.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await eventIds(d, root.id)).toEqual([root.id, before.id, trigger.id, after.id]);
    await d.close();
  });

  it("a read that fails fails the events waiting for it, nothing stored; sent again, they are taken in order", async () => {
    const { dir, root } = await storedConversation();
    const held = heldReads(root.id);
    const d = await open({ fileOps: held.ops }, dir);
    const [r1, r2, r3] = [1, 2, 3].map((i) => p.reply(p.owner, root, `after the restart ${i}`));
    const first = slice(d.route, [r1, r2]);
    await held.started;
    const second = slice(d.route, [r3]);
    await new Promise((r) => setTimeout(r, 50));
    held.release(Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" }));
    const failed = [...(await first), ...(await second)];
    expect(failed.map((o) => o.status)).toEqual(["failed", "failed", "failed"]);
    expect(await eventIds(d, root.id)).toEqual([root.id]);
    // The relay sends them again (the next back-fill): read again, taken in.
    const again = await slice(d.route, [r1, r2, r3]);
    expect(again.map((o) => o.status)).toEqual(["accepted", "accepted", "accepted"]);
    expect(await eventIds(d, root.id)).toEqual([root.id, r1!.id, r2!.id, r3!.id]);
    await d.close();
  });

  it("a slice the verifier cannot answer is refused (verify_failed), nothing stored; the next is taken", async () => {
    // It throws at once the first time, fails later the second.
    const v = notingVerifier((evs, call) => {
      if (call === 1) throw new Error("the verifier is closed");
      if (call === 2) return Promise.reject(new Error("every worker died"));
      return Promise.resolve(evs.map(wasmCheck));
    });
    const d = await open({ verifier: v });
    const root = p.root(p.owner, "a root");
    const reply = p.reply(p.owner, root, "a reply");
    for (const why of ["the verifier is closed", "every worker died"]) {
      const refused = await slice(d.route, [root, reply]);
      expect(refused).toMatchObject([{ status: "rejected", reason: "verify_failed", detail: why }, { status: "rejected", reason: "verify_failed", detail: why }]);
    }
    expect(await eventIds(d, root.id)).toEqual([]);
    expect((await slice(d.route, [root, reply])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });

  it("an append that fails fails that conversation's events only; a copy that came meanwhile is stored on its own", async () => {
    const d = await open({});
    const [a, b] = [p.root(p.owner, "conversation a"), p.root(p.owner, "conversation b")];
    const real = d.log.appendWithLines!.bind(d.log);
    let failures = 1;
    d.log.appendWithLines = (id, ...rest) =>
      id === a!.id && failures-- > 0 ? Promise.reject(new Error("ENOSPC: no space left on device")) : real(id, ...rest);
    const outcomes = await slice(d.route, [a, b, a]);
    expect(outcomes.map((o) => o.status)).toEqual(["failed", "accepted", "accepted"]);
    expect(await eventIds(d, a!.id)).toEqual([a!.id]);
    expect(await eventIds(d, b!.id)).toEqual([b!.id]);
    await d.close();
  });

  it("a back-fill's reply met before its root is handed back (deferred); with its root in the slice, placed through it", async () => {
    const d = await open({});
    const root = p.root(p.owner, "the root");
    const untagged = sign(p.owner, 1111, "reply", p.reply(p.owner, root, "reply").tags.filter((t) => t[0] !== "a"));
    const bulk = (raws: unknown[]) => new Promise<IngestOutcome[]>((resolve) => {
      const out: IngestOutcome[] = [];
      d.route.fromRelayMany(raws.map((raw) => ({ raw, relay: "wss://r.test", quiet: true, bulk: true })), (i, o) => {
        out[i] = o;
        if (out.filter(Boolean).length === raws.length) resolve(out);
      }, () => undefined);
    });
    expect(await bulk([untagged])).toMatchObject([{ status: "deferred", eventId: untagged.id }]);
    expect((await bulk([root, untagged])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });

  it("a reply without the project tag in the same slice as its root is placed through it", async () => {
    const d = await open({});
    const root = p.root(p.owner, "the root");
    const untagged = sign(p.owner, 1111, "reply", p.reply(p.owner, root, "reply").tags.filter((t) => t[0] !== "a"));
    expect((await slice(d.route, [root, untagged])).map((o) => o.status)).toEqual(["accepted", "accepted"]);
    await d.close();
  });
});
