// Stop requests (kind 24134) from the relays' live subscription: checked like any inbound event
// (edge checks, id and signature), then decided (src/stop-request.ts: the project's people, its
// conversation, its agents); an honoured one ends the named agents' runs on that conversation
// (the runner kills a command's process group and records the run as stopped). A refused one is
// counted with its reason in the ingest counters, as any refused event is. A mailbox agent has
// no run to end: its pending work there is marked stopped (src/stop-request.ts). Ephemeral: a
// stop is not an event of the conversation; the stopped run's record, or the mailbox agent's
// read mark naming it, is what the log keeps of it.

import { validateInbound, type Limits } from "../../../src/edge/validate-inbound.js";
import { KIND } from "../../../src/kinds.js";
import type { Clock } from "../../../src/ports.js";
import { decideStop } from "../../../src/stop-request.js";
import type { NostrEvent, ProjectInfo } from "../../../src/types.js";
import type { Verdict } from "../../../adapters/verify/verify-protocol.js";
import type { Logger } from "../../logger.js";
import type { IngestCounters } from "../ingest/counters.js";
import type { StopMark } from "./active-runs.js";

export interface StopRequestDeps {
  project: ProjectInfo;
  limits: Limits;
  verifier: { check(ev: NostrEvent): Promise<Verdict> };
  /** Whether a conversation is held here. */
  holds: (conversationId: string) => boolean;
  /** The runs under way: a stop ends the named agent's (active-runs.ts). */
  runs: { stop(conversationId: string, agent: string, mark: StopMark): number };
  /** Mailbox agents (they pull their work): a stop marks their pending work stopped; resolves with whether there was any. */
  mailbox?: { isMailbox(agent: string): boolean; stop(conversationId: string, agent: string, mark: StopMark): Promise<boolean> };
  counters: IngestCounters;
  clock: Clock;
  logger: Logger;
}

// Ids of the requests already taken (several relays deliver the same one): enough for any burst.
const REMEMBERED = 1_000;

export class StopRequests {
  private readonly taken = new Set<string>();

  constructor(private readonly d: StopRequestDeps) {}

  /** Takes one delivered stop request; resolves with how many runs it ended (or mailbox agents' pending work it marked). */
  async take(raw: unknown, relay?: string): Promise<number> {
    const now = this.d.clock.now();
    const edge = validateInbound(raw, this.d.limits, [KIND.STOP], Math.floor(now / 1000));
    if (!edge.ok) return this.refuse(edge.reason, edge.detail, undefined, relay);
    const ev = edge.event;
    if (this.taken.has(ev.id)) return 0;
    const verdict = await this.d.verifier.check(ev).catch(() => "verify_failed" as const);
    if (verdict !== "ok") return this.refuse(verdict, "the stop request's id or signature does not verify", ev.id, relay);
    const decision = decideStop(ev, this.d.project, this.d.holds, Math.floor(now / 1000));
    if (!decision.stop) return this.refuse(decision.reason, decision.detail, ev.id, relay);
    this.remember(ev.id);
    const mark = { eventId: ev.id, by: ev.pubkey };
    let stopped = 0;
    for (const agent of decision.agents) {
      if (this.d.mailbox?.isMailbox(agent)) stopped += (await this.d.mailbox.stop(decision.conversationId, agent, mark)) ? 1 : 0;
      else stopped += this.d.runs.stop(decision.conversationId, agent, mark);
    }
    this.d.logger.info("stop request", { conversation: decision.conversationId, request: ev.id, by: ev.pubkey, agents: decision.agents.length, stopped });
    if (stopped === 0) this.d.counters.ignore("stop_nothing_running");
    return stopped;
  }

  private refuse(reason: string, detail: string, eventId: string | undefined, relay: string | undefined): number {
    this.d.counters.reject({ at: this.d.clock.now(), reason, detail, ...(eventId ? { eventId } : {}), ...(relay ? { relay } : {}) });
    return 0;
  }

  private remember(id: string): void {
    this.taken.add(id);
    if (this.taken.size > REMEMBERED) this.taken.delete(this.taken.values().next().value!);
  }
}
