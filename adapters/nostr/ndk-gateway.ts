// The daemon's RelayGateway on NDK 3: several relays, each kept connected with backoff, live
// subscriptions re-sent after every reconnect, per-relay health, and every event reported with
// the relay that delivered it (the daemon's high-water marks are per relay; it dedupes by id).

import type NDK from "@nostr-dev-kit/ndk";
import { normalizeRelayUrl, type NDKRelay } from "@nostr-dev-kit/ndk";
import { authEventTemplate } from "../../src/relay-guard/nip42.js";
import type { Clock, QueryEnd, RelayFilter, RelayGateway, RelaySubscription } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import type { AuthOutcome } from "./auth-answer.js";
import { GatewayClosedError, PublishRejectedError } from "./errors.js";
import { KeySigner } from "./key-signer.js";
import { LiveSubscription } from "./live-subscription.js";
import { createDaemonNdk, forgetConnectionHistory, retireRelay } from "./ndk-tuning.js";
import { QueryConnection } from "./query-connection.js";
import { fetchFromRelays } from "./relay-fetch.js";
import { RelayHealthBook } from "./relay-health.js";
import { waitForAnyConnect, type RelayLink } from "./relay-links.js";
import { publishToRelays } from "./relay-publish.js";
import { DEFAULT_BACKOFF, RelayReconnector, type BackoffOptions } from "./relay-reconnector.js";
import type { RelayHealth } from "../../src/daemon-status.js";

export interface NdkGatewayOptions {
  relays: readonly string[];
  /** How long connect() waits for the relays to come up; the ones still down keep retrying. */
  connectTimeoutMs?: number;
  publishTimeoutMs?: number;
  fetchTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  clock?: Clock;
  /** The largest frame a relay may send on any connection (transport-limits.ts `clientMaxFrameBytes`). */
  maxFrameBytes?: number;
  /** The secret key that answers relays' AUTH challenges (NIP-42) on every connection. */
  authKey?: Uint8Array;
}

const AUTH_REQUIRED = "auth-required:";
const DEFAULTS = { connectTimeoutMs: 5_000, publishTimeoutMs: 5_000, fetchTimeoutMs: 10_000, maxFrameBytes: 1024 * 1024 };
const systemClock: Clock = { now: () => Date.now() };

export class NdkGateway implements RelayGateway {
  private readonly links: RelayLink[];
  private readonly health_: RelayHealthBook;
  private readonly reconnectors = new Map<string, RelayReconnector>();
  private readonly live = new Set<LiveSubscription>();
  private readonly reconnectListeners = new Set<(url: string) => void>();
  private readonly inFlight = new Map<string, Promise<string[]>>();
  /** Stored-event queries go over a plain connection of their own per relay (query-connection.ts). */
  private readonly queries = new Map<string, QueryConnection>();
  private readonly clock: Clock;
  private readonly authSigner: KeySigner | undefined;
  private started = false;
  private closed = false;

  private constructor(private readonly ndk: NDK, private readonly opts: NdkGatewayOptions) {
    this.clock = opts.clock ?? systemClock;
    this.authSigner = opts.authKey ? new KeySigner(opts.authKey) : undefined;
    const urls = [...new Set(opts.relays)];
    this.health_ = new RelayHealthBook(urls);
    const backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    this.links = urls.map((url) => ({ url, relay: ndk.pool.getRelay(normalizeRelayUrl(url), false) }));
    for (const link of this.links) {
      this.reconnectors.set(link.url, new RelayReconnector(link.relay, backoff));
      this.watch(link);
    }
  }

  /** Connects to every relay, waiting at most `connectTimeoutMs`; relays still down keep retrying. */
  static async connect(opts: NdkGatewayOptions): Promise<NdkGateway> {
    let gateway: NdkGateway | undefined;
    const signer = opts.authKey ? new KeySigner(opts.authKey) : undefined;
    const ndk = createDaemonNdk(opts.relays, {
      maxFrameBytes: opts.maxFrameBytes ?? DEFAULTS.maxFrameBytes,
      ...(signer ? {
        auth: {
          sign: (challenge, relayUrl) => signer.sign(authEventTemplate(challenge, relayUrl, Math.floor(Date.now() / 1000))),
          asked: (relay) => gateway?.onRelayAuth(relay, undefined),
          answered: (relay, outcome) => gateway?.onRelayAuth(relay, outcome),
        },
      } : {}),
    });
    gateway = new NdkGateway(ndk, opts);
    await gateway.ndk.connect(opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs);
    gateway.started = true;
    return gateway;
  }

  /**
   * Live events from every relay, each with its relay's url (an event on two relays comes twice).
   * The REQ is sent again after each reconnect, so stored events matching `filters` come again
   * then: give live-only filters `limit: 0` and back-fill from onReconnect. NDK also hands a
   * subscription matching events that arrive for a concurrent fetch on the same relay.
   */
  subscribe(filters: RelayFilter[], onEvent: (ev: NostrEvent, relay: string) => void, urgent?: (ev: NostrEvent) => boolean): RelaySubscription {
    this.assertOpen();
    const sub = new LiveSubscription(this.ndk, this.links, filters, {
      ...(urgent ? { urgent } : {}),
      onEvent: (ev, url) => {
        this.health_.event(url, this.clock.now());
        onEvent(ev, url);
      },
      onClosedByRelay: (url, reason) => {
        // Sent before our AUTH was answered: NDK sends the REQ again once the relay accepted it
        // (a refusal shows in the relay's auth health).
        if (this.authSigner && reason.startsWith(AUTH_REQUIRED)) return;
        this.health_.error(url, `subscription closed by relay: ${reason}`, this.clock.now());
      },
      onDone: (s) => this.live.delete(s),
    });
    this.live.add(sub);
    return sub;
  }

  async fetch(filters: RelayFilter[], timeoutMs = this.opts.fetchTimeoutMs ?? DEFAULTS.fetchTimeoutMs): Promise<NostrEvent[]> {
    this.assertOpen();
    const started = this.clock.now();
    // With every relay down, wait for the first to come back rather than answer "nothing".
    if (!(await waitForAnyConnect(this.links.map((l) => l.relay), timeoutMs))) return [];
    const remaining = Math.max(1, timeoutMs - (this.clock.now() - started));
    const connected = this.links.filter((l) => l.relay.connected).map((l) => l.url);
    return fetchFromRelays(connected, filters, remaining, (url, f, onEvent, ms) => this.query(url, f, onEvent, ms));
  }

  async query(relay: string, filters: RelayFilter[], onEvent: (ev: unknown) => void, timeoutMs: number): Promise<QueryEnd> {
    this.assertOpen();
    if (!this.links.some((l) => l.url === relay)) return { complete: false, reason: `${relay} is not a configured relay` };
    let conn = this.queries.get(relay);
    if (!conn) this.queries.set(relay, (conn = this.queryConnection(relay)));
    let delivered = 0;
    const end = await conn.query(filters, (ev) => {
      delivered++;
      onEvent(ev);
    }, timeoutMs);
    if (delivered > 0) this.health_.event(relay, this.clock.now());
    if (!end.complete) this.health_.error(relay, `query: ${end.reason ?? "incomplete"}`, this.clock.now());
    return end;
  }

  /** Resolves with the relays that answered OK true; PublishRejectedError when none did. */
  publish(ev: NostrEvent): Promise<string[]> {
    if (this.closed) return Promise.reject(new GatewayClosedError());
    // NDK keys pending OKs by event id: two concurrent sends of one event would share an OK.
    const pending = this.inFlight.get(ev.id);
    if (pending) return pending;
    const p = this.publishOnce(ev).finally(() => this.inFlight.delete(ev.id));
    this.inFlight.set(ev.id, p);
    return p;
  }

  health(): RelayHealth[] {
    return this.health_.snapshot();
  }

  /**
   * `listener(url)` runs each time a relay connects after connect() returned (a reconnect, or a
   * relay that was down at start), once live subscriptions are re-sent on it: the moment to
   * back-fill what was missed. Returns a function that removes the listener.
   */
  onReconnect(listener: (url: string) => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const sub of [...this.live]) sub.close();
    for (const r of this.reconnectors.values()) r.stop();
    for (const q of this.queries.values()) q.close();
    for (const link of this.links) retireRelay(link.relay);
  }

  private queryConnection(url: string): QueryConnection {
    return new QueryConnection(url, {
      connectTimeoutMs: this.opts.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      maxFrameBytes: this.opts.maxFrameBytes ?? DEFAULTS.maxFrameBytes,
      ...(this.authSigner ? { authSigner: this.authSigner } : {}),
      authHooks: {
        onAsked: () => this.health_.authAsked(url),
        onAnswered: (o) => this.health_.authAnswered(url, o.accepted, o.accepted ? undefined : o.reason),
      },
    });
  }

  /** A relay's AUTH challenge (`outcome` undefined), or its answer to ours. */
  private onRelayAuth(relay: NDKRelay, outcome: AuthOutcome | undefined): void {
    const link = this.links.find((l) => l.relay === relay);
    if (!link) return;
    if (!outcome) this.health_.authAsked(link.url);
    else this.health_.authAnswered(link.url, outcome.accepted, outcome.accepted ? undefined : outcome.reason);
  }

  private async publishOnce(ev: NostrEvent): Promise<string[]> {
    const timeoutMs = this.opts.publishTimeoutMs ?? DEFAULTS.publishTimeoutMs;
    const outcome = await publishToRelays(this.ndk, this.links, ev, timeoutMs);
    const now = this.clock.now();
    for (const [url, why] of Object.entries(outcome.refused)) this.health_.error(url, `publish ${ev.id}: ${why}`, now);
    if (outcome.accepted.length === 0) throw new PublishRejectedError(ev.id, outcome.refused);
    return outcome.accepted;
  }

  private watch(link: RelayLink): void {
    const { url, relay } = link;
    const reconnector = this.reconnectors.get(url)!;
    relay.on("connect", () => {
      if (this.closed) return;
      const again = this.health_.connected(url);
      reconnector.connected(this.clock.now());
      for (const sub of this.live) sub.restart(url);
      if (again || this.started) this.notifyReconnect(url);
    });
    relay.on("disconnect", () => {
      if (this.closed) return;
      forgetConnectionHistory(relay);
      const wasConnected = this.health_.isConnected(url);
      this.health_.disconnected(url, wasConnected ? "connection lost" : "connection attempt failed", this.clock.now());
      reconnector.disconnected(this.clock.now());
    });
    relay.on("notice", (notice: string) => this.health_.error(url, `NOTICE: ${notice}`, this.clock.now()));
    // NIP-42 without a key: NDK only reports the challenge. (With one, ndk-tuning.ts answers it.)
    relay.on("auth", () => this.health_.authAsked(url));
  }

  private notifyReconnect(url: string): void {
    for (const listener of this.reconnectListeners) {
      try {
        listener(url);
      } catch (err) {
        this.health_.error(url, `reconnect listener failed: ${err instanceof Error ? err.message : String(err)}`, this.clock.now());
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new GatewayClosedError();
  }
}
