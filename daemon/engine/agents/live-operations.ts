// The live operations TENEX clients expect beside the conversation events (docs/contract.md,
// docs/architecture.md "Live operations"), composed once: who works where (24133, from the runs
// under way), the stop requests that end that work (24134), and the conversation metadata (513),
// the announcements signed by the orchestrator.

import { decideStopPending } from "../../../src/stop-request.js";
import type { Clock, RelayGateway, Signer } from "../../../src/ports.js";
import type { NostrEvent } from "../../../src/types.js";
import type { Verdict } from "../../../adapters/verify/verify-protocol.js";
import type { LoadedProject } from "../../config/index.js";
import type { Logger } from "../../logger.js";
import type { IngestCounters } from "../ingest/counters.js";
import type { InboundRoute } from "../ingest/route.js";
import { MetadataPublisher } from "../relays/metadata-publisher.js";
import { OperationsStatus } from "../relays/operations-status.js";
import { SignedBroadcast } from "../relays/signed-broadcast.js";
import { ActiveRuns } from "./active-runs.js";
import { StopRequests } from "./stop-requests.js";

export interface LiveOperationsDeps {
  project: LoadedProject;
  gateway: RelayGateway;
  orchestrator: Signer;
  verifier: { check(ev: NostrEvent): Promise<Verdict> };
  route: InboundRoute;
  holds: (conversationId: string) => boolean;
  /** Whether the daemon runs the agent itself (else it is a mailbox agent). */
  runsItself: (pubkey: string) => boolean;
  counters: IngestCounters;
  clock: Clock;
  logger: Logger;
  problem: (kind: string, detail: string) => void;
}

export interface LiveOperations {
  active: ActiveRuns;
  stops: StopRequests;
  metadata: MetadataPublisher;
}

export function liveOperations(d: LiveOperationsDeps): LiveOperations {
  const { project, route } = d;
  const announce = new SignedBroadcast(d.gateway, d.orchestrator, (err) => d.problem("announcement_unsent", String(err)));
  const operations = new OperationsStatus(announce, project.info, d.clock);
  const active: ActiveRuns = new ActiveRuns((convId) => operations.changed(convId, active.working(convId)));
  const stops = new StopRequests({
    project: project.info, limits: project.config.limits, verifier: d.verifier, holds: d.holds, runs: active,
    counters: d.counters, clock: d.clock, logger: d.logger,
    mailbox: {
      isMailbox: (pk) => !d.runsItself(pk),
      stop: async (convId, agent, mark) =>
        (await route.inConversation(convId, (conv, now) => {
          const records = decideStopPending(conv, agent, mark, now);
          return { records, result: records.length > 0 };
        })).result,
    },
  });
  return { active, stops, metadata: new MetadataPublisher(announce, project.coordinate, d.clock) };
}
