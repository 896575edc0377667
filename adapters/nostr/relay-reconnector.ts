// Keeps one relay connected: after every disconnect, tries again with exponential backoff and
// jitter, forever. NDK's own retry gives up after one failed attempt (a failed attempt never
// schedules the next), so the gateway cannot rely on it.

import { NDKRelayStatus, type NDKRelay } from "@nostr-dev-kit/ndk";

export interface BackoffOptions {
  /** First retry delay (ms). */
  initialMs: number;
  /** Longest delay between attempts (ms). */
  maxMs: number;
  /** A connection that lasted this long (ms) resets the backoff; a shorter one keeps growing it. */
  stableMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 250, maxMs: 15_000, stableMs: 10_000 };

/** ±20 % so that many daemons do not reconnect to a restarted relay in lockstep. */
const JITTER = 0.2;

export function backoffDelay(attempt: number, opts: BackoffOptions, random = Math.random): number {
  const base = Math.min(opts.initialMs * 2 ** attempt, opts.maxMs);
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

export class RelayReconnector {
  private attempt = 0;
  private connectedAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly relay: NDKRelay, private readonly opts: BackoffOptions) {}

  connected(now: number): void {
    this.clearTimer();
    this.connectedAt = now;
  }

  disconnected(now: number): void {
    if (this.stopped) return;
    const lasted = this.connectedAt === undefined ? 0 : now - this.connectedAt;
    if (lasted >= this.opts.stableMs) this.attempt = 0;
    this.connectedAt = undefined;
    this.schedule(backoffDelay(this.attempt++, this.opts));
  }

  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  private schedule(delayMs: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => this.tryConnect(), delayMs);
    // A pending retry must not keep a process alive that is otherwise done.
    this.timer.unref();
  }

  private tryConnect(): void {
    this.timer = undefined;
    if (this.stopped || !isIdle(this.relay.status)) return;
    // Cancels NDK's own pending retry, which would otherwise make connect() a silent no-op.
    this.relay.connectivity.resetReconnectionState();
    // A failure surfaces as a 'disconnect' event, which schedules the next attempt.
    this.relay.connect().catch(() => undefined);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

// CONNECTING / RECONNECTING mean an attempt is in flight: calling connect() then would open a
// second socket on the same relay object. Its outcome ('connect' or 'disconnect') comes to us.
const isIdle = (s: NDKRelayStatus) =>
  s === NDKRelayStatus.DISCONNECTED || s === NDKRelayStatus.DISCONNECTING || s === NDKRelayStatus.FLAPPING;
