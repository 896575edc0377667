// The operations status (kind 24133) TENEX clients show next to a conversation: which agents
// work on it now. Published when that changes (a run starts, the last run of an agent ends: an
// empty `p` list says nobody works on it any more), signed by the orchestrator like the 24010
// heartbeat. Ephemeral: in order, straight to the relays, never logged (signed-broadcast.ts).

import { buildOperationsStatus } from "../../../src/agent-events/index.js";
import type { Clock } from "../../../src/ports.js";
import type { ProjectInfo } from "../../../src/types.js";
import type { SignedBroadcast } from "./signed-broadcast.js";

export class OperationsStatus {
  constructor(private readonly out: SignedBroadcast, private readonly project: ProjectInfo, private readonly clock: Clock) {}

  changed(conversationId: string, working: readonly string[]): void {
    this.out.send(`24133:${conversationId}`, buildOperationsStatus({
      project: this.project.coordinate, conversationId, humans: this.project.whitelist, working,
      createdAt: Math.floor(this.clock.now() / 1000),
    }));
  }
}
