// Who may open a connection to the embedded relay: no web page unless its origin is listed, and
// no more connections than the limits, in total, from one address and per second.

import type { BucketRate } from "./token-bucket.js";

export interface ConnectionLimits {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** New connections accepted per second, all addresses together (a bucket holding 2 s of it). */
  newConnectionsPerSecond: number;
}

/** The daemon's defaults (config.json `embeddedRelay`): every local client shares 127.0.0.1. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 128, maxConnectionsPerAddress: 64, newConnectionsPerSecond: 50 };

export type UpgradeRefusalReason = "origin_refused" | "too_many_connections" | "too_many_from_address" | "connection_rate";

export interface UpgradeRefusal {
  /** The HTTP status the upgrade is answered with. */
  status: 403 | 503;
  reason: UpgradeRefusalReason;
  message: string;
}

export interface UpgradeRequest {
  /** The `Origin` header: browsers always send one, other clients none. */
  origin: string | undefined;
  address: string;
}

/** Origins compare as browsers send them: scheme://host[:port], lowercase, no trailing slash. */
export const normaliseOrigin = (origin: string): string => origin.trim().toLowerCase().replace(/\/+$/, "");

/** The bucket new connections are taken from. */
export const newConnectionRate = (limits: ConnectionLimits): BucketRate => ({ capacity: 2 * limits.newConnectionsPerSecond, perSecond: limits.newConnectionsPerSecond });

/**
 * Why an upgrade is refused, or undefined when it is let in. `open` counts the connections held
 * now; `rateOk` says whether the new-connection bucket had a token for it.
 */
export function refuseUpgrade(
  req: UpgradeRequest, open: { total: number; fromAddress: number }, rateOk: boolean, limits: ConnectionLimits, allowedOrigins: readonly string[],
): UpgradeRefusal | undefined {
  if (req.origin !== undefined && !allowedOrigins.map(normaliseOrigin).includes(normaliseOrigin(req.origin))) {
    return { status: 403, reason: "origin_refused", message: `origin ${JSON.stringify(req.origin)} is not allowed (embeddedRelay.allowedOrigins)` };
  }
  if (!rateOk) return { status: 503, reason: "connection_rate", message: `more than ${limits.newConnectionsPerSecond} new connections a second` };
  if (open.total >= limits.maxConnections) {
    return { status: 503, reason: "too_many_connections", message: `${open.total} connections open, limit ${limits.maxConnections}` };
  }
  if (open.fromAddress >= limits.maxConnectionsPerAddress) {
    return {
      status: 503, reason: "too_many_from_address",
      message: `${open.fromAddress} connections from ${req.address}, limit ${limits.maxConnectionsPerAddress}`,
    };
  }
  return undefined;
}
