// Human aliases for conversations and messages ("CONV-0001", "MSG-H-0042"), easy to say and
// type in a terminal. The sequence numbers come from the index (an autoincrement, so concurrent
// writers never collide); here they are only formatted and parsed.

import { DomainError } from "../errors.js";
import type { Priority } from "../types.js";

export type AliasKind = "conversation" | "message";

const LETTER: Readonly<Record<Priority, string>> = { critical: "C", high: "H", medium: "M", low: "L" };

function digits(seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1) throw new DomainError(`alias sequence must be an integer ≥ 1, got ${seq}`, "bad_alias_seq");
  // At least 4 digits; longer numbers simply grow, there is no cap.
  return String(seq).padStart(4, "0");
}

export const formatConversationAlias = (seq: number): string => `CONV-${digits(seq)}`;

/** The letter says the priority at a glance (M when none); it is not part of the identity. */
export const formatMessageAlias = (seq: number, priority?: Priority): string =>
  `MSG-${LETTER[priority ?? "medium"]}-${digits(seq)}`;

const ALIAS = /^(CONV|MSG)-(?:[CHML]-)?(\d+)$/i;

/** Parses an alias (case-insensitive, surrounding spaces ignored); undefined when it is not one. */
export function parseAlias(text: string): { kind: AliasKind; seq: number } | undefined {
  const m = ALIAS.exec(text.trim());
  if (!m) return undefined;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq) || seq < 1) return undefined;
  return { kind: m[1]!.toUpperCase() === "CONV" ? "conversation" : "message", seq };
}
