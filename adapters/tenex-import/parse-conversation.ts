// From the JSON of one TENEX `<id>.json` to typed data the converter can trust. The file as a
// whole must have an id and a history; every item inside (transition, turn, agent state,
// execution time) is checked on its own, and one that does not fit is dropped with a warning
// instead of costing the whole conversation.

import type { z } from "zod";
import { PHASES, type Phase } from "../../src/types.js";
import {
  TenexAgentStateSchema, TenexConversationSchema, TenexExecutionTimeSchema, TenexPhaseTransitionSchema,
  TenexTurnSchema, describeZodError,
  type TenexAgentState, type TenexExecutionTime, type TenexPhaseTransition, type TenexTurn,
} from "./tenex-schema.js";

/** The file is not a TENEX conversation at all. */
export class TenexFileFormatError extends Error {
  override name = "TenexFileFormatError";
  constructor(readonly reason: string) {
    super(reason);
  }
}

export type PhasedTransition = Omit<TenexPhaseTransition, "from" | "to"> & { from: Phase; to: Phase };
export type PhasedTurn = Omit<TenexTurn, "phase"> & { phase: Phase };

export interface ParsedConversation {
  id: string;
  title: string;
  /** The phase TENEX had the conversation in, when it is one tenexd knows. */
  phase?: Phase;
  /** Raw entries: decoded and verified one by one by the importer. */
  history: unknown[];
  transitions: PhasedTransition[];
  turns: PhasedTurn[];
  /** Keyed by agent slug, in file order. */
  agentStates: [string, TenexAgentState][];
  executionTime?: TenexExecutionTime;
  readFiles: string[];
}

/** TENEX wrote phases in either case depending on its version. */
export function normalizePhase(text: string): Phase | undefined {
  const lower = text.toLowerCase();
  return (PHASES as readonly string[]).includes(lower) ? (lower as Phase) : undefined;
}

function items<T>(schema: z.ZodType<T>, list: readonly unknown[], what: string, warn: (m: string) => void): T[] {
  const out: T[] = [];
  list.forEach((item, i) => {
    const r = schema.safeParse(item);
    if (r.success) out.push(r.data);
    else warn(`${what} #${i + 1} dropped: ${describeZodError(r.error)}`);
  });
  return out;
}

function phased<T extends { phase: string }>(list: T[], warn: (m: string) => void): (Omit<T, "phase"> & { phase: Phase })[] {
  const out: (Omit<T, "phase"> & { phase: Phase })[] = [];
  for (const item of list) {
    const phase = normalizePhase(item.phase);
    if (phase) out.push({ ...item, phase });
    else warn(`turn with unknown phase "${item.phase}" dropped`);
  }
  return out;
}

function transitionsOf(list: TenexPhaseTransition[], warn: (m: string) => void): PhasedTransition[] {
  const out: PhasedTransition[] = [];
  for (const t of list) {
    const from = normalizePhase(t.from);
    const to = normalizePhase(t.to);
    if (from && to) out.push({ ...t, from, to });
    else warn(`phase transition ${t.from}→${t.to} dropped: unknown phase`);
  }
  return out;
}

/** Typed conversation plus warnings about the items left out. Throws TenexFileFormatError. */
export function parseConversation(json: unknown): { conversation: ParsedConversation; warnings: string[] } {
  const top = TenexConversationSchema.safeParse(json);
  if (!top.success) throw new TenexFileFormatError(`not a TENEX conversation: ${describeZodError(top.error)}`);
  const f = top.data;
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);

  const phase = f.phase === undefined ? undefined : normalizePhase(f.phase);
  if (f.phase !== undefined && !phase) warn(`unknown phase "${f.phase}" ignored`);
  const states = Object.entries(f.agentStates).flatMap(([slug, raw]): [string, TenexAgentState][] => {
    const r = TenexAgentStateSchema.safeParse(raw);
    if (r.success) return [[slug, r.data]];
    warn(`agent state of ${slug} dropped: ${describeZodError(r.error)}`);
    return [];
  });
  let executionTime: TenexExecutionTime | undefined;
  if (f.executionTime !== undefined) {
    const r = TenexExecutionTimeSchema.safeParse(f.executionTime);
    if (r.success) executionTime = r.data;
    else warn(`executionTime dropped: ${describeZodError(r.error)}`);
  }

  const conversation: ParsedConversation = {
    id: f.id,
    title: f.title,
    ...(phase ? { phase } : {}),
    history: f.history,
    transitions: transitionsOf(items(TenexPhaseTransitionSchema, f.phaseTransitions, "phase transition", warn), warn),
    turns: phased(items(TenexTurnSchema, f.orchestratorTurns, "orchestrator turn", warn), warn),
    agentStates: states,
    ...(executionTime ? { executionTime } : {}),
    readFiles: [...new Set([...(f.metadata.readFiles ?? []), ...(f.readFiles ?? [])])],
  };
  return { conversation, warnings };
}
