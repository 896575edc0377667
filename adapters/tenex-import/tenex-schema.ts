// The on-disk format of TENEX's `.tenex/conversations/` folder, read for migration only.
// Shapes follow TENEX's own persistence schemas (FileSystemAdapter, mid-2025): `metadata.json`
// indexes the conversations, `<id>.json` holds one, `archive/<id>.json` an archived one.
// Leniency matches TENEX's where it was lenient (phase case, optional fields) and goes further
// where one bad item would otherwise cost a whole conversation: history entries, agent states,
// transitions and turns are checked one by one by the caller, not here. Unknown fields are dropped.

import { z } from "zod";

/** Phases are free strings here: TENEX wrote them lower- or uppercase depending on its version. */
const phaseText = z.string();

/** Milliseconds in TENEX's own state (Date.now()); completions also carried event seconds. */
const timestamp = z.number().finite();

export const TenexPhaseTransitionSchema = z.object({
  from: phaseText,
  to: phaseText,
  message: z.string().default(""),
  timestamp,
  agentPubkey: z.string(),
  agentName: z.string().default(""),
  reason: z.string().optional(),
});

export const TenexCompletionSchema = z.object({
  agent: z.string(),
  message: z.string().default(""),
  timestamp: timestamp.optional(),
});

export const TenexTurnSchema = z.object({
  turnId: z.string().min(1),
  timestamp,
  phase: phaseText,
  agents: z.array(z.string()),
  completions: z.array(TenexCompletionSchema).default([]),
  reason: z.string().optional(),
  isCompleted: z.boolean().default(false),
});

export const TenexAgentStateSchema = z.object({
  lastProcessedMessageIndex: z.number().int().min(0),
  claudeSessionId: z.string().optional(),
  // Later TENEX kept one session per phase instead of one per conversation.
  claudeSessionsByPhase: z.record(z.string(), z.string()).optional(),
});

export const TenexExecutionTimeSchema = z.object({
  totalSeconds: z.number().finite().min(0),
  currentSessionStart: timestamp.optional(),
  isActive: z.boolean().default(false),
  lastUpdated: timestamp,
});

/** One `<id>.json`. Lists stay `unknown[]` so one malformed item is reported, not fatal. */
export const TenexConversationSchema = z.object({
  id: z.string(),
  title: z.string().default(""),
  phase: phaseText.optional(),
  history: z.array(z.unknown()),
  agentStates: z.record(z.string(), z.unknown()).default({}),
  phaseTransitions: z.array(z.unknown()).default([]),
  orchestratorTurns: z.array(z.unknown()).default([]),
  executionTime: z.unknown().optional(),
  metadata: z.object({ readFiles: z.array(z.string()).optional() }).loose().default({}),
  readFiles: z.array(z.string()).optional(),
});

export const TenexMetadataEntrySchema = z.object({
  id: z.string(),
  title: z.string().default(""),
  archived: z.boolean().optional(),
});

export const TenexMetadataFileSchema = z.object({
  conversations: z.array(z.unknown()),
});

export type TenexPhaseTransition = z.infer<typeof TenexPhaseTransitionSchema>;
export type TenexCompletion = z.infer<typeof TenexCompletionSchema>;
export type TenexTurn = z.infer<typeof TenexTurnSchema>;
export type TenexAgentState = z.infer<typeof TenexAgentStateSchema>;
export type TenexExecutionTime = z.infer<typeof TenexExecutionTimeSchema>;
export type TenexConversation = z.infer<typeof TenexConversationSchema>;
export type TenexMetadataEntry = z.infer<typeof TenexMetadataEntrySchema>;

/** The first issue of a zod error, as one line: enough to tell a user what to look at. */
export function describeZodError(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid";
  const where = first.path.length > 0 ? first.path.join(".") : "(top level)";
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : "";
  return `${where}: ${first.message}${more}`;
}
