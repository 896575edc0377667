// Bad input (issues 4 and 6; docs/contract.md) against the daemon as a child process:
// - through a real relay: well-signed events it stores and serves that the daemon must refuse
//   (sizes over the project's limits, malformed and path-shaped tags, NUL), and strangers'
//   events, which the daemon must not even be sent (its filters name the project's people);
// - through a relay that checks nothing (a `ws` server in this test): forged ids and signatures,
//   wrong field types, path-shaped ids, garbage frames, invalid UTF-8 that breaks the connection,
//   and a far-future created_at that must not move the catch-up's high-water mark;
// Expected: nothing hostile accepted, no crash (the process lives and still takes good events),
// every refusal counted under its reason (status API), no file made outside .tenex/conversations/.
// The suite sends ~500; scripts/soak.mjs sends 10,000 (TENEXD_BAD_INPUTS).

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSecretKey } from "nostr-tools/pure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, makeProject, ROOT, type TestProject } from "../helpers/daemon.js";
import {
  apiStatus, brokenLines, envNumber, eventIdCounts, indexDisagreements, listFiles, loggedProblems, publishAll, recordCase, sleep,
  snapshotLogs, spawnDaemon, statusEventually, useMailboxAgents, wasmSigner, type SignFn, type SpawnedDaemon,
} from "../helpers/fault-tools.js";
import {
  forgedEvents, garbageFrames, NOT_DELIVERED, pathShapedButValid, signedHostiles, startFakeRelay,
  type FakeConnection, type FakeRelay, type Hostile, type HostileContext,
} from "../helpers/hostile-events.js";
import { limitPairs, type LimitPair } from "../helpers/limit-events.js";
import { sendClaimedFrame, type ClaimedFrame } from "../helpers/oversized-frames.js";
import { spawnRelay, type SpawnedRelay } from "../helpers/relay.js";
import type { NostrEvent } from "../../src/types.js";

const BAD_INPUTS = envNumber("TENEXD_BAD_INPUTS", 500);
// A soak sends thousands through a relay that stores ~100 a second.
const TIMEOUT_MS = 60_000 + BAD_INPUTS * 25;
const LIMITS = { maxContentBytes: 2_048, maxTags: 40, maxTagValueBytes: 256, maxEventBytes: 8_192 };
// Frames above any size limit: whole frames of a few MB, and one whose header claims ~100 MB
// (under the ws library's default frame limit of 100 MiB). The daemon's RSS must stay under
// MAX_RSS_BYTES through all of them.
const BIG_FRAME_BYTES = 6 * 1024 * 1024;
const CLAIMED_FRAME_BYTES = 100_000_000;
const MAX_RSS_BYTES = 200 * 1024 * 1024;

let tmp: string;
let relay: SpawnedRelay;
let fake: FakeRelay;
let project: TestProject;
let owner: SignFn;
let ctx: HostileContext;
let daemon: SpawnedDaemon;
let filesBefore: string[];
// Over the whole file, for the soak's figures.
let tried = 0;
let crashes = 0;
const hostileIds = new Set<string>();
/** Good events sent along the way: each must end up in the logs. */
const goodIds = new Set<string>();

beforeAll(async () => {
  expect(existsSync(join(ROOT, "dist/daemon/cli/main.js")), "the daemon runs from dist/: run `npm run build` first").toBe(true);
  tmp = mkdtempSync(join(tmpdir(), "tenexd-bad-"));
  relay = await spawnRelay();
  fake = await startFakeRelay();
  project = makeProject(join(tmp, "p"), (c) => {
    c.relays = [relay.url, fake.url];
    Object.assign(c.limits, LIMITS);
  });
  useMailboxAgents(project.tenexDir);
  owner = await wasmSigner(project.owner.sk);
  const root = owner(11, "a known conversation", [["a", project.coordinate], ["title", "Known"]]);
  ctx = { coordinate: project.coordinate, owner, stranger: await wasmSigner(generateSecretKey()), root, limits: LIMITS };
  filesBefore = listFiles(tmp);
  daemon = await started();
  expect(await publishAll(relay.url, [root])).toEqual([root.id]);
  goodIds.add(root.id);
  await inLogs([root.id]);
});

afterAll(async () => {
  await daemon?.kill();
  await fake?.close();
  await relay?.close();
  const inLogsNow = project ? eventIdCounts(snapshotLogs(project.tenexDir)) : new Map<string, number>();
  recordCase("bad-input", {
    case: "hostile input (real relay, relay that checks nothing)", asked: BAD_INPUTS, ran: tried, unit: "inputs",
    inputs: tried, good_events: goodIds.size, lost: [...goodIds].filter((id) => !inLogsNow.has(id)).length,
    bad_accepted: acceptedHostile().length, crashes,
    bad_inputs_tried: tried, bad_inputs_accepted: acceptedHostile().length, daemon_crashes: crashes,
  });
  rmSync(tmp, { recursive: true, force: true });
});

async function started(): Promise<SpawnedDaemon> {
  const d = spawnDaemon(project.dir);
  await d.ready;
  await eventually(() => (fake.liveSubs().length > 0 ? true : undefined), 15_000, "the daemon's live subscription on the fake relay");
  return d;
}

/** A daemon that died is a crash: counted, and started again so the run goes on. */
async function aliveOrRestarted(): Promise<void> {
  if (daemon.child.exitCode === null && daemon.child.signalCode === null) return;
  crashes++;
  console.error(`daemon crashed: ${daemon.stderr().slice(-3000)}`);
  daemon = await started();
}

function inLogs(ids: readonly string[], timeoutMs = 20_000): Promise<Map<string, number>> {
  return eventually(() => {
    const counts = eventIdCounts(snapshotLogs(project.tenexDir));
    return ids.every((id) => counts.has(id)) ? counts : undefined;
  }, timeoutMs, `${ids.length} events in the logs`);
}

const acceptedHostile = () => {
  if (!project) return [];
  const counts = eventIdCounts(snapshotLogs(project.tenexDir));
  return [...hostileIds].filter((id) => counts.has(id));
};

const tally = (hs: readonly Hostile[]) => {
  const out: Record<string, number> = {};
  for (const h of hs) if (h.expect !== NOT_DELIVERED) out[h.expect] = (out[h.expect] ?? 0) + 1;
  return out;
};

/** The refusals counted so far, by reason; throws when the status cannot be read. */
const rejected = async (): Promise<Record<string, number>> => (await apiStatus(project.tenexDir)).ingest.rejected;

/** The refusal counts once they have not moved for a second. */
async function settledRejections(): Promise<Record<string, number>> {
  let last = -1;
  let same = 0;
  return statusEventually(project.tenexDir, (st) => {
    same = st.ingest.rejectedTotal === last ? same + 1 : 0;
    last = st.ingest.rejectedTotal;
    return same >= 10 ? st.ingest.rejected : undefined;
  }, 60_000, "the refusal counts to settle");
}

/** Waits until the daemon has counted at least `expected` more refusals per reason than `before`. */
async function countedByReason(before: Record<string, number>, expected: Record<string, number>): Promise<Record<string, number>> {
  expect(Object.keys(expected).length, "no refusal expected: nothing to check").toBeGreaterThan(0);
  const short = (now: Record<string, number>) =>
    Object.entries(expected).filter(([reason, n]) => (now[reason] ?? 0) - (before[reason] ?? 0) < n);
  try {
    return await statusEventually(project.tenexDir, (st) => (short(st.ingest.rejected).length === 0 ? st.ingest.rejected : undefined), 20_000, "every refusal counted");
  } catch (e) {
    // Unreadable: that error. Readable but short: which reasons, by how much.
    const now = await rejected();
    expect(Object.fromEntries(short(now).map(([r, n]) => [r, `${(now[r] ?? 0) - (before[r] ?? 0)} of ${n}`])), `refusals counted by reason (${String(e)})`).toEqual({});
    return now;
  }
}

/** A good event still goes through (via `send`) and lands in the logs once. */
async function stillServes(send: (ev: NostrEvent) => Promise<unknown>, label: string): Promise<string> {
  const good = owner(11, `still here after ${label}`, [["a", project.coordinate], ["title", label]]);
  await send(good);
  goodIds.add(good.id);
  const counts = await inLogs([good.id]);
  expect(counts.get(good.id)).toBe(1);
  return good.id;
}

describe("bad input", () => {
  it("events exactly at each size limit are taken, one byte over refused with its reason, on the live and the back-fill connections", async () => {
    // First in the file: the reconnect below runs a back-fill of every relay, which would refuse
    // again whatever hostile events the real relay held, and push ours out of recentRejections.
    const before = await settledRejections();
    const routes = { realLive: limitPairs(2_000, ctx), fakeLive: limitPairs(2_001, ctx), fakeBackfill: limitPairs(2_002, ctx) };
    const pairs = Object.values(routes).flat();
    for (const p of pairs) hostileIds.add(p.over.id);
    const both = (ps: LimitPair[]) => ps.flatMap((p) => [p.at, p.over]);
    expect(await publishAll(relay.url, both(routes.realLive)), "the real relay stores both sizes").toHaveLength(8);
    expect(fake.push(both(routes.fakeLive).map((ev) => (sub: string) => JSON.stringify(["EVENT", sub, ev])))).toBe(8);
    // A reconnect runs a back-fill, and the fake relay serves these to it.
    fake.serve(both(routes.fakeBackfill));
    fake.dropAll();
    const atLimit = pairs.map((p) => p.at.id);
    atLimit.forEach((id) => goodIds.add(id));
    const counts = await inLogs(atLimit).catch(() => eventIdCounts(snapshotLogs(project.tenexDir)));
    recordCase("limit-sizes", {
      case: "events at and one byte over each limit (live, back-fill)", asked: 24, ran: pairs.length * 2, unit: "events",
      inputs: pairs.length * 2, lost: atLimit.filter((id) => !counts.has(id)).length, doubled: atLimit.filter((id) => (counts.get(id) ?? 0) > 1).length,
      bad_accepted: pairs.filter((p) => counts.has(p.over.id)).length,
    });
    await inLogs(atLimit);
    const expected: Record<string, number> = {};
    for (const p of pairs) expected[p.reason] = (expected[p.reason] ?? 0) + 1;
    await countedByReason(before, expected);
    fake.serve([]);
    // Each over-limit event refused under its own reason, whichever way it came.
    const recent = (await apiStatus(project.tenexDir)).ingest.recentRejections as { eventId?: string; reason: string }[];
    expect(pairs.map((p) => `${p.limit}: ${recent.find((r) => r.eventId === p.over.id)?.reason ?? "not refused"}`))
      .toEqual(pairs.map((p) => `${p.limit}: ${p.reason}`));
    expect(acceptedHostile()).toEqual([]);
  }, 60_000);

  it("well-signed events a real relay serves, refused by the daemon for their form or author", async () => {
    const before = await rejected();
    const sent: Hostile[] = [];
    const benign: string[] = [];
    for (let i = 0; sent.length < BAD_INPUTS / 2; i++) {
      const round = signedHostiles(i, ctx);
      const accepted = new Set(await publishAll(relay.url, round.map((h) => h.event as NostrEvent)));
      expect(accepted.size, "the relay stored none of a round: nothing reaches the daemon").toBeGreaterThan(0);
      // Only what the relay stored can reach the daemon (strangers' it is not even sent: its filters
      // name the project's people), and only that counts as tried.
      for (const h of round) {
        hostileIds.add((h.event as NostrEvent).id);
        if (accepted.has((h.event as NostrEvent).id)) sent.push(h);
      }
      tried += accepted.size;
      if (i % 10 === 0) benign.push(...(await publishAll(relay.url, pathShapedButValid(i, ctx))));
      await aliveOrRestarted();
    }
    expect(benign.length).toBeGreaterThan(0);
    benign.forEach((id) => goodIds.add(id));
    await stillServes((ev) => publishAll(relay.url, [ev]), "signed hostiles");
    // Strange but valid (path-shaped titles from the owner): accepted, and harmless.
    await inLogs(benign);
    const now = await countedByReason(before, tally(sent));
    await aliveOrRestarted();
    // Strangers' events, stored by the relay, were never sent to the daemon.
    expect(sent.some((h) => h.label.startsWith("stranger"))).toBe(true);
    expect(now.not_authorised ?? 0, "strangers' events were asked for").toBe(before.not_authorised ?? 0);
    expect(acceptedHostile()).toEqual([]);
  }, TIMEOUT_MS);

  it("forged events and garbage frames from a relay that checks nothing", async () => {
    const before = await rejected();
    const sent: Hostile[] = [];
    for (let i = 0; sent.length < BAD_INPUTS / 2; i++) {
      const round = [...forgedEvents(i, ctx), ...signedHostiles(1_000 + i, ctx)];
      const frames = [
        ...round.map((h) => (sub: string) => JSON.stringify(["EVENT", sub, h.event])),
        ...garbageFrames(i, fake.liveSubs()[0] ?? "x", ctx.root),
      ];
      const pushed = fake.push(frames);
      expect(pushed, "no live subscription on the fake relay to send to").toBeGreaterThan(0);
      for (const h of round) {
        const id = (h.event as { id?: unknown }).id;
        if (typeof id === "string") hostileIds.add(id);
      }
      sent.push(...round);
      tried += pushed;
      await sleep(20);
      await aliveOrRestarted();
    }
    // Text that is not UTF-8 ends the connection (RFC 6455): the daemon must come back.
    const made = fake.connectionsMade();
    tried += fake.push([(sub) => Buffer.from(`["EVENT","${sub}",{"content":"\xff\xfe"}]`, "latin1") as unknown as string]);
    await eventually(() => (fake.connectionsMade() > made && fake.liveSubs().length > 0 ? true : undefined), 20_000, "the daemon back on the fake relay");
    await aliveOrRestarted();
    await stillServes(async (ev) => fake.push([(sub) => JSON.stringify(["EVENT", sub, ev])]), "forged events");
    const counted = await countedByReason(before, tally(sent));
    // Strangers' events and foreign pubkeys pushed live are dropped by the live subscription's filter match (not the filter's authors).
    expect(counted.not_authorised ?? 0).toBe(before.not_authorised ?? 0);
    const health = (await apiStatus(project.tenexDir)).relays.find((h: { url: string }) => h.url === fake.url);
    expect(health?.reconnects, "the fake relay's reconnects in the status").toBeGreaterThanOrEqual(1);
    expect(acceptedHostile()).toEqual([]);
    expect(crashes).toBe(0);
  }, TIMEOUT_MS);

  it("a far-future created_at from any relay does not move the back-fill past what it missed", async () => {
    const now = Math.floor(Date.now() / 1000);
    const farFuture = owner(11, "from 2100", [["a", project.coordinate]], now + 10 * 365 * 86_400);
    const skewed = owner(11, "a clock ten minutes fast", [["a", project.coordinate], ["title", "Skewed"]], now + 600);
    hostileIds.add(farFuture.id);
    fake.serve([farFuture, { ...farFuture, id: "f".repeat(64) }, skewed]);
    tried += 2;
    // A reconnect runs a back-fill: the fake relay serves the future events to it.
    fake.dropAll();
    goodIds.add(skewed.id);
    await inLogs([skewed.id]);
    await sleep(1_500); // marks are written every second
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    fake.serve([]);

    const missed = owner(11, "published while the daemon was down", [["a", project.coordinate], ["title", "Missed"]]);
    expect(await publishAll(relay.url, [missed])).toEqual([missed.id]);
    goodIds.add(missed.id);
    daemon = await started();
    await inLogs([missed.id]);
    expect(acceptedHostile()).toEqual([]);
  }, 90_000);

  it("frames above the transport limits, on the live and the back-fill connections: nothing taken, memory bounded, the daemon comes back", async () => {
    const pid = daemon.child.pid!;
    const rss = rssSampler(pid);
    const big = (k: number) => {
      // Signed in JS: nostr-wasm's heap is too small for 6 MB.
      const ev = project.signAsOwner(11, `${k} `.padEnd(BIG_FRAME_BYTES, "x"), [["a", project.coordinate], ["title", `big ${k}`]]);
      hostileIds.add(ev.id);
      bigIds.push(ev.id);
      return ev;
    };
    const bigIds: string[] = [];
    /** The good events sent after each stage: each must be in the logs. */
    const comeBackIds: string[] = [];
    const claimed: Record<string, ClaimedFrame> = {};
    const peaks: Record<string, number> = {};
    const stage = async (name: string, attack: () => Promise<void>, comeBack: (label: string) => Promise<void>) => {
      rss.reset();
      await attack();
      await comeBack(name);
      await aliveOrRestarted();
      peaks[name] = rss.peak();
    };
    // Sent again on every live subscription until it is in: a connection the daemon is dropping
    // may still look open here (copies are duplicates).
    const liveAgain = async (label: string) => {
      const good = owner(11, `still here after ${label}`, [["a", project.coordinate], ["title", label]]);
      goodIds.add(good.id);
      comeBackIds.push(good.id);
      await eventually(() => {
        if (eventIdCounts(snapshotLogs(project.tenexDir)).has(good.id)) return true;
        fake.push([(sub) => JSON.stringify(["EVENT", sub, good])]);
        return undefined;
      }, 30_000, `a good event on the fake relay's live subscription after ${label}`);
    };
    const backfillAgain = async (label: string) => {
      comeBackIds.push(await stillServes(async (ev) => {
        fake.serve([ev]);
        fake.dropAll();
      }, label));
      fake.serve([]);
    };
    /**
     * Makes the daemon reconnect (a back-fill), arms its next back-fill fetch with `answer`, and
     * waits for the answer to be sent. Dropped first: armed before, a REQ still coming from an
     * earlier back-fill on a connection about to be dropped could take the attack, and the drop
     * would then end that query as a lost connection, not a frame over the limit. A back-fill's
     * filters carry `since` (the relay's mark less the overlap); a thread fetch's do not.
     * Settled before the drop: a back-fill still running (a reconnect's after the last stage, or
     * one more that requests made meanwhile collapsed into) would be cut by it as a lost
     * connection, and being said once per episode, that report would hide the attack's.
     */
    const onBackfill = async <T>(answer: (conn: FakeConnection) => Promise<T>): Promise<T> => {
      await statusEventually(project.tenexDir, (st) => {
        const mine = st.backfill.relays.find((b: { url: string }) => b.url === fake.url);
        return !st.catchingUp && mine?.complete ? true : undefined;
      }, 30_000, "no back-fill running and the fake relay's last one complete before the attack");
      fake.dropAll();
      const backfill = (filters: { since?: number }[]) => filters.every((f) => f.since !== undefined);
      return new Promise<T>((done) => fake.onNextFetch(async (conn) => done(await answer(conn)), backfill));
    };

    await stage("live: 3 frames of 6 MB", async () => {
      expect(fake.push([0, 1, 2].map((k) => (sub: string) => JSON.stringify(["EVENT", sub, big(k)])))).toBeGreaterThan(0);
    }, liveAgain);
    await stage("live: a frame claiming 100 MB", async () => {
      const [conn] = fake.liveConnections();
      expect(conn, "a live subscription to attack").toBeDefined();
      claimed.live = await sendClaimedFrame(conn!.socket, conn!.subId, CLAIMED_FRAME_BYTES);
    }, liveAgain);
    await stage("back-fill: 3 frames of 6 MB", () => onBackfill(async (conn) => {
      for (const k of [3, 4, 5]) conn.send(JSON.stringify(["EVENT", conn.subId, big(k)]));
      conn.send(JSON.stringify(["EOSE", conn.subId]));
    }), backfillAgain);
    await stage("back-fill: a frame claiming 100 MB", async () => {
      claimed.backfill = await onBackfill((conn) => sendClaimedFrame(conn.socket, conn.subId, CLAIMED_FRAME_BYTES));
    }, backfillAgain);
    const hwm = procStatusBytes(pid, "VmHWM");
    rss.stop();
    // A back-fill cut by a frame over the limit could not see everything: reported (checked with
    // the daemon's log in the last test), then completed by a later back-fill, not left behind.
    await statusEventually(project.tenexDir, (st) => (st.backfill.relays.find((b: { url: string }) => b.url === fake.url)?.complete ? true : undefined),
      30_000, "the fake relay's back-fill complete again after the oversized frames");

    const inLogsNow = eventIdCounts(snapshotLogs(project.tenexDir));
    recordCase("oversized-frames", {
      case: "frames over the transport limits (live, back-fill)", asked: 4, ran: Object.keys(peaks).length, unit: "attacks",
      inputs: 8, lost: comeBackIds.filter((id) => !inLogsNow.has(id)).length, doubled: comeBackIds.filter((id) => (inLogsNow.get(id) ?? 0) > 1).length,
      bad_accepted: bigIds.filter((id) => inLogsNow.has(id)).length, crashes,
      rss_max_mb: Math.round(Math.max(...Object.values(peaks)) / 2 ** 20), rss_limit_mb: MAX_RSS_BYTES / 2 ** 20,
      rss_peak_mb: Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, Math.round(v / 2 ** 20)])),
      vm_hwm_mb: Math.round(hwm / 2 ** 20),
      claimed_frames: Object.fromEntries(Object.entries(claimed).map(([k, c]) => [k, { dropped: c.dropped, written_mb: Math.round(c.written / 2 ** 20), ms: c.ms }])),
    });
    expect(acceptedHostile()).toEqual([]);
    expect(crashes).toBe(0);
    // A frame over the transport limit is refused on its header, not read, buffered and parsed:
    // the daemon drops the connection before the claimed 100 MB have been sent.
    expect(Object.fromEntries(Object.entries(claimed).map(([k, c]) => [k, c.dropped ? "dropped before the end" : `read whole (${c.written} bytes)`])))
      .toEqual({ live: "dropped before the end", backfill: "dropped before the end" });
    expect(Object.entries(peaks).filter(([, v]) => v > MAX_RSS_BYTES).map(([k, v]) => `${k}: ${Math.round(v / 2 ** 20)} MB`), "RSS over 200 MB").toEqual([]);
  }, 180_000);

  it("leaves no file outside .tenex/conversations/ and the daemon's own, and the index agrees with the logs", async () => {
    expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    const problems = loggedProblems(daemon.stderr());
    const created = listFiles(tmp).filter((f) => !filesBefore.includes(f));
    const ours = /^p\/\.tenex\/(conversations\/[0-9a-f]{64}\.jsonl|index\.sqlite(-wal|-shm)?|clean-shutdown)$/;
    expect(created.filter((f) => !ours.test(f))).toEqual([]);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith("tenexd-pwned"))).toEqual([]);
    expect(existsSync(join(project.tenexDir, "quarantine"))).toBe(false);
    expect(indexDisagreements(project.tenexDir)).toEqual([]);
    expect(brokenLines(snapshotLogs(project.tenexDir))).toEqual([]);
    // Refusals are counted, not logged as problems; nothing failed inside the daemon. The one
    // problem expected: each back-fill the oversized frames cut (6 MB frames, then the 100 MB
    // claim) reported incomplete, as a back-fill that could not see everything must be.
    const lines = problems.map((p) => `${p.msg}: ${p.detail ?? ""}`);
    const cut = lines.filter((l) => l.startsWith(`backfill_incomplete: ${fake.url}: the relay sent a frame over`));
    expect(cut, `each back-fill cut by an oversized frame reported; the problems logged:\n${lines.join("\n")}`).toHaveLength(2);
    expect(lines.filter((l) => !cut.includes(l))).toEqual([]);
  });
});

/** A field of /proc/PID/status in bytes (VmRSS: resident now; VmHWM: the most it ever was). */
function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/** Samples VmRSS every 20 ms; `peak` is the highest since the last `reset`. */
function rssSampler(pid: number) {
  let peak = procStatusBytes(pid, "VmRSS");
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, procStatusBytes(pid, "VmRSS"));
    } catch {
      // the process is gone: aliveOrRestarted counts that as a crash
    }
  }, 20);
  return {
    peak: () => Math.max(peak, procStatusBytes(pid, "VmRSS")),
    reset: () => (peak = procStatusBytes(pid, "VmRSS")),
    stop: () => clearInterval(timer),
  };
}
