// The conversation cache under large events (issue 13): 1,000 events of 100 KB (100
// conversations × 10) reach `tenexd start` from a relay (its first back-fill). Then the daemon is
// restarted and every conversation read through the API, which loads each into the cache. VmRSS
// after that and a few seconds idle, for the default `limits.cacheBytes` and for a bound too
// large to matter (what the cache did when it was bounded by events), beside the same restart
// with nothing read. The back-fill's own figure is reported beside them: it is not the cache.
// The project's limits are raised so that 100 KB events are accepted.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initNostrWasm } from "nostr-wasm";
import type { NostrEvent } from "../src/types.js";
import { round, type BenchContext } from "./bench-context.js";
import { writeBenchProject, type BenchProject } from "./bench-project.js";
import { daemonApi, pollFor, seedRelay, startDaemon, startRelay, type DaemonChild } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";
import { benchCoordinate, benchKeys, type BenchKeys } from "./workload.js";

const CONVERSATIONS = 100;
const PER_CONVERSATION = 10;
const CONTENT_BYTES = 100_000;
const DEFAULT_BOUND = 32 * 1024 * 1024;
const UNBOUNDED = 1024 * 1024 * 1024;
// V8 gives back the pages of a heap that grew only once the daemon idles (its memory reducer):
// ~10-15 s after the reads here. RSS is read right after the work and again once settled.
const SETTLE_MS = 20_000;
const INGEST_TIMEOUT_MS = 300_000;
// As everywhere in the benchmarks, "MB" is MiB: VmRSS is read in KiB and divided by 1024.
const MB = 1024 * 1024;

async function signEvents(keys: BenchKeys): Promise<NostrEvent[]> {
  const nw = await initNostrWasm();
  const sk = Buffer.from(keys.owner.sk, "hex");
  const a = ["a", benchCoordinate(keys)];
  const now = Math.floor(Date.now() / 1000) - 3_600;
  const sign = (kind: number, content: string, tags: string[][], at: number) => {
    const ev = { kind, content, tags, created_at: at } as NostrEvent;
    nw.finalizeEvent(ev, sk);
    return ev;
  };
  // Text that differs per event (no two contents share a string), ASCII like most messages.
  const text = (c: number, i: number) => `conversation ${c} message ${i} `.padEnd(CONTENT_BYTES, `lorem ipsum ${c}.${i} `);
  const out: NostrEvent[] = [];
  for (let c = 0; c < CONVERSATIONS; c++) {
    const root = sign(11, text(c, 0), [a, ["title", `Large topic ${c}`]], now + c);
    out.push(root);
    for (let i = 1; i < PER_CONVERSATION; i++) {
      out.push(sign(1111, text(c, i), [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", root.id], ["k", "11"], a], now + c));
    }
  }
  return out;
}

interface Sample {
  /** Right after the work. */
  busy: number;
  /** After SETTLE_MS idle. */
  rss: number;
  peak: number;
  cachedBytes: number;
  cachedConversations: number;
  /** The daemon's process.memoryUsage() once settled (from its status). */
  heapUsed: number;
  heapTotal: number;
  external: number;
}

function configure(tenexDir: string, relay: string, cacheBytes: number): void {
  const file = join(tenexDir, "config.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.relays = [relay];
  config.limits = { maxContentBytes: 2 * CONTENT_BYTES, maxEventBytes: 4 * CONTENT_BYTES, cacheBytes };
  writeFileSync(file, JSON.stringify(config, null, 2));
}

/** Starts the daemon, runs `body` on it, measures right after and once settled, stops it. */
async function measured(project: BenchProject, body: (d: DaemonChild) => Promise<void>): Promise<Sample> {
  const d = await startDaemon(project.dir);
  try {
    await pollFor(() => (d.logs.some((l) => l.msg === "caught up") ? true : undefined), INGEST_TIMEOUT_MS, "the back-fill");
    await body(d);
    const busy = d.rssMb().rss;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const { rss, peak } = d.rssMb();
    const { store, memory } = await daemonApi(project.tenexDir, "/api/v1/status");
    return {
      busy, rss, peak, cachedBytes: store.cachedBytes, cachedConversations: store.cachedConversations,
      heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external,
    };
  } finally {
    await d.stop();
  }
}

async function stored(tenexDir: string, expected: number): Promise<void> {
  // The back-fill ends when the relay has sent everything; the last events may still be on their way to the log.
  const deadline = performance.now() + INGEST_TIMEOUT_MS;
  for (let n = 0; n < expected; n = (await daemonApi(tenexDir, "/api/v1/status")).ingest.accepted) {
    if (performance.now() > deadline) throw new Error(`${n} of ${expected} events stored in ${INGEST_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every conversation through the API: each is loaded from its log into the cache. */
async function readAll(tenexDir: string, roots: readonly string[]): Promise<void> {
  for (const id of roots) await daemonApi(tenexDir, `/api/v1/conversations/${id}`);
}

export async function benchCacheRss(ctx: BenchContext): Promise<Figure[]> {
  const keys = benchKeys();
  const dir = mkdtempSync(join(tmpdir(), "tenexd-cache-rss-"));
  try {
    ctx.progress(`signing ${CONVERSATIONS * PER_CONVERSATION} events of ${CONTENT_BYTES / 1000} KB and seeding a relay with them`);
    const events = await signEvents(keys);
    const roots = events.filter((e) => e.kind === 11).map((e) => e.id);
    await seedRelay(join(dir, "large.sqlite"), events);
    const [large, empty] = await Promise.all([startRelay(join(dir, "large.sqlite")), startRelay(join(dir, "empty.sqlite"))]);
    try {
      const project = writeBenchProject(join(dir, "project"), keys, [large.url]);
      ctx.progress("the first back-fill takes the events in");
      configure(project.tenexDir, large.url, DEFAULT_BOUND);
      const ingest = await measured(project, () => stored(project.tenexDir, events.length));
      // From here on the events are in the logs; the relay that held them is left out, so that no
      // back-fill brings 100 MB again and what is measured is the cache.
      ctx.progress("restarts: nothing read (baseline), then every conversation read with each bound");
      configure(project.tenexDir, empty.url, DEFAULT_BOUND);
      const base = await measured(project, async () => undefined);
      const bounded = await measured(project, () => readAll(project.tenexDir, roots));
      configure(project.tenexDir, empty.url, UNBOUNDED);
      const unbounded = await measured(project, () => readAll(project.tenexDir, roots));
      const mb = (x: number) => `${round(x, 1)} MB`;
      const held = (x: Sample) => `the cache held ${mb(x.cachedBytes / MB)} (estimated) in ${x.cachedConversations} conversations`;
      const rss = (x: Sample) => `${mb(x.rss)} settled (${mb(x.busy)} right after, peak VmHWM ${mb(x.peak)}; JS heap ${mb(x.heapUsed / MB)} used of ${mb(x.heapTotal / MB)}, ${mb(x.external / MB)} outside it)`;
      const workload = `${events.length} events of ${CONTENT_BYTES / 1000} KB in ${CONVERSATIONS} conversations, stored; the daemon restarted and every conversation read through the API (each loaded from its log into the cache); VmRSS after ${SETTLE_MS / 1000} s idle`;
      return [
        {
          name: "cache_rss_1000x100kb_mb", value: round(bounded.rss, 1), unit: "MB",
          note: `${workload}, limits.cacheBytes = ${DEFAULT_BOUND / MB} MiB (the default): ${rss(bounded)}; ${held(bounded)}. Baseline (the same restart, nothing read) ${mb(base.rss)}. With a 1 GiB bound (none in effect, as when the cache was bounded by 200,000 events): ${rss(unbounded)}; ${held(unbounded)}`,
        },
        {
          name: "cache_rss_over_baseline_mb", value: round(bounded.rss - base.rss, 1), unit: "MB", goal: goalText("cache_rss_over_baseline_mb"),
          note: `cache_rss_1000x100kb_mb minus the baseline (${mb(base.rss)}): the bound, ${DEFAULT_BOUND / MB} MiB, plus what the JS heap keeps spare and the allocator keeps of the reads' buffers; with no bound in effect ${mb(unbounded.rss - base.rss)}`,
        },
        {
          name: "cache_heap_over_baseline_mb", value: round((bounded.heapUsed - base.heapUsed) / MB, 1), unit: "MB", goal: goalText("cache_heap_over_baseline_mb"),
          note: `the JS heap in use once settled, minus the baseline's (${mb(base.heapUsed / MB)}): what the cached conversations really hold, against the bound (${DEFAULT_BOUND / MB} MiB) their estimate is held to; with no bound in effect ${mb((unbounded.heapUsed - base.heapUsed) / MB)} for an estimated ${mb(unbounded.cachedBytes / MB)}`,
        },
        {
          name: "cache_rss_backfill_1000x100kb_mb", value: round(ingest.rss, 1), unit: "MB",
          note: `the first back-fill taking the same ${events.length} events in from a relay (before the restarts): ${rss(ingest)}; ${held(ingest)}. Not the cache: the peak is what the back-fill keeps in flight (up to 1,000 events at once, counted in events, not bytes)`,
        },
      ];
    } finally {
      await Promise.all([large.close(), empty.close()]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
