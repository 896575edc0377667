// The back-fill under attack and bad luck (issue 13, docs/faults.md): a stranger who floods the
// project's `#a` in one second while the daemon is down, the project's own people writing more
// than a page in one second, and a back-fill connection cut in the middle of its answer. Paged
// by created_at alone, each of these made the back-fill stop at that second, call itself
// complete and move the high-water mark past what it never fetched: those events never came.
// Daemon, relay and proxy are real processes and sockets on 127.0.0.1.

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { inLogs, publishStream, timesOver, useCatchupFixture } from "../helpers/catchup-fixture.js";
import { startCuttingProxy } from "../helpers/cutting-proxy.js";
import type { TestProject } from "../helpers/daemon.js";
import {
  envNumber, eventIdCounts, indexDisagreements, ProjectEvents, publishAll, recordCase, snapshotLogs, statusEventually, wasmSigner,
  type SignFn,
} from "../helpers/fault-tools.js";
import type { NostrEvent } from "../../src/types.js";

const JUNK = envNumber("TENEXD_FLOOD_JUNK", 3_000);
const OWNER_MESSAGES = 20;
// Most of each case is the relay verifying thousands of signatures as they are published: on a
// loaded 2-core machine the flood alone took 100 s. The limits bound a hang; they measure nothing.
const CASE_MS = 300_000;
const { relay, started, stopped, syncedProject } = useCatchupFixture("tenexd-backfill-");

/** The high-water mark the index holds for `relay` (the daemon stopped). */
function storedMark(tenexDir: string, relayUrl: string): number | undefined {
  const db = new Database(join(tenexDir, "index.sqlite"), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT max_created_at AS at FROM relay_marks WHERE relay = ?").get(relayUrl) as { at: number } | undefined;
    return row?.at;
  } finally {
    db.close();
  }
}

/** Once the back-fill after a start has ended (the status says none runs and one has ended). */
const backfilled = (tenexDir: string, timeoutMs = 60_000) =>
  statusEventually(tenexDir, (s) => (!s.catchingUp && s.lastCatchup !== null ? s : undefined), timeoutMs, "the back-fill to end");

/** A reply in `root`'s conversation, NIP-22, with or without the project tag (NDK's reply() drops it). */
function reply(sign: SignFn, project: TestProject, root: NostrEvent, text: string, at: number, tagged: boolean): NostrEvent {
  const tags = [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id, "", root.pubkey], ["k", "11"]];
  return sign(1111, text, tagged ? [...tags, ["a", project.coordinate]] : tags, at);
}

describe("the back-fill", () => {
  it(`a stranger flooding the project's #a with ${JUNK} events in the owner's second: every owner message arrives, no junk is fetched`, async () => {
    const r = await relay();
    const { project, sign } = await syncedProject("stranger", [r.url]);
    const stranger = await wasmSigner(generateSecretKey());
    const second = Math.floor(Date.now() / 1000);
    const a = ["a", project.coordinate];
    const junk = Array.from({ length: JUNK }, (_, i) => stranger(11, `junk ${i}`, [a, ["title", `Junk ${i}`]], second));
    const owner = Array.from({ length: OWNER_MESSAGES }, (_, i) => sign(11, `owner ${i}`, [a, ["title", `Owner ${i}`]], second));
    // The owner's messages land in the middle of the flood, all in one second, while the daemon is down.
    const half = junk.length / 2;
    const accepted = await publishAll(r.url, [...junk.slice(0, half), ...owner, ...junk.slice(half)], 100);
    expect(accepted).toHaveLength(JUNK + OWNER_MESSAGES);

    const d = await started(project.dir);
    const ids = owner.map((e) => e.id);
    const counts = await inLogs(project.tenexDir, ids).catch((err: unknown) => {
      throw new Error(`${String(err)}; daemon stderr: ${d.stderr().slice(-1500)}`);
    });
    const status = await backfilled(project.tenexDir);
    await stopped(d);
    const final = eventIdCounts(snapshotLogs(project.tenexDir));
    recordCase("backfill-stranger-flood", {
      case: "back-fill: a stranger's flood in the owner's second", asked: JUNK + OWNER_MESSAGES, ran: accepted.length, unit: "events",
      inputs: accepted.length, lost: ids.filter((id) => !final.has(id)).length, doubled: ids.filter((id) => (final.get(id) ?? 0) > 1).length,
      bad_accepted: junk.filter((e) => final.has(e.id)).length,
      junk: JUNK, owner_messages: OWNER_MESSAGES, owner_stored: ids.filter((id) => final.has(id)).length,
      fetched: status.lastCatchup.fetched, not_authorised: status.ingest.rejected.not_authorised ?? 0,
    });
    expect(timesOver(counts, ids)).toEqual([]);
    expect(status.lastCatchup.complete, JSON.stringify(status.lastCatchup)).toBe(true);
    // Strangers cost nothing: the relay was asked for the project's people only. The overlap
    // window holds the first sync's event and the owner's messages; each page asks its boundary
    // second again, so a few come twice.
    expect(status.lastCatchup.fetched).toBeLessThan(OWNER_MESSAGES * 2 + 10);
    expect(status.ingest.rejected.not_authorised ?? 0).toBe(0);
    expect(junk.filter((e) => final.has(e.id))).toEqual([]);
    expect(indexDisagreements(project.tenexDir)).toEqual([]);
  }, CASE_MS);

  it("the project's own people writing 2,000 events in one second (4 authors, kinds 11 and 1111, 200 conversations): all arrive, a restart changes nothing", async () => {
    const r = await relay();
    const userSk = generateSecretKey();
    const { project, sign } = await syncedProject("own-people", [r.url], {
      config: (c) => {
        c.whitelist = [getPublicKey(userSk)];
        // 2,000 unread messages must not make the escalation loop write conversations of its own.
        c.limits = { ...c.limits, unreadThreshold: 1_000_000 };
      },
    });
    const user = await wasmSigner(userSk);
    const planner = await wasmSigner(project.agentKeys.planner!);
    const coder = await wasmSigner(project.agentKeys.coder!);
    const second = Math.floor(Date.now() / 1000);
    const a = ["a", project.coordinate];
    const roots = [
      ...Array.from({ length: 150 }, (_, i) => sign(11, `owner topic ${i}`, [a, ["title", `Owner ${i}`]], second)),
      ...Array.from({ length: 50 }, (_, i) => user(11, `user topic ${i}`, [a, ["title", `User ${i}`]], second)),
    ];
    // The owner alone writes more than a page (1,050): split by author is not enough there, by kind is.
    // One reply in ten is NDK-style, without the project tag: the `#P` filter finds those.
    const replies = (by: SignFn, who: string, count: number) =>
      Array.from({ length: count }, (_, i) => reply(by, project, roots[i % 10]!, `${who} ${i}`, second, i % 10 !== 0));
    const events = [...roots, ...replies(sign, "owner", 900), ...replies(user, "user", 450), ...replies(planner, "planner", 300), ...replies(coder, "coder", 150)];
    expect(events).toHaveLength(2_000);
    expect(await publishAll(r.url, events, 100)).toHaveLength(2_000);
    const ids = events.map((e) => e.id);

    const d = await started(project.dir);
    const counts = await inLogs(project.tenexDir, ids, 90_000).catch((err: unknown) => {
      throw new Error(`${String(err)}; daemon stderr: ${d.stderr().slice(-1500)}`);
    });
    const first = await backfilled(project.tenexDir);
    await stopped(d);
    expect(timesOver(counts, ids)).toEqual([]);
    expect(first.lastCatchup.complete, JSON.stringify(first.lastCatchup)).toBe(true);
    const before = snapshotLogs(project.tenexDir);

    const again = await started(project.dir);
    const second_ = await backfilled(project.tenexDir);
    await stopped(again);
    const final = eventIdCounts(snapshotLogs(project.tenexDir));
    recordCase("backfill-own-people", {
      case: "back-fill: own people, 2,000 events in one second", asked: 2_000, ran: ids.length, unit: "events", inputs: ids.length,
      lost: ids.filter((id) => !final.has(id)).length, doubled: ids.filter((id) => (final.get(id) ?? 0) > 1).length,
      fetched: first.lastCatchup.fetched, accepted_after_restart: second_.ingest.accepted,
    });
    expect(second_.lastCatchup.complete, JSON.stringify(second_.lastCatchup)).toBe(true);
    expect(second_.ingest.accepted).toBe(0);
    expect(snapshotLogs(project.tenexDir)).toEqual(before);
    expect(indexDisagreements(project.tenexDir)).toEqual([]);
  }, CASE_MS);

  it("a back-fill connection cut mid-answer keeps the mark, says so, and completes on its own: no restart, no reconnect", async () => {
    const r = await relay();
    const proxy = await startCuttingProxy(r.url);
    try {
      const { project, sign } = await syncedProject("cut", [proxy.url]);
      const mark = storedMark(project.tenexDir, proxy.url);
      expect(mark, "the first sync recorded a mark").toBeDefined();
      const published = await publishStream([r.url], new ProjectEvents(project, sign), 1_500);
      expect(published).toHaveLength(1_500);
      // The next two connections that stream stored events (the back-fill's, or a thread fetch
      // after it) are cut after 200 events each.
      proxy.cutBackfills(2, 200);

      const d = await started(project.dir);
      const incomplete = (s: any) => s.backfill.relays.some((b: any) => b.url === proxy.url && !b.complete && b.retryAt !== null);
      const cut = await statusEventually(project.tenexDir, (s) => (incomplete(s) ? s : undefined), 30_000,
        "the status to report the incomplete back-fill and its next try");
      const state = cut.backfill.relays.find((b: any) => b.url === proxy.url);
      expect(state.reason, JSON.stringify(state)).toBeTruthy();
      expect(state.retryAt, "when the next try is").toBeGreaterThan(Date.now() - 1_000);
      expect(cut.lag.find((l: any) => l.url === proxy.url).highWater, "the mark stays while the back-fill is incomplete").toBe(mark);
      expect(cut.problems.some((p: any) => p.kind === "backfill_incomplete" && p.detail.includes(proxy.url)), JSON.stringify(cut.problems)).toBe(true);

      const counts = await inLogs(project.tenexDir, published, 90_000).catch((err: unknown) => {
        throw new Error(`${String(err)}; daemon stderr: ${d.stderr().slice(-1500)}`);
      });
      const caughtUp = (s: any) => s.backfill.relays.every((b: any) => b.complete) && s.lag[0].highWater > mark!;
      const done = await statusEventually(project.tenexDir, (s) => (caughtUp(s) ? s : undefined), 30_000,
        "the back-fill complete and the mark moved");
      await stopped(d);
      const final = eventIdCounts(snapshotLogs(project.tenexDir));
      recordCase("backfill-cut", {
        case: "back-fill: connections cut mid-answer", asked: 1_500, ran: published.length, unit: "events", inputs: published.length,
        lost: published.filter((id) => !final.has(id)).length, doubled: published.filter((id) => (final.get(id) ?? 0) > 1).length,
        cuts: proxy.cuts(), reconnects: done.relays[0].reconnects,
      });
      expect(proxy.cuts()).toBe(2);
      expect(done.relays.find((h: any) => h.url === proxy.url).reconnects, "no reconnect: the retry came from the schedule").toBe(0);
      expect(timesOver(counts, published)).toEqual([]);
      expect(indexDisagreements(project.tenexDir)).toEqual([]);
    } finally {
      await proxy.close();
    }
  }, CASE_MS);
});
