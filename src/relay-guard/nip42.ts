// NIP-42 AUTH events: what a client signs to answer a challenge, and what the relay checks
// besides the id and signature (done where the crypto lives).

import type { UnsignedEvent } from "../types.js";

export const AUTH_KIND = 22242;
/** How far an AUTH event's created_at may be from the relay's clock. */
export const AUTH_WINDOW_SECS = 10 * 60;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/** The event a client signs to answer `challenge` from the relay at `relayUrl`. */
export const authEventTemplate = (challenge: string, relayUrl: string, nowSecs: number): UnsignedEvent => ({
  kind: AUTH_KIND,
  created_at: nowSecs,
  tags: [["relay", relayUrl], ["challenge", challenge]],
  content: "",
});

export interface AuthCheckable {
  kind: number;
  created_at: number;
  tags: string[][];
}

/**
 * What is wrong with an AUTH event answering `challenge` for the relay listening on
 * `host`:`port`, or undefined. Any loopback name stands for a loopback host.
 */
export function authEventProblem(ev: AuthCheckable, challenge: string, host: string, port: number, nowSecs: number): string | undefined {
  if (ev.kind !== AUTH_KIND) return `invalid: an AUTH event has kind ${AUTH_KIND}, not ${ev.kind}`;
  const tag = (name: string) => ev.tags.find((t) => t[0] === name)?.[1];
  if (tag("challenge") !== challenge) return "invalid: the challenge tag is not this connection's challenge";
  if (!relayMatches(tag("relay"), host, port)) return `invalid: the relay tag does not name this relay (ws://${host}:${port})`;
  if (Math.abs(ev.created_at - nowSecs) > AUTH_WINDOW_SECS) return `invalid: created_at is more than ${AUTH_WINDOW_SECS} s from the relay's clock`;
  return undefined;
}

function relayMatches(relay: string | undefined, host: string, port: number): boolean {
  if (relay === undefined || !URL.canParse(relay)) return false;
  const url = new URL(relay);
  if (url.protocol !== "ws:" && url.protocol !== "wss:") return false;
  const sameHost = url.hostname === host || (LOOPBACK.has(url.hostname) && LOOPBACK.has(host));
  return sameHost && Number(url.port || (url.protocol === "wss:" ? 443 : 80)) === port;
}
