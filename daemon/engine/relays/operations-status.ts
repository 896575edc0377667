// The operations status (kind 24133) TENEX clients show next to a conversation: which agents
// work on it now. Published when that changes (a run starts, the last run of an agent ends: an
// empty `p` list says nobody works on it any more), signed by the orchestrator like the 24010
// heartbeat. Ephemeral: published in order, straight to the relays, never logged.

import { buildOperationsStatus } from "../../../src/agent-events/index.js";
import type { Clock, RelayGateway, Signer } from "../../../src/ports.js";
import type { ProjectInfo } from "../../../src/types.js";

export interface OperationsStatusDeps {
  gateway: RelayGateway;
  signer: Signer;
  project: ProjectInfo;
  clock: Clock;
  onError: (err: unknown) => void;
}

export class OperationsStatus {
  // One after the other: a start and an end in the same second must reach clients in that order.
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: OperationsStatusDeps) {}

  changed(conversationId: string, working: readonly string[]): void {
    const unsigned = buildOperationsStatus({
      project: this.d.project.coordinate, conversationId, humans: this.d.project.whitelist, working,
      createdAt: Math.floor(this.d.clock.now() / 1000),
    });
    this.last = this.last.then(async () => {
      try {
        await this.d.gateway.publish(await this.d.signer.sign(unsigned));
      } catch (err) {
        this.d.onError(err);
      }
    });
  }

  /** Resolves once everything asked so far has been sent (or failed). */
  idle(): Promise<unknown> {
    return this.last;
  }
}
