// What an agent's output becomes (docs/agent-protocol.md): a route opens an orchestrator turn
// (through the phase transition table: a refused phase routes nobody), a phase request goes
// through the same table, and reply/complete become the agent's signed event, in the dialect of
// its trigger unless the project chose one (src/dialect.ts).

import { buildCompletion, buildNoteCompletion, buildNoteReply, buildReply } from "./agent-events/index.js";
import { replyDialect, type DialectSetting } from "./dialect.js";
import type { Conversation } from "./conversation-state.js";
import { handoffMessage, decideHandoff } from "./messaging/handoff.js";
import { decidePhaseChange } from "./phases.js";
import type { NewRecord } from "./records.js";
import { decideStartTurn } from "./turns.js";
import type { AgentInfo, NostrEvent, Phase, UnsignedEvent } from "./types.js";
import type { AgentOutput } from "./agent-output.js";
import { rootRefOf } from "./root-ref.js";

export interface OutputContext {
  conv: Conversation;
  agent: AgentInfo;
  trigger: NostrEvent;
  agents: readonly AgentInfo[];
  orchestrator: AgentInfo;
  turnTimeoutMs: number;
  netTimeSecs: number;
  now: number;
  /** The id a route's new turn gets (a fresh one per output: the caller draws it). */
  turnId: string;
  /** The project's dialect setting (config.json `dialect`). */
  dialect?: DialectSetting;
}

export interface OutputPlan {
  /** State changes to commit before the event is published. */
  records: NewRecord[];
  /** The event to sign and publish as the agent, if any. */
  event?: UnsignedEvent;
  /** Set when a requested phase change was refused (routing then stops). */
  refused?: string;
}

const pubkeysOf = (slugs: readonly string[] | undefined, agents: readonly AgentInfo[]) =>
  (slugs ?? []).map((s) => agents.find((a) => a.slug === s)?.pubkey).filter((p): p is string => p !== undefined);

/** Phase records for a request, applied to a scratch copy of the phase so later steps see it. */
function phaseStep(c: OutputContext, to: Phase, message: string, reason: string, turn?: number): { records: NewRecord[]; refused?: string } {
  const rec = decidePhaseChange(c.conv.phase, {
    to, by: c.agent.pubkey, message, reason, eventId: c.trigger.id, ...(turn !== undefined ? { turn } : {}),
  }, c.now);
  return rec.t === "phase_refused" ? { records: [rec], refused: rec.reason } : { records: [rec] };
}

export function planOutput(out: AgentOutput, c: OutputContext): OutputPlan {
  const records: NewRecord[] = [];
  let phase = c.conv.phase.phase;
  let recipients = pubkeysOf(out.recipients, c.agents);

  if (out.route) {
    const turn = c.conv.turns.turns.length + 1;
    if (out.route.phase !== phase || out.phase) {
      const message = out.phase?.message ?? handoffMessage({ from: phase, to: out.route.phase, turn, summary: out.route.reason });
      const step = phaseStep(c, out.route.phase, message, out.route.reason, turn);
      records.push(...step.records);
      if (step.refused) return { records, refused: step.refused };
    }
    phase = out.route.phase;
    const routed = pubkeysOf(out.route.agents, c.agents);
    records.push(...decideStartTurn(c.conv.turns, {
      turnId: c.turnId, phase, agents: routed, reason: out.route.reason, timeoutMs: c.turnTimeoutMs,
    }, c.now));
    recipients = routed;
  } else if (out.phase) {
    const { record } = decideHandoff(c.conv, { to: out.phase.to, by: c.agent.pubkey, summary: out.phase.message, eventId: c.trigger.id }, c.now);
    records.push(record);
    if (record.t === "phase_refused") return { records, refused: record.reason };
    phase = out.phase.to;
  }

  const content = out.reply ?? out.route?.reason ?? out.phase?.message;
  if (content === undefined && !out.complete) return { records };
  const base = {
    root: rootRefOf(c.conv, c.trigger), parent: c.trigger, project: c.conv.project, phase,
    content: content ?? "done", session: out.session, triggeringEventId: c.trigger.id,
    netTimeSecs: c.netTimeSecs, createdAt: Math.floor(c.now / 1000),
    ...(out.priority ? { priority: out.priority } : {}), ...(out.type ? { type: out.type } : {}),
  };
  const kind1 = replyDialect(c.dialect, c.trigger) === "kind1";
  const event = out.complete
    ? (kind1 ? buildNoteCompletion : buildCompletion)({ ...base, orchestrator: c.orchestrator.pubkey })
    : (kind1 ? buildNoteReply : buildReply)({ ...base, recipients });
  return { records, event };
}
