// The embedded relay's protections from the configuration: it is the project's relay, so only
// the project's people (owner, whitelist, agents) write to it and, once authenticated, read from
// it; the daemon's own AUTH key is trusted (its connections are not rate or buffer limited).

import type { RelayGuardOptions } from "../../../adapters/relay/embedded-relay.js";
import type { LoadedProject } from "../../config/index.js";

export function embeddedRelayGuard(project: LoadedProject): RelayGuardOptions {
  const { embeddedRelay: r, limits } = project.config;
  const members = new Set([project.owner.pubkey, ...project.info.whitelist, ...project.agents.map((a) => a.pubkey)]);
  return {
    maxEventBytes: limits.maxEventBytes,
    connections: { maxConnections: r.maxConnections, maxConnectionsPerAddress: r.maxConnectionsPerAddress, newConnectionsPerSecond: r.newConnectionsPerSecond },
    client: {
      messagesPerSecond: r.messagesPerSecond, bytesPerSecond: r.bytesPerSecond,
      maxSubscriptions: r.maxSubscriptionsPerClient, maxBufferedBytes: r.maxBufferedBytes,
    },
    inboundBytesPerSecond: r.inboundBytesPerSecond,
    allowedOrigins: r.allowedOrigins,
    access: { auth: r.auth, members },
    trusted: new Set([project.relayAuth.pubkey]),
  };
}
