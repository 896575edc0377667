// References people type: a conversation or a message by alias (CONV-0007, MSG-H-0042), by
// full id, or by a unique hex prefix of at least 6 characters.

import type { AliasReads } from "../../../src/read-model.js";
import { DomainError, NotFoundError } from "../../../src/errors.js";
import { formatConversationAlias, formatMessageAlias, parseAlias } from "../../../src/messaging/aliases.js";
import { isHex64, PRIORITIES, type Priority } from "../../../src/types.js";

const HEX_PREFIX = /^[0-9a-f]{6,63}$/;

const asPriority = (p: string | null): Priority | undefined =>
  (PRIORITIES as readonly string[]).includes(p ?? "") ? (p as Priority) : undefined;

export const conversationAlias = (seq: number): string => formatConversationAlias(seq);
export const messageAlias = (seq: number, priority: string | null): string => formatMessageAlias(seq, asPriority(priority));

export class Aliases {
  constructor(private readonly q: AliasReads) {}

  conversationAliasOf(id: string): string | undefined {
    const seq = this.q.conversationSeqOf(id);
    return seq === undefined ? undefined : conversationAlias(seq);
  }

  messageAliasOf(eventId: string): string | undefined {
    const m = this.q.messageOf(eventId);
    return m && messageAlias(m.seq, m.priority);
  }

  /** The conversation id `ref` names; NotFoundError when none does. */
  conversation(ref: string): string {
    const text = ref.trim();
    const alias = parseAlias(text);
    if (alias?.kind === "message") throw new DomainError(`${text} is a message alias; a conversation is wanted (CONV-…)`, "bad_reference");
    const id = alias ? this.q.conversationAt(alias.seq) : this.byId(text.toLowerCase(), "conversation");
    if (id === undefined || this.q.conversationSeqOf(id) === undefined) throw new NotFoundError("conversation", text);
    return id;
  }

  /** The event id `ref` names; NotFoundError when the index has no such message. */
  message(ref: string): string {
    const text = ref.trim();
    const alias = parseAlias(text);
    if (alias?.kind === "conversation") throw new DomainError(`${text} is a conversation alias; a message is wanted (MSG-…)`, "bad_reference");
    const id = alias ? this.q.messageAt(alias.seq) : this.byId(text.toLowerCase(), "message");
    if (id === undefined || this.q.messageOf(id) === undefined) throw new NotFoundError("message", text);
    return id;
  }

  private byId(text: string, what: "conversation" | "message"): string | undefined {
    if (isHex64(text)) return text;
    if (!HEX_PREFIX.test(text)) {
      const example = what === "conversation" ? "CONV-0001" : "MSG-M-0001";
      throw new DomainError(`"${text}" is not a ${what} reference: give an alias (${example}), an id or a hex prefix of 6+ characters`, "bad_reference");
    }
    const found = what === "conversation" ? this.q.conversationsStartingWith(text) : this.q.messagesStartingWith(text);
    if (found.length > 1) throw new DomainError(`${what} prefix "${text}" is ambiguous: give more characters`, "ambiguous_reference");
    return found[0];
  }
}
