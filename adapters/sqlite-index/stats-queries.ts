// Index-wide statistics for the Director. Everything is read from aggregates maintained on
// apply (hourly volume, per-author counts, unread counts, response-time histograms), so the
// cost does not grow with the number of messages.

import type Database from "better-sqlite3";
import { expiredSql, nowSeconds } from "./expiry.js";
import { summarize } from "./histogram.js";
import type { Summary } from "../../src/read-model.js";
import type { IndexStats, StatsOptions } from "../../src/read-model.js";

const COUNT_BY_PHASE = `SELECT phase AS key, COUNT(*) AS count FROM conversations GROUP BY phase`;
const COUNT_BY_STATUS = `SELECT status AS key, COUNT(*) AS count FROM conversations GROUP BY status`;
const COUNT_CONVERSATIONS = `SELECT COUNT(*) AS total, COALESCE(SUM(archived), 0) AS archived FROM conversations`;
const TOTAL_MESSAGES = `SELECT COALESCE(SUM(messages), 0) FROM author_counts`;
const SUM_VOLUME_FROM_HOUR = `SELECT COALESCE(SUM(messages), 0) FROM volume_hourly WHERE hour >= ?`;
const COUNT_MESSAGES_IN = `SELECT COUNT(*) FROM messages WHERE created_at >= ? AND created_at < ?`;
const TOP_AUTHORS = `SELECT author, messages FROM author_counts ORDER BY messages DESC, author LIMIT ?`;
const UNREAD_BY_AGENT = `SELECT agent, unread FROM unread_totals`;
const EXPIRED_UNREAD_BY_AGENT = `
  SELECT recipient AS agent, COUNT(*) AS expired FROM recipients
  WHERE unread = 1 AND ${expiredSql("expiration", "?")} GROUP BY recipient`;
const RESPONSE_HISTOGRAM = `SELECT agent, seconds, responses FROM response_histogram ORDER BY agent, seconds`;

const HOUR = 3600;
export const VOLUME_WINDOWS = { lastHour: HOUR, last24h: 24 * HOUR, lastWeek: 7 * 24 * HOUR } as const;
export const UNKNOWN_ROLE = "unknown";

type Bin = readonly [number, number];

export class StatsQueries {
  private readonly byPhase;
  private readonly byStatus;
  private readonly countConversations;
  private readonly totalMessages;
  private readonly volumeFromHour;
  private readonly messagesIn;
  private readonly topAuthors;
  private readonly unreadByAgent;
  private readonly expiredByAgent;
  private readonly responseHistogram;

  constructor(db: Database.Database) {
    this.byPhase = db.prepare<[], { key: string; count: number }>(COUNT_BY_PHASE);
    this.byStatus = db.prepare<[], { key: string; count: number }>(COUNT_BY_STATUS);
    this.countConversations = db.prepare<[], { total: number; archived: number }>(COUNT_CONVERSATIONS);
    this.totalMessages = db.prepare<[], number>(TOTAL_MESSAGES).pluck();
    this.volumeFromHour = db.prepare<[number], number>(SUM_VOLUME_FROM_HOUR).pluck();
    this.messagesIn = db.prepare<[number, number], number>(COUNT_MESSAGES_IN).pluck();
    this.topAuthors = db.prepare<[number], { author: string; messages: number }>(TOP_AUTHORS);
    this.unreadByAgent = db.prepare<[], { agent: string; unread: number }>(UNREAD_BY_AGENT);
    this.expiredByAgent = db.prepare<[number], { agent: string; expired: number }>(EXPIRED_UNREAD_BY_AGENT);
    this.responseHistogram = db.prepare<[], { agent: string; seconds: number; responses: number }>(RESPONSE_HISTOGRAM);
  }

  stats(opts: StatsOptions): IndexStats {
    const now = nowSeconds(opts.now);
    const counts = this.countConversations.get() ?? { total: 0, archived: 0 };
    const unreadByAgent = this.unread(now);
    return {
      conversations: {
        total: counts.total, archived: counts.archived,
        byPhase: toRecord(this.byPhase.all()), byStatus: toRecord(this.byStatus.all()),
      },
      messages: {
        total: this.totalMessages.get() ?? 0,
        lastHour: this.volumeSince(now - VOLUME_WINDOWS.lastHour),
        last24h: this.volumeSince(now - VOLUME_WINDOWS.last24h),
        lastWeek: this.volumeSince(now - VOLUME_WINDOWS.lastWeek),
      },
      topCommunicators: this.topAuthors.all(opts.top ?? 10),
      unread: { byAgent: unreadByAgent, byRole: byRole(unreadByAgent, opts.roles) },
      responseTimes: this.responseTimes(),
    };
  }

  // Whole hours from the hourly buckets, the partial first hour from the messages themselves:
  // exact, and at most one hour of rows is read.
  private volumeSince(start: number): number {
    const firstFullHour = Math.ceil(start / HOUR);
    return (this.volumeFromHour.get(firstFullHour) ?? 0) + (this.messagesIn.get(start, firstFullHour * HOUR) ?? 0);
  }

  private unread(now: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const r of this.unreadByAgent.all()) out[r.agent] = r.unread;
    for (const r of this.expiredByAgent.all(now)) out[r.agent] = (out[r.agent] ?? 0) - r.expired;
    for (const [agent, n] of Object.entries(out)) if (n <= 0) delete out[agent];
    return out;
  }

  private responseTimes(): IndexStats["responseTimes"] {
    const perAgent = new Map<string, Bin[]>();
    const overall = new Map<number, number>();
    for (const r of this.responseHistogram.all()) {
      let bins = perAgent.get(r.agent);
      if (!bins) perAgent.set(r.agent, (bins = []));
      bins.push([r.seconds, r.responses]);
      overall.set(r.seconds, (overall.get(r.seconds) ?? 0) + r.responses);
    }
    const byAgent: Record<string, Summary> = {};
    for (const [agent, bins] of perAgent) byAgent[agent] = summarize(bins);
    return { overall: summarize([...overall].sort((a, b) => a[0] - b[0])), byAgent };
  }
}

const toRecord = (rows: { key: string; count: number }[]): Record<string, number> =>
  Object.fromEntries(rows.map((r) => [r.key, r.count]));

function byRole(byAgent: Record<string, number>, roles: ReadonlyMap<string, string> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [agent, n] of Object.entries(byAgent)) {
    const role = roles?.get(agent) ?? UNKNOWN_ROLE;
    out[role] = (out[role] ?? 0) + n;
  }
  return out;
}
