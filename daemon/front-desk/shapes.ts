// The JSON shapes the API answers with and the CLI prints with --json. Stable: a field never
// changes meaning; new fields may appear. Times: `*At` fields named after Nostr times
// (createdAt, updatedAt, expiration) are unix seconds; the daemon's own (`at`, startedAt,
// lastMessageAt…) are epoch ms.

import type { AuditEntry, ConversationSummary, IndexStats, MessageSummary, Summary } from "../../src/read-model.js";
import type { RoutingContext } from "../../src/routing-context.js";
import type { NostrEvent, Phase } from "../../src/types.js";

export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

/**
 * The conversation list: `total` is null when a search found more than it counts at once, and
 * `totalAtLeast` then says how many it has found (src/read-model.ts ConversationList).
 */
export interface ConversationPage extends Omit<Page<ConversationItem>, "total"> {
  total: number | null;
  totalAtLeast?: number;
}

/** A conversation as listed: the index's summary, named by its alias instead of its row number. */
export interface ConversationItem extends Omit<ConversationSummary, "seq" | "project" | "lastN"> {
  alias: string;
}

/**
 * A message as listed: the index's summary (its preview is the first 160 characters, the whole
 * content is at GET /api/v1/messages/:id), named by its id and alias, with its recipients.
 */
export interface MessageItem extends Omit<MessageSummary, "seq" | "conversationSeq" | "eventId" | "receivedAt"> {
  /** The event id. */
  id: string;
  alias: string;
  conversationAlias: string;
  /** The author's slug, "owner", or a short pubkey. */
  from: string;
  recipients: string[];
  /** Recipients' labels, as `from`. */
  to: string[];
}

export interface MessageDetail extends MessageItem {
  content: string;
  event: NostrEvent;
  /** Recipients who have read or acked it. */
  readBy: string[];
}

export interface ViewState {
  agent: string;
  label: string;
  cursor: number;
  read: number;
  /** Seen or read up to the last message. */
  current: boolean;
}

export interface TurnView {
  number: number;
  phase: Phase;
  agents: string[];
  reason: string;
  status: string;
  startedAt: number;
  endedAt: number | null;
  deadline: number | null;
  /** Routed agents that have not completed. */
  waitingFor: string[];
  completions: { agent: string; message: string; at: number }[];
}

/**
 * One entry of a conversation's timeline, in the conversation's order; `n` is its log position.
 * Messages carry their `number`: 1, 2, 3… in the order listed.
 */
export type TimelineEntry = AuditEntry & {
  number?: number;
  /** Message entries: the alias, the author's label and the whole content (when the log could be read). */
  alias?: string;
  from?: string;
  content?: string;
};

export interface ConversationDetail {
  conversation: ConversationItem & { project: string };
  execution: { totalMs: number; running: boolean };
  phase: {
    current: Phase;
    transitions: { from: Phase; to: Phase; by: string; message: string; reason: string; at: number }[];
    refused: { from: Phase; to: Phase; by: string; reason: string; at: number }[];
  };
  turns: TurnView[];
  views: ViewState[];
  /** Labels of those who have seen or read the conversation up to its last message. */
  viewedBy: string[];
  timeline: TimelineEntry[];
  /** Messages as a thread: depth-first, each reply after its parent. */
  thread: { id: string; alias: string | null; depth: number; parentId: string | null }[];
}

export interface AuditView {
  conversationId: string;
  alias: string;
  entries: TimelineEntry[];
}

export interface InboxView {
  agent: { slug: string; pubkey: string };
  /** Unread messages in all (`items` is one page of them), most urgent first. */
  total: number;
  items: (MessageItem & { title: string })[];
  conversations: { id: string; alias: string | null; title: string; phase: string; unread: number }[];
}

export interface RoutingView {
  conversationId: string;
  alias: string;
  phase: Phase;
  routing: RoutingContext;
  problems: {
    repeatedRouting?: { phase: Phase; agents: string[]; count: number };
    stalled?: { turnsWithoutProgress: number };
  };
}

export interface AgentStats {
  slug: string;
  pubkey: string;
  role: string;
  unread: number;
  overThreshold: boolean;
  responseTime: Summary | null;
}

export type StatsView = Omit<IndexStats, "topCommunicators"> & {
  /** The most active authors, each with its label (`from`: slug, "owner", "user 1a2b3c4d"). */
  topCommunicators: { author: string; from: string; messages: number }[];
  unreadThreshold: number;
  agents: AgentStats[];
};

/** What a mutation did: the records it committed or the event it published. */
export interface PostResult {
  conversationId: string;
  conversationAlias: string | null;
  /** True when this message started the conversation. */
  created: boolean;
  event: NostrEvent;
  alias: string | null;
}

export interface MarkResult {
  conversationId: string;
  agent: string;
  /** False when nothing changed (already read, already acked, already closed…). */
  changed: boolean;
}
