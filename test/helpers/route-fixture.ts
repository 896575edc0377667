// The daemon's inbound route over a real log, index and verifier, as the integration tests drive
// it (no runs, no outbox): one setting for every test that feeds events to the route directly.

import { join } from "node:path";
import { FileConversationLog, type FileOps } from "../../adapters/fs-log/index.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import type { Verdict } from "../../adapters/verify/verify-protocol.js";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import type { CommandAgent } from "../../daemon/engine/agents/command-agents.js";
import { ConversationQueues } from "../../daemon/engine/ingest/conversation-queues.js";
import { IngestCounters } from "../../daemon/engine/ingest/counters.js";
import type { IngestOptions, IngestOutcome } from "../../daemon/engine/ingest/checks.js";
import { InboundRoute, type SliceItem } from "../../daemon/engine/ingest/route.js";
import { SliceCollector } from "../../daemon/engine/ingest/slice-collector.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import { DEFAULT_LIMITS } from "../../src/edge/validate-inbound.js";
import type { RecipientsOf } from "../../src/messaging/recipients.js";
import type { NostrEvent, ProjectInfo } from "../../src/types.js";

export interface RouteFixtureOptions {
  /** Where the logs go (default: `dir` itself). */
  logDir?: string;
  concurrentConversations?: number;
  maxCachedBytes?: number;
  /** The signature check (default: nostr-wasm inline, each id noted in `checked`). */
  verifier?: { check(ev: NostrEvent, urgent?: boolean): Promise<Verdict>; checkMany?(evs: readonly NostrEvent[]): Promise<Verdict[]> };
  /** The agents the daemon runs itself, by pubkey (default: none). */
  runnable?: ReadonlyMap<string, CommandAgent>;
  /** The log's file calls (default: the real ones). */
  fileOps?: FileOps;
  /** Who a message is for (default: the store's, its `p` tags; the daemon's: projectRecipients). */
  recipientsOf?: RecipientsOf;
}

/** Opens the route on `dir`; `checked` lists the ids whose signature was verified, in order. */
export async function openRoute(dir: string, project: ProjectInfo, o: RouteFixtureOptions = {}) {
  const log = new FileConversationLog(o.logDir ?? dir, o.fileOps ? { fileOps: o.fileOps } : {});
  const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
  const queues = new ConversationQueues(o.concurrentConversations ?? 4);
  const store = new ConversationStore({
    log, index, isBusy: (id) => queues.isBusy(id),
    ...(o.maxCachedBytes ? { maxCachedBytes: o.maxCachedBytes } : {}), ...(o.recipientsOf ? { recipientsOf: o.recipientsOf } : {}),
  });
  await store.init();
  const checked: string[] = [];
  const counters = new IngestCounters();
  const route = new InboundRoute({
    project, limits: DEFAULT_LIMITS, store, queues, counters, clock: { now: () => Date.now() },
    verifier: o.verifier ?? { check: async (ev: NostrEvent) => (checked.push(ev.id), wasmCheck(ev)) },
    runnable: o.runnable ?? new Map(), signers: new Map(),
  });
  const close = async () => {
    await queues.idle();
    await store.indexed();
    await log.close();
    index.close();
  };
  return { route, checked, counters, close, log, index, queues, store };
}

/**
 * `route.ingest`, with a relay's events (live or a back-fill's; not the daemon's own) routed as the
 * daemon routes them (relay-sync.ts): those handed over in one turn together, by `fromRelayMany`.
 */
export function inSlices(route: InboundRoute): { ingest(raw: unknown, opts?: IngestOptions): Promise<IngestOutcome> } {
  const waiting = new Map<SliceItem, { resolve(o: IngestOutcome): void; reject(err: unknown): void }>();
  const slices = new SliceCollector<SliceItem>((items) => route.fromRelayMany(
    items, (i, o) => waiting.get(items[i]!)?.resolve(o), (i, err) => waiting.get(items[i]!)?.reject(err),
  ));
  return {
    ingest(raw, opts = {}) {
      if (opts.origin === "local") return route.ingest(raw, opts);
      const item: SliceItem = { raw, relay: opts.relay, quiet: opts.quiet ?? false, bulk: opts.bulk ?? false };
      return new Promise<IngestOutcome>((resolve, reject) => {
        waiting.set(item, { resolve, reject });
        slices.add(item);
      }).finally(() => waiting.delete(item));
    },
  };
}
