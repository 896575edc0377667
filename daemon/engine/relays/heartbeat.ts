// The kind 24010 status heartbeat TENEX clients expect (project `a`, `p` the owner and the
// whitelisted users, one `agent` tag per agent), signed by the orchestrator. Ephemeral:
// published, never logged.

import { buildStatusHeartbeat } from "../../../src/agent-events/index.js";
import type { RelayGateway, Signer } from "../../../src/ports.js";
import type { ProjectInfo } from "../../../src/types.js";

export async function publishHeartbeat(gateway: RelayGateway, orchestrator: Signer, project: ProjectInfo, nowMs: number): Promise<string[]> {
  const unsigned = buildStatusHeartbeat({
    project: project.coordinate, people: project.whitelist,
    agents: project.agents.map((a) => ({ pubkey: a.pubkey, slug: a.slug })), createdAt: Math.floor(nowMs / 1000),
  });
  return gateway.publish(await orchestrator.sign(unsigned));
}
