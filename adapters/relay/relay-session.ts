// One connection to the embedded relay, as the relay library sees its client. It takes the
// client's frames one at a time (the socket is paused while a frame waits, so a client that
// sends faster than the relay works costs one frame of memory, not a queue), charges them to the
// client's token buckets, and bounds what waits to be sent to it.

import type { Client, ClientReadyState } from "@nostr-relay/common";
import type { WebSocket } from "ws";
import { bufferLimit, chargeFrame, type ClientLimits, type ClientTier, type Rates, type Spend } from "../../src/relay-guard/client-limits.js";
import { fullBucket } from "../../src/relay-guard/token-bucket.js";
import { refuseUnread } from "../../src/relay-guard/transport-limits.js";
import type { InboundBudget } from "./inbound-budget.js";
import type { RefusalReason } from "../../src/relay-guard/refusals.js";
import type { RelayCounters } from "./relay-counters.js";

export interface SessionOptions {
  counters: RelayCounters;
  /** Without: no rate limit, no bound on what waits to be sent (an open relay). */
  client?: { limits: ClientLimits; rates: Rates };
  /** Shared by every connection but the daemon's own. */
  budget?: InboundBudget;
  /** Frames over this from a `stranger` are refused unread (transport-limits.ts). */
  maxStrangerFrameBytes?: number;
  /** Before AUTH: `stranger` where reads need AUTH, else `member`. */
  initialTier: ClientTier;
  now: () => number;
  /** Handles one frame; never rejects. */
  handle: (session: RelaySession, text: string, bytes: number) => Promise<void>;
}

// Time a refused client gets to read why before its connection is cut.
const GOODBYE_MS = 1_000;

export class RelaySession implements Client {
  /** The pubkey this connection authenticated as (NIP-42), if it did. */
  authed: string | undefined;
  tier: ClientTier;
  private readonly queue: Buffer[] = [];
  private busy = false;
  private closing = false;
  private spend: Spend | undefined;
  /** Reading is held while a frame waits to be handled, or while the shared budget is in debt. */
  private readonly holds = { queue: false, budget: false };
  private budgetUntil = 0;
  private budgetTimer: NodeJS.Timeout | undefined;

  constructor(readonly ws: WebSocket, private readonly o: SessionOptions) {
    this.tier = o.initialTier;
    if (o.client) {
      const now = o.now();
      this.spend = { messages: fullBucket(o.client.rates.messages, now), bytes: fullBucket(o.client.rates.bytes, now) };
    }
  }

  get readyState(): ClientReadyState {
    return this.ws.readyState as ClientReadyState;
  }

  /** What the relay sends; a client that lets more wait than its tier allows is cut off. */
  send(data: string, cb?: (err?: Error) => void): void {
    if (this.closing || this.ws.readyState !== this.ws.OPEN) return;
    const limit = this.o.client ? bufferLimit(this.tier, this.o.client.limits) : Number.POSITIVE_INFINITY;
    if (this.ws.bufferedAmount + data.length > limit) {
      this.cut("slow_reader");
      return;
    }
    this.ws.send(data, cb);
  }

  /** A frame from the client. */
  receive(data: Buffer): void {
    if (this.closing) return;
    const unread = this.o.maxStrangerFrameBytes !== undefined ? refuseUnread(this.tier, data.length, this.o.maxStrangerFrameBytes) : undefined;
    if (unread) {
      this.refuseAndClose("frame_too_large", unread);
      return;
    }
    if (this.spend && this.tier !== "trusted") {
      const charged = chargeFrame(this.spend, this.o.client!.rates, data.length, this.o.now());
      this.spend = charged.spend;
      if (!charged.ok) {
        this.refuseAndClose("rate_limited", charged.message!);
        return;
      }
    }
    const wait = this.tier !== "trusted" ? (this.o.budget?.charge(data.length) ?? 0) : 0;
    if (wait > 0) this.holdFor(wait);
    this.queue.push(data);
    // One frame handled, at most one more read ahead: the rest waits in the sender's socket.
    this.holds.queue = this.queue.length > 1;
    this.updateHolds();
    if (!this.busy) void this.drain();
  }

  /** Sends a NOTICE saying why, then closes the connection. */
  refuseAndClose(reason: RefusalReason, notice: string): void {
    if (this.closing) return;
    this.o.counters.refuse(reason);
    this.ws.send(JSON.stringify(["NOTICE", notice]), () => this.ws.terminate());
    this.closing = true;
    this.dropQueue();
    setTimeout(() => this.ws.terminate(), GOODBYE_MS).unref();
  }

  /** Cuts the connection at once (it would not read a goodbye). */
  cut(reason: RefusalReason): void {
    if (this.closing) return;
    this.o.counters.refuse(reason);
    this.closing = true;
    this.dropQueue();
    this.ws.terminate();
  }

  closed(): void {
    this.closing = true;
    clearTimeout(this.budgetTimer);
    this.dropQueue();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0 && !this.closing) {
      const data = this.queue.shift()!;
      this.holds.queue = this.queue.length > 1;
      this.updateHolds();
      await this.o.handle(this, data.toString("utf8"), data.length);
    }
    this.busy = false;
  }

  /** Reads nothing more until `ms` from now (or later, if an earlier charge asked for longer). */
  private holdFor(ms: number): void {
    const until = this.o.now() + ms;
    if (this.budgetUntil >= until) return;
    this.budgetUntil = until;
    this.holds.budget = true;
    this.updateHolds();
    clearTimeout(this.budgetTimer);
    this.budgetTimer = setTimeout(() => {
      this.holds.budget = false;
      this.updateHolds();
    }, ms);
    this.budgetTimer.unref();
  }

  private updateHolds(): void {
    if (this.closing) return;
    const hold = this.holds.queue || this.holds.budget;
    if (hold && !this.ws.isPaused) this.ws.pause();
    else if (!hold && this.ws.isPaused) this.ws.resume();
  }

  private dropQueue(): void {
    this.queue.length = 0;
  }
}
