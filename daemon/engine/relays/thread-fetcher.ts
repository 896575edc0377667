// A reply whose root the daemon has never seen: fetch the root and its thread from every relay.
// While a back-fill runs the fetch waits for it to end: a back-fill pages newest first, so it
// meets replies before their roots, and usually brings the roots itself a few pages later;
// fetching each thread at once fetched the project's history a second time. A fetch that could
// not take its thread in (a relay cut it short, the log refused events: a full disk) is kept and
// fetched again by `retryFailed`, which the daemon's back-fill retry loop calls.
// A conversation whose log lost lines (set aside as damaged) is fetched again the same way,
// whatever the age of its events (no `since`): what a relay still holds comes back, and what is
// still in the log is dropped as a duplicate by id.

import PQueue from "p-queue";
import { KIND } from "../../../src/kinds.js";
import type { RelayGateway } from "../../../src/ports.js";
import { catchUp } from "./catchup.js";
import type { IngestOutcome } from "../ingest/checks.js";

export interface ThreadFetcherDeps {
  gateway: RelayGateway;
  relays: readonly string[];
  /** Everyone whose events can be taken in (src/backfill/project-filters.ts): nobody else's are asked for. */
  authors: readonly string[];
  /**
   * Takes one fetched event in (checked like any inbound event); `quiet`: history, no agent
   * runs; `bulk`: nobody waits for it (IngestOptions.bulk).
   */
  ingest: (ev: unknown, relay: string, quiet: boolean, bulk: boolean) => Promise<IngestOutcome>;
  /** Whether the event with this id is already held. */
  holds: (id: string) => boolean;
  /** True while a back-fill runs. */
  busy: () => boolean;
  onError: (rootId: string, err: unknown) => void;
}

const CONCURRENT_FETCHES = 4;
const QUERY_TIMEOUT_MS = 10_000;

export class ThreadFetcher {
  /** Roots asked for during a back-fill, and whether their first reply was history. */
  private readonly deferred = new Map<string, boolean>();
  /** Roots whose fetch failed, and whether their first reply was history: fetched again by retryFailed. */
  private readonly failed = new Map<string, boolean>();
  /** Conversations to fetch again once the back-fill ends, whether or not their root is held. */
  private readonly deferredRefetch = new Set<string>();
  private readonly queued = new Set<string>();
  private readonly queue = new PQueue({ concurrency: CONCURRENT_FETCHES });

  constructor(private readonly d: ThreadFetcherDeps) {}

  request(rootId: string, quiet: boolean): void {
    if (this.d.busy()) this.deferred.set(rootId, quiet && (this.deferred.get(rootId) ?? true));
    else this.enqueue(rootId, quiet);
  }

  /** Fetches a held conversation's whole thread again (its log lost lines); no agent runs on it. */
  refetch(rootId: string): void {
    if (this.d.busy()) this.deferredRefetch.add(rootId);
    else this.enqueue(rootId, true);
  }

  /** After a back-fill: fetch the threads whose roots it did not bring, and the refetches. */
  backfillDone(): void {
    for (const [rootId, quiet] of this.deferred) if (!this.d.holds(rootId)) this.enqueue(rootId, quiet);
    for (const rootId of this.deferredRefetch) this.enqueue(rootId, true);
    this.deferred.clear();
    this.deferredRefetch.clear();
  }

  /** Fetches again the threads whose fetch failed; resolves with how many failed again. */
  async retryFailed(): Promise<number> {
    if (this.failed.size === 0) return 0;
    const roots = [...this.failed];
    this.failed.clear();
    for (const [rootId, quiet] of roots) this.enqueue(rootId, quiet);
    await this.queue.onIdle();
    return this.failed.size;
  }

  /** Resolves when no fetch is queued or running. */
  idle(): Promise<void> {
    return this.queue.onIdle();
  }

  private enqueue(rootId: string, quiet: boolean): void {
    if (this.queued.has(rootId)) return;
    this.queued.add(rootId);
    void this.queue.add(async () => {
      try {
        await Promise.all(this.d.relays.map((url) => this.fetchFrom(url, rootId, quiet)));
      } catch (err) {
        this.failed.set(rootId, quiet);
        this.d.onError(rootId, err);
      } finally {
        this.queued.delete(rootId);
      }
    });
  }

  private async fetchFrom(url: string, rootId: string, quiet: boolean): Promise<void> {
    const authors = [...this.d.authors];
    let refused = 0;
    const result = await catchUp({
      query: (filters, onEvent) => this.d.gateway.query(url, filters, onEvent, QUERY_TIMEOUT_MS),
      // Both dialects: NIP-22 replies name the root in `E`, kind 1 replies in a NIP-10 `e`.
      filters: [{ ids: [rootId], authors }, { kinds: [KIND.REPLY], "#E": [rootId], authors }, { kinds: [KIND.TEXT_NOTE], "#e": [rootId], authors }],
      since: undefined, pageSize: 500, maxInFlight: 1_000, space: { authors, enumerable: [] },
      // A reply met before its root is taken in again after the root (catchup.ts).
      ingest: (ev, again) => this.d.ingest(ev, url, quiet, !again).then((o) => o.status === "deferred", () => (refused++, false)),
    });
    if (!result.complete) throw new Error(`thread from ${url}: ${result.reason ?? "incomplete"}`);
    if (refused > 0) throw new Error(`thread from ${url}: ${refused} events could not be stored`);
  }
}
