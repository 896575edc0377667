// Event kinds of the TENEX contract (docs/contract.md) and their classification.

export const KIND = {
  PROFILE: 0,
  /** Today's TENEX dialect: every conversation message (NIP-10 threads). */
  TEXT_NOTE: 1,
  CONVERSATION_ROOT: 11,
  /** Conversation metadata (title, summary, status label), published by the daemon. */
  METADATA: 513,
  REPLY: 1111,
  TASK: 1934,
  STATUS: 24010,
  /** Operations status (ephemeral): who is working on a conversation, published by the daemon. */
  OPERATIONS_STATUS: 24133,
  /** A stop request for the work on a conversation (ephemeral), from the project's people. */
  STOP: 24134,
  PROJECT: 31933,
} as const;

export type EventClass = "profile" | "note" | "root" | "reply" | "task" | "status" | "project" | "unknown";

const CLASS_BY_KIND: ReadonlyMap<number, EventClass> = new Map([
  [KIND.PROFILE, "profile"],
  [KIND.TEXT_NOTE, "note"],
  [KIND.CONVERSATION_ROOT, "root"],
  [KIND.REPLY, "reply"],
  [KIND.TASK, "task"],
  [KIND.STATUS, "status"],
  [KIND.PROJECT, "project"],
]);

export const classifyKind = (kind: number): EventClass => CLASS_BY_KIND.get(kind) ?? "unknown";

/**
 * Kinds that always start a conversation (their event id is the conversation id). A kind 1
 * starts one when it names no thread (src/conversation-of.ts `isRootEvent`).
 */
export const startsConversation = (kind: number): boolean =>
  kind === KIND.CONVERSATION_ROOT || kind === KIND.TASK;

/** Kinds that live inside a conversation, in either dialect. */
export const isConversationKind = (kind: number): boolean =>
  startsConversation(kind) || kind === KIND.REPLY || kind === KIND.TEXT_NOTE;

/** Kinds the inbound route takes in (the stop request has a route of its own). */
export const KNOWN_KINDS: readonly number[] = [...CLASS_BY_KIND.keys()];
