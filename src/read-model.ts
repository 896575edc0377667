// What the index answers the reads with (the read port's index: src/ports.ts): conversations and
// messages as listed, an audit trail, an inbox, the statistics, and the queries that ask for
// them. Plain data; the SQLite index implements the queries (adapters/sqlite-index/).

export interface ConversationSummary {
  /** The conversation's rowid: increasing in arrival order, the number in its alias (CONV-0007). */
  seq: number;
  id: string;
  /** Full project coordinate. */
  project: string;
  title: string;
  phase: string;
  status: string;
  archived: boolean;
  rootKind: number | null;
  /** Unix seconds. */
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** The highest log position indexed. */
  lastN: number;
  /** Epoch ms at which the last message was logged. */
  lastMessageAt: number | null;
  execMs: number;
}

export interface MessageSummary {
  /** The message's rowid: increasing in arrival order, the number in its alias (MSG-H-0042). */
  seq: number;
  conversationId: string;
  /** The conversation's rowid, the number in its alias (CONV-0007). */
  conversationSeq: number;
  /** Position in the conversation's log. */
  n: number;
  eventId: string;
  author: string;
  kind: number;
  type: string | null;
  priority: string | null;
  /** Unix seconds. */
  createdAt: number;
  /** NIP-40 expiration, unix seconds. */
  expiration: number | null;
  parentId: string | null;
  /** The first 160 characters of the content. */
  preview: string;
  /** Bytes of the content. */
  size: number;
  /** Epoch ms the daemon logged it. */
  receivedAt: number;
}

export interface Summary {
  count: number;
  /** Undefined when there are no samples. */
  median?: number;
  mean?: number;
}

interface Entry<K extends string, D> {
  /** Log position. */
  n: number;
  /** Epoch ms the record was logged. */
  at: number;
  kind: K;
  data: D;
}

/** One entry of a conversation's audit trail: a message or a state change, at its log position. */
export type AuditEntry =
  | Entry<"message", {
      eventId: string; author: string; eventKind: number; type: string | null; priority: string | null;
      createdAt: number; parentId: string | null; preview: string;
    }>
  | Entry<"phase" | "phase_refused", {
      from: string; to: string; by: string; reason: string; message: string; eventId: string | null; turn: number | null;
    }>
  | Entry<"turn_start", {
      turnId: string; number: number; phase: string; agents: string[]; reason: string; deadline: number | null;
    }>
  | Entry<"completion", { turnId: string; eventId: string; agent: string; message: string }>
  | Entry<"turn_end", { turnId: string; status: string; reason: string | null }>
  | Entry<"status", { status: string; by: string | null; reason: string | null }>;

export interface ConversationSearchQuery {
  /**
   * Found in a title (a case-insensitive substring) or in a message: its first 160 characters
   * hold every word of q (src/search-words.ts), as whole words, ignoring case and accents.
   */
  q?: string;
  phase?: string;
  status?: string;
  archived?: boolean;
  participant?: string;
  includeExpired?: boolean;
  /** Epoch ms. */
  now: number;
  limit: number;
  offset: number;
}

/**
 * A page of the conversation list. `total` is the exact number found, or null when a search
 * found too many to count at once (adapters/sqlite-index/conversation-search.ts); then
 * `totalAtLeast` is a number found so far, enough to tell whether a next page exists.
 */
export interface ConversationList {
  total: number | null;
  totalAtLeast?: number;
  items: ConversationSummary[];
}

export const MESSAGE_ORDERS = ["asc", "desc", "priority"] as const;
/** asc, desc: by created_at; priority: most urgent first, then oldest first (src/messaging/priority.ts). */
export type MessageOrder = (typeof MESSAGE_ORDERS)[number];

export interface MessageQuery {
  conversation?: string;
  recipient?: string;
  /** With `recipient`: only what that recipient has not read (nor acked). */
  unread?: boolean;
  author?: string;
  type?: string;
  includeExpired?: boolean;
  /** Epoch ms. */
  now: number;
  order: MessageOrder;
  limit: number;
  offset: number;
}

export interface StatsOptions {
  /** Epoch ms (Clock.now()). */
  now: number;
  /** pubkey → role; agents without one count under "unknown". */
  roles?: ReadonlyMap<string, string>;
  /** How many top communicators (default 10). */
  top?: number;
}

export interface IndexStats {
  conversations: { total: number; archived: number; byPhase: Record<string, number>; byStatus: Record<string, number> };
  /** Messages by created_at: total, and created within each window before `now`. */
  messages: { total: number; lastHour: number; last24h: number; lastWeek: number };
  topCommunicators: { author: string; messages: number }[];
  /** Unexpired unread messages. */
  unread: { byAgent: Record<string, number>; byRole: Record<string, number> };
  /** Seconds (median, mean) from a message to an agent until that agent's next message in the conversation. */
  responseTimes: { overall: Summary; byAgent: Record<string, Summary> };
}

export interface UnreadOptions {
  /** Epoch ms (Clock.now()); a message whose `expiration` (unix s) is at or before it is expired. */
  now: number;
  limit?: number;
  offset?: number;
  /** Include expired messages (hidden by default). */
  includeExpired?: boolean;
}

export interface InboxOptions extends UnreadOptions {
  /** How many conversations with unread mail to summarise, most recently active first (default 20). */
  conversations?: number;
}

export interface InboxMessage extends MessageSummary {
  title: string;
  project: string;
}

export interface UnreadPage<T> {
  /** Unread messages in all (the page is `items`). */
  total: number;
  items: T[];
}

export interface InboxConversation {
  conversationId: string;
  title: string;
  phase: string;
  updatedAt: number;
  unread: number;
}

export interface Inbox extends UnreadPage<InboxMessage> {
  /** Conversations with unread mail, most recently active first (up to `conversations`). */
  conversations: InboxConversation[];
}

export interface MessageLocation {
  seq: number;
  conversationId: string;
  n: number;
  priority: string | null;
}

export interface DirectCandidate {
  id: string;
  status: string;
}

/** Conversations and messages by their aliases (CONV-0007, MSG-H-0042) or hex prefixes. */
export interface AliasReads {
  conversationSeqOf(id: string): number | undefined;
  conversationAt(seq: number): string | undefined;
  /** At most two: one is the answer, two say the prefix is ambiguous. */
  conversationsStartingWith(prefix: string): string[];
  messageOf(eventId: string): MessageLocation | undefined;
  messageAt(seq: number): string | undefined;
  messagesStartingWith(prefix: string): string[];
}

/** The index's queries, read-only: what the reads are answered from (the read port's `index`). */
export interface IndexReads {
  readonly aliases: AliasReads;
  readonly audit: { auditTrail(conversationId: string): AuditEntry[] };
  readonly conversations: {
    list(q: ConversationSearchQuery): ConversationList;
    get(id: string): ConversationSummary | undefined;
  };
  readonly messages: {
    get(eventId: string): MessageSummary | undefined;
    list(q: MessageQuery): { total: number; items: MessageSummary[] };
    recipientsOf(conversationId: string, n: number): { recipient: string; unread: boolean }[];
  };
  readonly unread: {
    unreadList(agent: string, opts: UnreadOptions): UnreadPage<MessageSummary>;
    inbox(agent: string, opts: InboxOptions): Inbox;
    /** Unexpired unread messages by priority rank (src/messaging/priority.ts: 0 critical … 3 low; none given is medium). */
    byPriorityRank(agent: string, now: number): number[];
  };
  readonly stats: { stats(opts: StatsOptions): IndexStats };
  /** Candidates for the 1-on-1 conversation of two agents, newest first (confirmed on their roots). */
  readonly direct: { candidatesFor(a: string, b: string): DirectCandidate[] };
}
