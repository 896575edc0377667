// Per-relay health as the Director sees it: is it up, when did it last deliver, what went
// wrong last, how often it came back.

import type { RelayHealth } from "../../src/daemon-status.js";

/** Mutable health records of a fixed set of relays; snapshots are copies. */
export class RelayHealthBook {
  private readonly records = new Map<string, RelayHealth>();
  private readonly everConnected = new Set<string>();

  constructor(urls: readonly string[]) {
    for (const url of urls) this.records.set(url, { url, connected: false, reconnects: 0, eventsReceived: 0, auth: { asked: false, accepted: null } });
  }

  /** Records a connection; true when it is a reconnection (the relay was connected before). */
  connected(url: string): boolean {
    const r = this.get(url);
    r.connected = true;
    const again = this.everConnected.has(url);
    if (again) r.reconnects++;
    this.everConnected.add(url);
    return again;
  }

  disconnected(url: string, reason: string, at: number): void {
    const r = this.get(url);
    r.connected = false;
    this.error(url, reason, at);
  }

  error(url: string, reason: string, at: number): void {
    const r = this.get(url);
    r.lastError = reason;
    r.lastErrorAt = at;
  }

  event(url: string, at: number): void {
    const r = this.get(url);
    r.eventsReceived++;
    r.lastEventAt = at;
  }

  authAsked(url: string): void {
    this.get(url).auth.asked = true;
  }

  /** The relay's answer to an AUTH: accepted, or refused with its reason. */
  authAnswered(url: string, accepted: boolean, reason?: string): void {
    const r = this.get(url);
    r.auth = { asked: true, accepted, ...(accepted || reason === undefined ? {} : { refusal: reason }) };
  }

  isConnected(url: string): boolean {
    return this.get(url).connected;
  }

  snapshot(): RelayHealth[] {
    return [...this.records.values()].map((r) => ({ ...r, auth: { ...r.auth } }));
  }

  private get(url: string): RelayHealth {
    const r = this.records.get(url);
    if (!r) throw new Error(`unknown relay ${url}`);
    return r;
  }
}
