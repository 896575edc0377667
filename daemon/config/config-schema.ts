// config.json: the project, who may use it, where its relays are, and the daemon's limits.
// Every default lives here; docs/config.md describes each field.

import { z } from "zod";
import { DIALECT_SETTINGS } from "../../src/dialect.js";
import { AUTH_MODES } from "../../src/relay-guard/access.js";
import { DEFAULT_CONNECTION_LIMITS } from "../../src/relay-guard/admission.js";
import { DEFAULT_CLIENT_LIMITS, DEFAULT_INBOUND_BYTES_PER_SECOND } from "../../src/relay-guard/client-limits.js";
import { LOG_LEVELS } from "../logger.js";
import { exactlyOne, loopbackHost, origin, port, positiveInt, pubkey, relativePath, strict, wsUrl } from "./primitives.js";

const SLUG_CHARS = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const owner = strict({ pubkey: pubkey.optional(), keyFile: relativePath.optional() })
  .superRefine(exactlyOne("pubkey", "keyFile", '{ "pubkey": "npub1…" } or { "keyFile": "keys/owner.nsec" }'));

const project = strict({
  d: z.string().regex(SLUG_CHARS, {
    error: 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit, e.g. "my-project"',
  }),
  title: z.string().min(1, { error: 'must not be empty, e.g. "My project"' }),
  owner,
});

const limits = strict({
  maxContentBytes: positiveInt.default(65_536),
  maxTags: positiveInt.default(200),
  maxTagValueBytes: positiveInt.default(1_024),
  maxEventBytes: positiveInt.default(131_072),
  unreadThreshold: positiveInt.default(50),
  turnTimeoutSeconds: positiveInt.default(600),
  repeatRoutingThreshold: positiveInt.default(3),
  stallThreshold: positiveInt.default(3),
  maxConcurrentConversations: positiveInt.default(8),
  /** Memory the cached conversations may hold (approximate); 32 MiB: docs/config.md says why. */
  cacheBytes: positiveInt.default(32 * 1024 * 1024),
});

const embeddedRelay = strict({
  port: port.default(0),
  host: loopbackHost.default("127.0.0.1"),
  /** Run the relay inside the daemon's process instead of a process of its own (docs/architecture.md). */
  inProcess: z.boolean({ error: "must be true or false" }).default(false),
  /** What needs NIP-42 AUTH by one of the project's people: reads (REQ, COUNT), everything, or nothing. */
  auth: z.enum(AUTH_MODES, { error: `must be one of ${AUTH_MODES.map((m) => `"${m}"`).join(", ")}` }).default("reads"),
  /** Web pages (by origin) allowed to connect; any other browser connection is refused. */
  allowedOrigins: z.array(origin).default([]),
  maxConnections: positiveInt.default(DEFAULT_CONNECTION_LIMITS.maxConnections),
  maxConnectionsPerAddress: positiveInt.default(DEFAULT_CONNECTION_LIMITS.maxConnectionsPerAddress),
  newConnectionsPerSecond: positiveInt.default(DEFAULT_CONNECTION_LIMITS.newConnectionsPerSecond),
  maxSubscriptionsPerClient: positiveInt.default(DEFAULT_CLIENT_LIMITS.maxSubscriptions),
  messagesPerSecond: positiveInt.default(DEFAULT_CLIENT_LIMITS.messagesPerSecond),
  bytesPerSecond: positiveInt.default(DEFAULT_CLIENT_LIMITS.bytesPerSecond),
  maxBufferedBytes: positiveInt.default(DEFAULT_CLIENT_LIMITS.maxBufferedBytes),
  inboundBytesPerSecond: positiveInt.default(DEFAULT_INBOUND_BYTES_PER_SECOND),
});

export const configSchema = strict({
  project,
  whitelist: z.array(pubkey).default([]),
  /** Empty: the daemon runs its own embedded relay. */
  relays: z.array(wsUrl).default([]),
  embeddedRelay: embeddedRelay.prefault({}),
  /** Whose key answers relays' AUTH challenges: an agent's slug, or "owner"; default the orchestrator. */
  relayAuth: strict({ signer: z.string().min(1, { error: 'must be an agent\'s slug or "owner"' }).optional() }).prefault({}),
  api: strict({ port: port.default(0), host: loopbackHost.default("127.0.0.1") }).prefault({}),
  limits: limits.prefault({}),
  catchup: strict({ overlapSeconds: z.number().int().min(0, { error: "must be 0 or more" }).default(300) }).prefault({}),
  heartbeatSeconds: positiveInt.default(15),
  /** The dialect agents answer in: the trigger's own ("auto"), NIP-22 kind 1111, or kind 1 (src/dialect.ts). */
  dialect: z.enum(DIALECT_SETTINGS, { error: `must be one of ${DIALECT_SETTINGS.map((m) => `"${m}"`).join(", ")}` }).default("auto"),
  logLevel: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.map((l) => `"${l}"`).join(", ")}` }).default("info"),
});

/** config.json after parsing: defaults filled in, keys as hex, paths still relative. */
export type ParsedConfig = z.output<typeof configSchema>;
export type Limits = ParsedConfig["limits"];
