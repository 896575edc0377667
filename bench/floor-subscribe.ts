// How the floor hosts (trigger-floor-host.ts, ingest-floor-host.ts) take events in: a live
// subscription (one socket, one REQ for the conversation kinds from now on, each EVENT frame
// parsed once and handed on), or a first back-fill paged as the daemon pages it.

import { WebSocket } from "ws";
import { QueryConnection } from "../adapters/nostr/query-connection.js";
import { catchUp } from "../daemon/engine/relays/catchup.js";
import { backfillSpace, PAGE_SIZE } from "../daemon/engine/relays/relay-sync.js";
import { projectFilters, type ProjectAudience } from "../src/backfill/project-filters.js";
import type { CatchupResult } from "../src/daemon-status.js";
import type { NostrEvent } from "../src/types.js";

export function subscribeLive(url: string, onEvent: (ev: NostrEvent) => void): WebSocket {
  const ws = new WebSocket(url);
  ws.on("open", () => ws.send(JSON.stringify(["REQ", "floor", { kinds: [1, 11, 1111], limit: 0 }])));
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as unknown[];
    if (msg[0] === "EVENT") onEvent(msg[2] as NostrEvent);
  });
  return ws;
}

/**
 * The floor hosts' first back-fill: the daemon's own paging (catchup.ts, the same filters, page
 * size and splitting of full seconds) over a plain connection, each event handed on at once
 * (no bound on those in flight: the floor's least). Resolves when the last page is in.
 */
export async function backfill(url: string, audience: ProjectAudience, onEvent: (ev: NostrEvent) => void, since?: number): Promise<CatchupResult> {
  const conn = new QueryConnection(url, { maxFrameBytes: FLOOR_MAX_FRAME });
  try {
    return await catchUp({
      query: (filters, cb) => conn.query(filters, cb, 60_000),
      filters: projectFilters(audience), since, pageSize: PAGE_SIZE, maxInFlight: Number.MAX_SAFE_INTEGER,
      space: backfillSpace(audience),
      ingest: (ev) => (onEvent(ev as NostrEvent), Promise.resolve(false)),
    });
  } finally {
    conn.close();
  }
}

// The workloads' events are ~1.6 KB: any bound far above it.
const FLOOR_MAX_FRAME = 1 << 22;
