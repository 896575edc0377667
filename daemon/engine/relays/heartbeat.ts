// The kind 24010 status heartbeat TENEX clients expect (project `a`, one `agent` tag per
// agent), signed by the orchestrator. Ephemeral: published, never logged.

import { buildStatusHeartbeat } from "../../../src/agent-events/index.js";
import type { RelayGateway, Signer } from "../../../src/ports.js";
import type { AgentInfo } from "../../../src/types.js";

export async function publishHeartbeat(gateway: RelayGateway, orchestrator: Signer, coordinate: string, agents: readonly AgentInfo[], nowMs: number): Promise<string[]> {
  const unsigned = buildStatusHeartbeat({
    project: coordinate, agents: agents.map((a) => ({ pubkey: a.pubkey, slug: a.slug })), createdAt: Math.floor(nowMs / 1000),
  });
  return gateway.publish(await orchestrator.sign(unsigned));
}
