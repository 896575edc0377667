// The ingest pipeline over a real log and index: duplicates are dropped by id before paying for
// a signature check (also after a restart), and a forged copy never displaces the real event.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { NostrEvent } from "../../src/types.js";
import { sign, testProject } from "../helpers/events.js";
import { inSlices, openRoute } from "../helpers/route-fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.each([["one at a time", false], ["in slices", true]] as const)("relays' events %s", (_how, sliced) => {
  async function open(dir: string, project: ReturnType<typeof testProject>, concurrentConversations = 4, maxCachedBytes?: number) {
    const { route, ...rest } = await openRoute(dir, project.info, { concurrentConversations, ...(maxCachedBytes ? { maxCachedBytes } : {}) });
    return { pipeline: sliced ? inSlices(route) : route, ...rest };
  }

  function setup() {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-pipeline-"));
    dirs.push(dir);
    return { dir, p: testProject() };
  }

  describe("ingest pipeline", () => {
    it("drops a repeated event by id without verifying it again, also after a restart", async () => {
      const { dir, p } = setup();
      const root = p.root(p.owner, "hello", [p.agents.planner!.pubkey]);
      let d = await open(dir, p);
      expect((await d.pipeline.ingest(root)).status).toBe("accepted");
      expect((await d.pipeline.ingest(root)).status).toBe("duplicate");
      expect(d.checked).toEqual([root.id]);
      await d.close();

      d = await open(dir, p);
      expect((await d.pipeline.ingest(root)).status).toBe("duplicate");
      expect(d.checked).toEqual([]);
      expect((await d.log.read(root.id)).filter((r) => r.t === "event")).toHaveLength(1);
      await d.close();
    });

    it("counts a relay sending back the daemon's own event as an echo, not a duplicate, also after a restart", async () => {
      const { dir, p } = setup();
      const planner = p.agents.planner!;
      const root = p.root(p.owner, "hello", [planner.pubkey]);
      const own = p.reply(planner, root, "published here");
      let d = await open(dir, p);
      expect((await d.pipeline.ingest(root)).status).toBe("accepted");
      expect((await d.pipeline.ingest(own, { origin: "local" })).status).toBe("accepted");
      // The relay sends both back; a second relay sends the user's root again.
      for (const ev of [own, root, root]) expect((await d.pipeline.ingest(ev)).status).toBe("duplicate");
      expect(d.counters.snapshot()).toMatchObject({ accepted: 2, echoes: 1, duplicates: 2 });
      await d.close();

      // After a restart: from the index (the conversation not in memory), then from memory.
      d = await open(dir, p);
      expect((await d.pipeline.ingest(own)).status).toBe("duplicate");
      expect((await d.pipeline.ingest(p.reply(p.owner, root, "thanks"))).status).toBe("accepted");
      for (const ev of [own, root]) expect((await d.pipeline.ingest(ev)).status).toBe("duplicate");
      expect(d.counters.snapshot()).toMatchObject({ accepted: 1, echoes: 2, duplicates: 1 });
      await d.close();
    });

    it("after a restart, a repeat is found in its conversation once that is in memory, in the index otherwise", async () => {
      const { dir, p } = setup();
      const planner = p.agents.planner!;
      const root = p.root(p.owner, "hello", [planner.pubkey]);
      const reply = p.reply(planner, root, "on it");
      const other = p.root(p.owner, "another");
      let d = await open(dir, p);
      for (const ev of [root, reply, other]) expect((await d.pipeline.ingest(ev)).status).toBe("accepted");
      await d.close();

      d = await open(dir, p);
      let lookups = 0;
      // Ids looked up in the index, one at a time or a slice's at once.
      const isProcessed = d.index.isProcessed.bind(d.index);
      const processedAmong = d.index.processedAmong.bind(d.index);
      d.index.isProcessed = (id: string) => (lookups++, isProcessed(id));
      d.index.processedAmong = (ids: readonly string[]) => ((lookups += ids.length), processedAmong(ids));
      // Neither conversation is in memory: the index answers.
      expect((await d.pipeline.ingest(reply)).status).toBe("duplicate");
      expect(lookups).toBe(1);
      // A new reply loads its conversation; repeats of its events are then answered from memory.
      expect((await d.pipeline.ingest(p.reply(p.owner, root, "thanks"))).status).toBe("accepted");
      lookups = 0;
      for (const ev of [root, reply]) expect((await d.pipeline.ingest(ev)).status).toBe("duplicate");
      expect(lookups).toBe(0);
      expect((await d.pipeline.ingest(other)).status).toBe("duplicate");
      expect(lookups).toBe(1);
      expect(d.checked).toHaveLength(1);
      await d.close();
    });

    it("loads stored conversations before their queues, once each: the global bound on conversations does not serialize the loads", async () => {
      const { dir, p } = setup();
      const planner = p.agents.planner!;
      const roots = Array.from({ length: 6 }, (_, i) => p.root(p.owner, `topic ${i}`, [planner.pubkey]));
      let d = await open(dir, p);
      for (const root of roots) expect((await d.pipeline.ingest(root)).status).toBe("accepted");
      await d.close();

      // One conversation at a time, none of them in memory and room for none but the one used
      // last: each reply needs its log read, and the loads push each other out of the cache.
      d = await open(dir, p, 1, 1);
      const read = d.log.readWhole.bind(d.log);
      let reading = 0;
      let mostAtOnce = 0;
      const reads = new Map<string, number>();
      d.log.readWhole = async (...args: Parameters<typeof read>) => {
        reads.set(args[0], (reads.get(args[0]) ?? 0) + 1);
        mostAtOnce = Math.max(mostAtOnce, ++reading);
        try {
          return await read(...args);
        } finally {
          reading--;
        }
      };
      // As a back-fill's (nobody waits for them): each loads before its queue, while the others load.
      const outcomes = await Promise.all(roots.map((root) => d.pipeline.ingest(p.reply(planner, root, "on it"), { bulk: true })));
      expect(outcomes.map((o) => o.status)).toEqual(roots.map(() => "accepted"));
      expect(mostAtOnce).toBeGreaterThan(1);
      // Loaded before its queue and kept until its task ran: read once, not again in the task.
      expect([...reads.values()]).toEqual(roots.map(() => 1));
      for (const root of roots) expect((await d.log.read(root.id)).filter((r) => r.t === "event")).toHaveLength(2);
      await d.close();
    });

    it("a forged copy (same id, bad signature) is refused before the real one, and changes nothing after it", async () => {
      const { dir, p } = setup();
      const root = p.root(p.owner, "genuine");
      const forged = { ...root, sig: (root.sig[0] === "a" ? "b" : "a") + root.sig.slice(1) };
      const d = await open(dir, p);
      expect(await d.pipeline.ingest(forged)).toMatchObject({ status: "rejected", reason: "bad_signature" });
      expect((await d.pipeline.ingest(root)).status).toBe("accepted");
      expect((await d.pipeline.ingest(forged)).status).toBe("duplicate");
      const events = (await d.log.read(root.id)).filter((r) => r.t === "event");
      expect(events).toHaveLength(1);
      expect(events[0]!.t === "event" && events[0]!.ev.sig).toBe(root.sig);
      expect(d.counters.snapshot().rejected).toEqual({ bad_signature: 1 });
      await d.close();
    });

    it("refuses a non-whitelisted author and ignores another project's events, storing nothing", async () => {
      const { dir, p } = setup();
      const other = testProject();
      const d = await open(dir, p);
      const stranger = other.owner;
      const fromStranger = p.root(stranger, "let me in");
      expect(await d.pipeline.ingest(fromStranger)).toMatchObject({ status: "rejected", reason: "not_authorised" });
      expect(await d.pipeline.ingest(other.root(other.owner, "elsewhere"))).toMatchObject({ status: "ignored", reason: "other_project" });
      expect(await d.log.list()).toEqual([]);
      await d.close();
    });

    it("a reply tagged [\"status\",\"closed\"] closes the conversation and [\"status\",\"open\"] reopens it", async () => {
      const { dir, p } = setup();
      const root = p.root(p.owner, "to be closed");
      const d = await open(dir, p);
      await d.pipeline.ingest(root);
      await d.pipeline.ingest(p.reply(p.owner, root, "done here", [], [["status", "closed"]]));
      await d.pipeline.ingest(p.reply(p.owner, root, "one more thing", [], [["status", "open"]]));
      const statuses = (await d.log.read(root.id)).flatMap((r) => (r.t === "status" ? [r.status] : []));
      expect(statuses).toEqual(["closed", "open"]);
      await d.close();
    });

    it("a reply without the project tag, arriving while its root is still being checked, waits for the root", async () => {
      const { dir, p } = setup();
      const root = p.root(p.owner, "the root");
      // As NDK's reply() builds it: no `a` tag.
      const untagged = (replyTo: NostrEvent, content: string) =>
        sign(p.owner, 1111, content, p.reply(p.owner, replyTo, content).tags.filter((t) => t[0] !== "a"));
      const d = await open(dir, p);
      // Both handed over at once, root first, as a relay delivers them.
      const [r1, r2] = await Promise.all([d.pipeline.ingest(root), d.pipeline.ingest(untagged(root, "reply"))]);
      expect(r1.status).toBe("accepted");
      expect(r2.status).toBe("accepted");
      // With its root nowhere, such a reply is ignored, and counted.
      expect(await d.pipeline.ingest(untagged(p.root(p.owner, "never sent"), "orphan"))).toMatchObject({ status: "ignored", reason: "no_project_tag" });
      await d.close();
    });

    it("a copy that came while the original's append failed is stored on its own, once; a copy of a stored event stays a duplicate", async () => {
      const { dir, p } = setup();
      const root = p.root(p.owner, "hello");
      const d = await open(dir, p);
      // The disk refuses the first append (a full disk, say), then recovers.
      let failures = 1;
      for (const method of ["append", "appendWithLines"] as const) {
        const real = d.log[method].bind(d.log) as (...args: unknown[]) => Promise<unknown>;
        (d.log as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
          failures-- > 0 ? Promise.reject(new Error("ENOSPC: no space left on device")) : real(...args);
      }
      // The live subscription and a back-fill deliver the same event at once.
      const [first, copy] = await Promise.allSettled([d.pipeline.ingest(root), d.pipeline.ingest(root)]);
      expect(first.status).toBe("rejected");
      expect(copy).toMatchObject({ status: "fulfilled", value: { status: "accepted", eventId: root.id } });
      expect((await d.log.read(root.id)).filter((r) => r.t === "event")).toHaveLength(1);
      expect((await d.pipeline.ingest(root)).status).toBe("duplicate");
      await d.close();
    });
  });
});
