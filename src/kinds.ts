// Event kinds of the TENEX contract (docs/contract.md) and their classification.

export const KIND = {
  PROFILE: 0,
  CONVERSATION_ROOT: 11,
  REPLY: 1111,
  TASK: 1934,
  STATUS: 24010,
  PROJECT: 31933,
} as const;

export type EventClass = "profile" | "root" | "reply" | "task" | "status" | "project" | "unknown";

const CLASS_BY_KIND: ReadonlyMap<number, EventClass> = new Map([
  [KIND.PROFILE, "profile"],
  [KIND.CONVERSATION_ROOT, "root"],
  [KIND.REPLY, "reply"],
  [KIND.TASK, "task"],
  [KIND.STATUS, "status"],
  [KIND.PROJECT, "project"],
]);

export const classifyKind = (kind: number): EventClass => CLASS_BY_KIND.get(kind) ?? "unknown";

/** Kinds that start a conversation (their event id is the conversation id). */
export const startsConversation = (kind: number): boolean =>
  kind === KIND.CONVERSATION_ROOT || kind === KIND.TASK;

/** Kinds that live inside a conversation. */
export const isConversationKind = (kind: number): boolean =>
  startsConversation(kind) || kind === KIND.REPLY;

export const KNOWN_KINDS: readonly number[] = [...CLASS_BY_KIND.keys()];
