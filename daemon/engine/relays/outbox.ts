// Outbox: an event the daemon publishes is already durable in its conversation's log (the
// route takes it in locally first: ingest/route.ts); here it is sent to the relays and retried,
// across restarts, until one accepts it. Acceptance is recorded (`sent`), so a restart resends
// only what no relay has accepted yet.

import { LatencyWindow } from "../../../src/latency-window.js";
import type { Clock, RelayGateway } from "../../../src/ports.js";
import type { NostrEvent } from "../../../src/types.js";

export interface OutboxItem {
  ev: NostrEvent;
  conversationId: string;
  attempts: number;
  nextAt: number;
  lastError?: string;
  /** When it was queued (performance.now()), until its first attempt is over. */
  queuedAt?: number;
}

export interface OutboxDeps {
  gateway: RelayGateway;
  clock: Clock;
  /** Records that `relays` accepted the event (a `sent` record in its conversation). */
  markSent: (conversationId: string, eventId: string, relays: string[]) => Promise<void>;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export class Outbox {
  private readonly pending = new Map<string, OutboxItem>();
  private readonly sending = new Set<string>();
  private sentTotal = 0;
  /** From an event queued to its acceptance by a relay, when the first attempt succeeds (the status shows it). */
  readonly latency = new LatencyWindow(["relay"] as const);

  constructor(private readonly d: OutboxDeps) {}

  /** Queue an event (already durable) and try to send it at once. */
  enqueue(ev: NostrEvent, conversationId: string): Promise<void> {
    if (!this.pending.has(ev.id)) this.pending.set(ev.id, { ev, conversationId, attempts: 0, nextAt: 0, queuedAt: performance.now() });
    return this.trySend(ev.id);
  }

  /** Retry every item whose backoff has passed. Called by a background loop. */
  async retryDue(): Promise<void> {
    const now = this.d.clock.now();
    const due = [...this.pending.values()].filter((i) => i.nextAt <= now);
    await Promise.all(due.map((i) => this.trySend(i.ev.id)));
  }

  status() {
    const items = [...this.pending.values()];
    return {
      pending: items.length,
      sent: this.sentTotal,
      oldestAttempts: items.reduce((m, i) => Math.max(m, i.attempts), 0),
      lastError: items.find((i) => i.lastError)?.lastError,
    };
  }

  private async trySend(id: string): Promise<void> {
    const item = this.pending.get(id);
    if (!item || this.sending.has(id)) return;
    this.sending.add(id);
    try {
      const relays = await this.d.gateway.publish(item.ev);
      // Retries time the outage, not the way to the relays: only a first attempt counts.
      if (item.queuedAt !== undefined) this.latency.add({ relay: performance.now() - item.queuedAt });
      await this.d.markSent(item.conversationId, id, relays);
      this.pending.delete(id);
      this.sentTotal++;
    } catch (err) {
      item.attempts++;
      item.queuedAt = undefined;
      item.lastError = err instanceof Error ? err.message : String(err);
      const base = this.d.baseDelayMs ?? 1_000;
      item.nextAt = this.d.clock.now() + Math.min(this.d.maxDelayMs ?? 60_000, base * 2 ** (item.attempts - 1));
    } finally {
      this.sending.delete(id);
    }
  }
}
