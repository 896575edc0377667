// Changes to the counting tables (unread counts, totals and counts by priority rank, hourly volume, per-author counts, response-time
// histogram, participants), summed in memory while one apply runs and written once at its end:
// one upsert per touched key per transaction instead of one per message.

import type Database from "better-sqlite3";

const ADD_UNREAD = `
  INSERT INTO unread_counts (agent, conversation_id, unread) VALUES (?, ?, ?)
  ON CONFLICT (agent, conversation_id) DO UPDATE SET unread = unread + excluded.unread`;
const DELETE_ZERO_UNREAD = `DELETE FROM unread_counts WHERE agent = ? AND conversation_id = ? AND unread <= 0`;
const ADD_UNREAD_TOTAL = `
  INSERT INTO unread_totals (agent, unread) VALUES (?, ?)
  ON CONFLICT (agent) DO UPDATE SET unread = unread + excluded.unread`;
const DELETE_ZERO_UNREAD_TOTAL = `DELETE FROM unread_totals WHERE agent = ? AND unread <= 0`;
const ADD_UNREAD_BY_RANK = `
  INSERT INTO unread_by_rank (agent, priority_rank, unread) VALUES (?, ?, ?)
  ON CONFLICT (agent, priority_rank) DO UPDATE SET unread = unread + excluded.unread`;
const DELETE_ZERO_UNREAD_BY_RANK = `DELETE FROM unread_by_rank WHERE agent = ? AND priority_rank = ? AND unread <= 0`;
const ADD_VOLUME = `
  INSERT INTO volume_hourly (hour, messages) VALUES (?, ?)
  ON CONFLICT (hour) DO UPDATE SET messages = messages + excluded.messages`;
const ADD_AUTHOR_COUNT = `
  INSERT INTO author_counts (author, messages) VALUES (?, ?)
  ON CONFLICT (author) DO UPDATE SET messages = messages + excluded.messages`;
const ADD_RESPONSE_HISTOGRAM = `
  INSERT INTO response_histogram (agent, seconds, responses) VALUES (?, ?, ?)
  ON CONFLICT (agent, seconds) DO UPDATE SET responses = responses + excluded.responses`;
const INSERT_PARTICIPANT = `INSERT OR IGNORE INTO participants (conversation_id, pubkey) VALUES (?, ?)`;

/** Hour bucket of a created_at; the same integer division the v2 migration uses in SQL. */
const hourOf = (createdAt: number): number => Math.trunc(createdAt / 3600);

type Pair = readonly [string, string];

// Keys of two parts are joined with a separator no pubkey, id or relay url contains.
const SEP = "\u0000";
const join = (a: string, b: string | number) => `${a}${SEP}${b}`;
const split = (key: string): Pair => key.split(SEP) as unknown as Pair;

function bump<K>(map: Map<K, number>, key: K, by: number): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

export class AggregateDeltas {
  private readonly unreadBy = new Map<string, number>();
  private readonly unreadByRank = new Map<string, number>();
  private readonly volumeBy = new Map<number, number>();
  private readonly authorBy = new Map<string, number>();
  private readonly responsesBy = new Map<string, number>();
  /** Pubkeys seen per conversation: no joined key string per message, as the other maps need. */
  private readonly participantsBy = new Map<string, Set<string>>();
  private readonly addUnread;
  private readonly deleteZeroUnread;
  private readonly addUnreadTotal;
  private readonly deleteZeroUnreadTotal;
  private readonly addUnreadByRank;
  private readonly deleteZeroUnreadByRank;
  private readonly addVolume;
  private readonly addAuthorCount;
  private readonly addResponseHistogram;
  private readonly insertParticipant;

  constructor(db: Database.Database) {
    this.addUnread = db.prepare<[string, string, number]>(ADD_UNREAD);
    this.deleteZeroUnread = db.prepare<[string, string]>(DELETE_ZERO_UNREAD);
    this.addUnreadTotal = db.prepare<[string, number]>(ADD_UNREAD_TOTAL);
    this.deleteZeroUnreadTotal = db.prepare<[string]>(DELETE_ZERO_UNREAD_TOTAL);
    this.addUnreadByRank = db.prepare<[string, number, number]>(ADD_UNREAD_BY_RANK);
    this.deleteZeroUnreadByRank = db.prepare<[string, number]>(DELETE_ZERO_UNREAD_BY_RANK);
    this.addVolume = db.prepare<[number, number]>(ADD_VOLUME);
    this.addAuthorCount = db.prepare<[string, number]>(ADD_AUTHOR_COUNT);
    this.addResponseHistogram = db.prepare<[string, number, number]>(ADD_RESPONSE_HISTOGRAM);
    this.insertParticipant = db.prepare<[string, string]>(INSERT_PARTICIPANT);
  }

  /** `by` unread messages of priority `rank` to `agent` in the conversation (negative: read). */
  unread(agent: string, conversationId: string, rank: number, by: number): void {
    bump(this.unreadBy, join(agent, conversationId), by);
    bump(this.unreadByRank, join(agent, rank), by);
  }

  message(createdAt: number, author: string): void {
    bump(this.volumeBy, hourOf(createdAt), 1);
    bump(this.authorBy, author, 1);
  }

  response(agent: string, seconds: number, by: 1 | -1): void {
    bump(this.responsesBy, join(agent, seconds), by);
  }

  participant(conversationId: string, pubkey: string): void {
    const seen = this.participantsBy.get(conversationId);
    if (seen) seen.add(pubkey);
    else this.participantsBy.set(conversationId, new Set([pubkey]));
  }

  /** Writes everything summed since the last flush (call inside the apply's transaction). */
  flush(): void {
    const totals = new Map<string, number>();
    for (const [key, by] of this.unreadBy) {
      if (by === 0) continue;
      const [agent, conversationId] = split(key);
      this.addUnread.run(agent, conversationId, by);
      if (by < 0) this.deleteZeroUnread.run(agent, conversationId);
      bump(totals, agent, by);
    }
    for (const [agent, by] of totals) {
      if (by === 0) continue;
      this.addUnreadTotal.run(agent, by);
      if (by < 0) this.deleteZeroUnreadTotal.run(agent);
    }
    for (const [key, by] of this.unreadByRank) {
      if (by === 0) continue;
      const [agent, rank] = split(key);
      this.addUnreadByRank.run(agent, Number(rank), by);
      if (by < 0) this.deleteZeroUnreadByRank.run(agent, Number(rank));
    }
    for (const [hour, by] of this.volumeBy) this.addVolume.run(hour, by);
    for (const [author, by] of this.authorBy) this.addAuthorCount.run(author, by);
    for (const [key, by] of this.responsesBy) {
      if (by === 0) continue;
      const [agent, seconds] = split(key);
      this.addResponseHistogram.run(agent, Number(seconds), by);
    }
    for (const [conversationId, pubkeys] of this.participantsBy) {
      for (const pubkey of pubkeys) this.insertParticipant.run(conversationId, pubkey);
    }
    this.clear();
  }

  /** Forgets unflushed changes (the transaction they belonged to rolled back). */
  clear(): void {
    this.unreadBy.clear();
    this.unreadByRank.clear();
    this.volumeBy.clear();
    this.authorBy.clear();
    this.responsesBy.clear();
    this.participantsBy.clear();
  }
}
