// relay-main's command line. Without protection flags the relay is open, as before. Each flag
// turns one protection on; the limits not given take the daemon's defaults.
//
//   --port N --db PATH                 where (or RELAY_PORT, RELAY_DB)
//   --max-event-bytes N                frame, request and event size limits (transport-limits.ts)
//   --allowed-origins A,B              web pages let in (empty: none); without: any
//   --members HEX,HEX                  only these keys write; reads need AUTH by one of them
//   --auth reads|all|off               what needs AUTH (default with --members: reads)
//   --trusted HEX,HEX                  keys whose connections are not rate or buffer limited
//   --max-connections N  --max-connections-per-address N  --new-connections-per-second N
//   --messages-per-second N  --bytes-per-second N  --max-subscriptions N  --max-buffered-bytes N
//   --inbound-bytes-per-second N       all connections but --trusted ones together (paused over it)

import { parseArgs } from "node:util";
import { AUTH_MODES, type AuthMode } from "../../src/relay-guard/access.js";
import { DEFAULT_CONNECTION_LIMITS } from "../../src/relay-guard/admission.js";
import { DEFAULT_CLIENT_LIMITS, DEFAULT_INBOUND_BYTES_PER_SECOND } from "../../src/relay-guard/client-limits.js";
import { HEX64 } from "../../src/types.js";
import type { RelayGuardOptions } from "./embedded-relay.js";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface RelayArgs {
  port: number;
  dbPath: string;
  guard: RelayGuardOptions;
}

const NUMERIC = [
  "max-event-bytes", "max-connections", "max-connections-per-address", "new-connections-per-second",
  "messages-per-second", "bytes-per-second", "max-subscriptions", "max-buffered-bytes", "inbound-bytes-per-second",
] as const;

export function parseRelayArgs(argv: readonly string[], env: NodeJS.ProcessEnv): RelayArgs {
  let values: Record<string, string | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: Object.fromEntries(["port", "db", "allowed-origins", "members", "auth", "trusted", ...NUMERIC].map((n) => [n, { type: "string" }])),
      strict: true,
    }).values as Record<string, string | undefined>;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const portText = values.port ?? env.RELAY_PORT ?? "0";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer 0-65535, got "${portText}"`);
  const dbPath = values.db ?? env.RELAY_DB;
  if (!dbPath) throw new UsageError("--db PATH (or RELAY_DB) is required: the SQLite file of the relay");
  return { port, dbPath, guard: guardOf(values) };
}

function guardOf(v: Record<string, string | undefined>): RelayGuardOptions {
  const n = (name: (typeof NUMERIC)[number]) => {
    const text = v[name];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive integer, got "${text}"`);
    return value;
  };
  const guard: RelayGuardOptions = {};
  const maxEventBytes = n("max-event-bytes");
  if (maxEventBytes !== undefined) guard.maxEventBytes = maxEventBytes;
  const maxConnections = n("max-connections");
  const perAddress = n("max-connections-per-address");
  const perSecond = n("new-connections-per-second");
  if (maxEventBytes !== undefined || maxConnections !== undefined || perAddress !== undefined || perSecond !== undefined) {
    guard.connections = {
      maxConnections: maxConnections ?? DEFAULT_CONNECTION_LIMITS.maxConnections,
      maxConnectionsPerAddress: perAddress ?? DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress,
      newConnectionsPerSecond: perSecond ?? DEFAULT_CONNECTION_LIMITS.newConnectionsPerSecond,
    };
  }
  const client = { messagesPerSecond: n("messages-per-second"), bytesPerSecond: n("bytes-per-second"), maxSubscriptions: n("max-subscriptions"), maxBufferedBytes: n("max-buffered-bytes") };
  if (maxEventBytes !== undefined || Object.values(client).some((x) => x !== undefined)) {
    guard.client = {
      messagesPerSecond: client.messagesPerSecond ?? DEFAULT_CLIENT_LIMITS.messagesPerSecond,
      bytesPerSecond: client.bytesPerSecond ?? DEFAULT_CLIENT_LIMITS.bytesPerSecond,
      maxSubscriptions: client.maxSubscriptions ?? DEFAULT_CLIENT_LIMITS.maxSubscriptions,
      maxBufferedBytes: client.maxBufferedBytes ?? DEFAULT_CLIENT_LIMITS.maxBufferedBytes,
    };
  }
  const inbound = n("inbound-bytes-per-second");
  if (inbound !== undefined || maxEventBytes !== undefined) guard.inboundBytesPerSecond = inbound ?? DEFAULT_INBOUND_BYTES_PER_SECOND;
  if (v["allowed-origins"] !== undefined) guard.allowedOrigins = list(v["allowed-origins"]);
  const members = v.members !== undefined ? keys("members", v.members) : undefined;
  const auth = v.auth;
  if (auth !== undefined && !(AUTH_MODES as readonly string[]).includes(auth)) throw new UsageError(`--auth must be one of ${AUTH_MODES.join(", ")}, got "${auth}"`);
  if (members !== undefined || auth !== undefined) guard.access = { auth: (auth as AuthMode | undefined) ?? "reads", ...(members ? { members } : {}) };
  if (v.trusted !== undefined) guard.trusted = keys("trusted", v.trusted);
  return guard;
}

const list = (text: string): string[] => text.split(",").map((s) => s.trim()).filter(Boolean);

function keys(flag: string, text: string): Set<string> {
  const out = list(text);
  const bad = out.find((k) => !HEX64.test(k));
  if (bad !== undefined) throw new UsageError(`--${flag} takes 64-hex public keys, comma-separated; got "${bad}"`);
  return new Set(out);
}
