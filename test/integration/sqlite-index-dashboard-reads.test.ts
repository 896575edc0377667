// What the dashboard reads at scale (schema v5, docs/dashboard.md): unread counts by priority
// kept on apply (unread_by_rank) and the conversation list's total without a filter. Each is
// compared with the count the rows themselves give, on real SQLite files, as the index is
// maintained incrementally, after a conversation is dropped and re-applied, after
// `tenexd reindex` (rebuildIndex over the same file) and after a rebuild from the logs on disk
// into a new file.

import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { EXACT_MATCHES, searchPageSql } from "../../adapters/sqlite-index/conversation-search.js";
import { openIndexReadOnly, SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { rebuildIndex } from "../../daemon/engine/recovery/index-recovery.js";
import { ConversationStore } from "../../daemon/engine/store/conversation-store.js";
import type { NewRecord } from "../../src/records.js";
import { tempDir } from "./fixtures/fs-log-fixtures.js";
import { applyIncrementally, closeTestIndexes, LogFixture, newTestIndex, scenario } from "./sqlite-index-helpers.js";

afterEach(closeTestIndexes);

const T0 = 1_700_000_000;
const ms = (s: number) => s * 1000;

/** The scenario plus a third conversation whose root and top-priority mail expire. */
function withExpiring() {
  const s = scenario(T0);
  const { p, user, planner, coder } = s;
  const rootC = p.root(user, "Rotate the keys", [coder.pubkey], [["expiration", String(T0 + 500)]], T0 + 40);
  const c = new LogFixture(rootC.id);
  c.event(rootC);
  c.event(p.reply(planner, rootC, "whenever", [coder.pubkey], [["priority", "low"], ["expiration", String(T0 + 300)]], rootC, T0 + 50));
  c.event(p.reply(user, rootC, "now", [coder.pubkey], [["priority", "critical"]], rootC, T0 + 60));
  c.event(p.reply(user, rootC, "fyi", [planner.pubkey], [["priority", "low"]], rootC, T0 + 61));
  c.add({ t: "read", agent: planner.pubkey, seq: 4 });
  return { ...s, logs: [...s.logs, c], agents: [user.pubkey, planner.pubkey, coder.pubkey] };
}

/** The kept counts and the same counted from the unread recipient rows. */
function rankCounts(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
    return {
      kept: sorted(db.prepare("SELECT agent, priority_rank, unread FROM unread_by_rank").all()),
      counted: sorted(db.prepare(`SELECT recipient AS agent, priority_rank, COUNT(*) AS unread FROM recipients
        WHERE unread = 1 GROUP BY recipient, priority_rank`).all()),
    };
  } finally {
    db.close();
  }
}

/** What byPriorityRank answered before v5: the unexpired unread rows counted by rank. */
function countedByRank(path: string, agent: string, nowSec: number): number[] {
  const db = new Database(path, { readonly: true });
  try {
    const counts: number[] = [];
    for (const r of db.prepare<[string, number], { rank: number; n: number }>(`SELECT priority_rank AS rank, COUNT(*) AS n
      FROM recipients WHERE recipient = ? AND unread = 1 AND (expiration IS NULL OR expiration > ?) GROUP BY priority_rank`)
      .all(agent, nowSec)) counts[r.rank] = r.n;
    return Array.from(counts, (c) => c ?? 0);
  } finally {
    db.close();
  }
}

/** The kept counts agree with the rows, and byPriorityRank with the count, before and after each expiry. */
function expectRanksAgree(path: string, agents: readonly string[]) {
  const { kept, counted } = rankCounts(path);
  expect(kept).toEqual(counted);
  const reader = openIndexReadOnly(path);
  try {
    for (const agent of agents) {
      for (const at of [T0, T0 + 300, T0 + 400, T0 + 500, T0 + 10_000]) {
        expect(reader.unread.byPriorityRank(agent, ms(at)), `${agent} at ${at}`).toEqual(countedByRank(path, agent, at));
      }
    }
  } finally {
    reader.close();
  }
}

/** The unfiltered total equals the filtered count split in two (archived or not), which visits every row. */
function expectTotalsAgree(path: string, atSec: number) {
  const reader = openIndexReadOnly(path);
  try {
    for (const includeExpired of [false, true]) {
      const q = { now: ms(atSec), includeExpired, limit: 1, offset: 0 };
      const all = reader.conversations.list(q).total;
      const split = reader.conversations.list({ ...q, archived: true }).total! + reader.conversations.list({ ...q, archived: false }).total!;
      expect(all, `at ${atSec}, includeExpired ${includeExpired}`).toBe(split);
    }
  } finally {
    reader.close();
  }
}

const draft = (r: LogFixture["records"][number]): NewRecord => {
  const { n: _n, ...rest } = r;
  return rest as NewRecord;
};

describe("SqliteIndex dashboard reads (v5)", () => {
  it("unread counts by priority are kept exactly: incrementally, after a drop and re-apply, and after resetAll and a rebuild", () => {
    const s = withExpiring();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    expectRanksAgree(index.path, s.agents);
    // Not vacuous: the coder's low-priority mail is there until it expires, then the top rank goes.
    const coder = s.coder.pubkey;
    expect(index.unreadCount(coder, ms(T0))).toBe(6);
    const reader = openIndexReadOnly(index.path);
    // critical a3 and "now", high a1, medium rootB and rootC, low "whenever" (expires at +300).
    expect(reader.unread.byPriorityRank(coder, ms(T0))).toEqual([2, 1, 2, 1]);
    expect(reader.unread.byPriorityRank(coder, ms(T0 + 300))).toEqual([2, 1, 2]);
    reader.close();

    index.drop(s.logs[2]!.id);
    expectRanksAgree(index.path, s.agents);
    index.apply(s.logs[2]!.conv, s.logs[2]!.records);
    expectRanksAgree(index.path, s.agents);

    index.resetAll();
    expect(rankCounts(index.path).kept).toEqual([]);
    for (const log of s.logs) index.apply(log.conv, log.records);
    expectRanksAgree(index.path, s.agents);
  });

  it("after `tenexd reindex` and after a rebuild from the logs on disk, the counts and totals are what the rows give", async () => {
    const s = withExpiring();
    const dir = tempDir();
    const log = new FileConversationLog(dir);
    const live = new SqliteIndex({ path: join(dir, "index.sqlite") });
    const store = new ConversationStore({ log, index: live });
    await store.init();
    for (const fixture of s.logs) {
      const conv = await store.getOrCreate(fixture.id, "");
      for (let i = 0; i < fixture.records.length; i += 2) {
        await store.commit(conv, fixture.records.slice(i, i + 2).map(draft)).durable;
      }
    }
    await store.indexed();
    live.close();
    expectRanksAgree(join(dir, "index.sqlite"), s.agents);

    // tenexd reindex: the same file emptied and refilled from the logs.
    const reindexed = newTestIndex({ path: join(dir, "index.sqlite") });
    await rebuildIndex(log, reindexed);
    expectRanksAgree(reindexed.path, s.agents);
    for (const at of [T0, T0 + 500]) expectTotalsAgree(reindexed.path, at);

    // The index file lost: a new one built from the logs.
    const fresh = newTestIndex();
    await rebuildIndex(log, fresh);
    expectRanksAgree(fresh.path, s.agents);
    await log.close();
  });

  it("the unfiltered total hides a conversation once its root expires, as the filtered count does", () => {
    const s = withExpiring();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    const reader = openIndexReadOnly(index.path);
    const total = (atSec: number, includeExpired = false) =>
      reader.conversations.list({ now: ms(atSec), includeExpired, limit: 1, offset: 0 }).total;
    expect([total(T0), total(T0 + 499), total(T0 + 500), total(T0 + 500, true)]).toEqual([3, 3, 2, 3]);
    reader.close();
    for (const at of [T0, T0 + 500]) expectTotalsAgree(index.path, at);
  });

  it("a page of the conversation list walks conversations_by_recency and sorts nothing, with or without filters", () => {
    const index = newTestIndex();
    index.close();
    const db = new Database(index.path, { readonly: true });
    try {
      const plan = (by: Parameters<typeof searchPageSql>[0], params: Record<string, string | number | null>) => db.prepare<Record<string, unknown>, { detail: string }>(
        `EXPLAIN QUERY PLAN ${searchPageSql(by)}`,
      ).all({ q: null, match: null, phase: null, status: null, archived: null, participant: null, include_expired: 0, now_sec: T0, matches: EXACT_MATCHES, limit: 25, offset: 0, ...params })
        .map((r) => r.detail);
      // Every way the search finds a conversation's text (conversation-search.ts TEXT_BY).
      const cases: [Parameters<typeof searchPageSql>[0], Record<string, string | number>][] = [
        ["none", {}], ["title", { q: "--" }], ["set", { q: "lorem", match: '"lorem"' }], ["seek", { q: "lorem", match: '"lorem"' }],
        ["none", { phase: "chat", archived: 0 }],
      ];
      for (const [by, params] of cases) {
        const steps = plan(by, params);
        expect(steps).toContain("SCAN c USING INDEX conversations_by_recency");
        expect(steps.filter((d) => d.includes("TEMP B-TREE")), JSON.stringify(steps)).toEqual([]);
      }
    } finally {
      db.close();
    }
  });
});
