// The Director's conversation search (schema v6, docs/api.md "Conversations") on real SQLite
// files: what a query finds and what it does not, hostile input (FTS5 syntax typed as text),
// expired messages hidden, and the list's totals and pages equal to a plain count over the
// rows (computed here in JavaScript, without the word index), incrementally, after a drop and
// re-apply, after resetAll and a rebuild, and with the lower-bound total of a common word.

import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ConversationSearch } from "../../adapters/sqlite-index/conversation-search.js";
import { openIndexReadOnly } from "../../adapters/sqlite-index/index.js";
import { applyIncrementally, closeTestIndexes, LogFixture, newTestIndex, scenario } from "./sqlite-index-helpers.js";

afterEach(closeTestIndexes);

const T0 = 1_700_000_000;
const ms = (s: number) => s * 1000;

/** The scenario's two conversations and three more, one with an expiring root, one with expiring mail. */
function corpus() {
  const s = scenario(T0);
  const { p, user, planner, coder } = s;
  const rootC = p.root(user, "Rotate the keys", [coder.pubkey], [["expiration", String(T0 + 500)]], T0 + 40);
  const c = new LogFixture(rootC.id);
  c.event(rootC);
  c.event(p.reply(planner, rootC, "rotation parser is ready", [coder.pubkey], [], rootC, T0 + 50));
  const rootD = p.root(user, "Déjà vu in the parser", [planner.pubkey], [], T0 + 45);
  const d = new LogFixture(rootD.id);
  d.event(rootD);
  d.event(p.reply(planner, rootD, "The parser crashed again, see PR-42 (NEAR the \"tokenizer\")", [user.pubkey], [], rootD, T0 + 55));
  d.event(p.reply(coder, rootD, "secretword: the build key", [planner.pubkey], [["expiration", String(T0 + 100)]], rootD, T0 + 56));
  const rootE = p.root(user, "Lorem", [coder.pubkey], [], T0 + 46);
  const e = new LogFixture(rootE.id);
  e.event(rootE);
  for (let i = 0; i < 4; i++) e.event(p.reply(coder, rootE, `lorem ipsum ${i} école`, [user.pubkey], [], rootE, T0 + 60 + i));
  return { ...s, logs: [...s.logs, c, d, e] };
}

/** A message's or a query's words, as the search means them: letters and digits, case and accents folded. */
const wordsOf = (s: string): string[] => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The conversations a query finds, newest activity first, counted from the rows without the word index. */
function expected(path: string, q: string, nowSec: number, includeExpired: boolean): string[] {
  const db = new Database(path, { readonly: true });
  try {
    const convs = db.prepare<[], { id: string; title_folded: string }>(
      `SELECT id, title_folded FROM conversations ORDER BY updated_at DESC, rowid DESC`,
    ).all();
    const messages = db.prepare<[], { conversation_id: string; event_id: string; preview: string; expiration: number | null }>(
      `SELECT conversation_id, event_id, preview, expiration FROM messages`,
    ).all();
    const visible = (exp: number | null) => includeExpired || exp === null || exp > nowSec;
    const hiddenRoots = new Set(messages.filter((m) => m.event_id === m.conversation_id && !visible(m.expiration)).map((m) => m.event_id));
    const words = [...new Set(wordsOf(q))].slice(0, 16);
    const text = q.trim().toLowerCase();
    return convs.filter((c) => !hiddenRoots.has(c.id) && (text === "" || c.title_folded.includes(text) || (words.length > 0
      && messages.some((m) => m.conversation_id === c.id && visible(m.expiration) && words.every((w) => wordsOf(m.preview).includes(w))))))
      .map((c) => c.id);
  } finally {
    db.close();
  }
}

/** Every page of the list, and its total, equal what the rows give. */
function expectFound(path: string, q: string, nowSec: number, includeExpired = false, search?: (db: Database.Database) => ConversationSearch) {
  const want = expected(path, q, nowSec, includeExpired);
  const db = new Database(path, { readonly: true });
  try {
    const s = search ? search(db) : new ConversationSearch(db);
    const got: string[] = [];
    for (let offset = 0; offset <= want.length; offset += 2) {
      const page = s.list({ q, now: ms(nowSec), includeExpired, limit: 2, offset });
      got.push(...page.items.map((c) => c.id));
      if (page.total === null) {
        expect(page.totalAtLeast, `${q} at ${offset}`).toBeGreaterThanOrEqual(Math.min(want.length, offset + 3));
        expect(page.totalAtLeast, `${q} at ${offset}`).toBeLessThanOrEqual(want.length);
      } else {
        expect(page.total, `total of ${JSON.stringify(q)}`).toBe(want.length);
      }
    }
    expect(got, `pages of ${JSON.stringify(q)}`).toEqual(want);
  } finally {
    db.close();
  }
  return want;
}

const QUERIES = ["parser", "PARSER crashed", "crashed parser", "deja", "DÉJÀ", "école", "ecole", "login", "ogin", "lorem ipsum 3",
  "secretword", "parser login", "pars", "the", "42", "pr 42", "tokenizer", "nothing-like-this"];

// Typed into the search box by someone who knows FTS5's query language.
const HOSTILE = ['"', '"parser', 'parser"', "*", "pars*", "parser*", "NEAR(parser crashed)", "NEAR", "-crashed", "parser -crashed",
  "parser OR login", "parser AND", "NOT parser", "(((", ")", "(parser", "body:parser", "preview:parser", "^parser", "'", "\\", "\0",
  "{preview}: parser", "parser + crashed", "😀", "🔥parser🔥", "a".repeat(10_000), Array.from({ length: 100 }, (_, i) => `w${i}`).join(" "),
  '"" OR ""', "\u202eparser", "%", "_", "rank:1", "rowid = 1"];

describe("SqliteIndex conversation search", () => {
  it("finds titles by substring and messages by whole words, case and accents folded; not parts of words", () => {
    const s = corpus();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    const found = (q: string) => expectFound(index.path, q, T0);
    const [, , c, d, e] = s.logs.map((l) => l.id);
    expect(found("PARSER crashed")).toEqual([d]);
    expect(found("crashed parser")).toEqual([d]); // words in any order
    expect(found("deja")).toEqual([d]);
    expect(found("ecole")).toEqual([e]);
    expect(found("parser")).toEqual([d, c]); // d by its title and a message, c by a message
    expect(found("ogin")).toEqual([s.logs[0]!.id]); // a title is searched as text
    expect(found("crash")).toEqual([]); // a message's words are whole words ("crashed")
    expect(found("parser login")).toEqual([]); // every word in one message
    for (const q of QUERIES) found(q);
  });

  it("hostile input is searched as words, never as FTS5 syntax, and never errors", () => {
    const s = corpus();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    const d = s.logs[3]!.id;
    for (const q of HOSTILE) {
      for (const includeExpired of [false, true]) expectFound(index.path, q, T0, includeExpired);
    }
    // Operators are words like the others: "NEAR" is in d's message, "-crashed" finds crashed.
    expect(expectFound(index.path, "NEAR(parser crashed)", T0)).toEqual([d]);
    expect(expectFound(index.path, "parser -crashed", T0)).toEqual([d]);
    expect(expectFound(index.path, "NOT parser", T0)).toEqual([]);
    // Through the reader the API uses, too.
    const reader = openIndexReadOnly(index.path);
    try {
      expect(reader.conversations.list({ q: '"parser', now: ms(T0), limit: 5, offset: 0 }).total).toBe(2);
    } finally {
      reader.close();
    }
  });

  it("an expired message is not found, nor a conversation whose root expired, unless asked for", () => {
    const s = corpus();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    const [, , c, d] = s.logs.map((l) => l.id);
    expect(expectFound(index.path, "secretword", T0)).toEqual([d]);
    expect(expectFound(index.path, "secretword", T0 + 100)).toEqual([]);
    expect(expectFound(index.path, "secretword", T0 + 100, true)).toEqual([d]);
    expect(expectFound(index.path, "rotation", T0 + 499)).toEqual([c]);
    expect(expectFound(index.path, "rotation", T0 + 500)).toEqual([]);
    expect(expectFound(index.path, "rotation", T0 + 500, true)).toEqual([c]);
  });

  it("finds the same incrementally, after a drop and re-apply, and after resetAll and a rebuild", () => {
    const s = corpus();
    const index = newTestIndex();
    applyIncrementally(index, s.logs, [1, 2]);
    const all = () => QUERIES.concat(HOSTILE.slice(0, 12)).map((q) => [0, 100, 500].map((at) => expectFound(index.path, q, T0 + at)));
    const before = all();
    expect(before.flat(2).length).toBeGreaterThan(20); // not vacuous

    const d = s.logs[3]!;
    index.drop(d.id);
    expect(expectFound(index.path, "crashed", T0)).toEqual([]);
    index.apply(d.conv, d.records);
    expect(all()).toEqual(before);

    index.resetAll();
    expect(expectFound(index.path, "parser", T0)).toEqual([]);
    for (const log of s.logs) index.apply(log.conv, log.records);
    expect(all()).toEqual(before);
  });

  it("a word in more messages than it counts exactly: pages still exact, the total a true lower bound", () => {
    const s = corpus();
    const index = newTestIndex();
    applyIncrementally(index, s.logs);
    // "the" is in 6 messages of 4 conversations; counted exactly up to 3 matches, it is walked.
    const small = (db: Database.Database) => new ConversationSearch(db, 3);
    const db = new Database(index.path, { readonly: true });
    try {
      const first = small(db).list({ q: "the", now: ms(T0), limit: 1, offset: 0 });
      expect(first.total).toBeNull();
      expect(first.totalAtLeast).toBeGreaterThanOrEqual(2);
      // Fewer matches than the bound: exact.
      expect(small(db).list({ q: "secretword", now: ms(T0), limit: 1, offset: 0 }).total).toBe(1);
    } finally {
      db.close();
    }
    for (const q of ["the", "lorem", "parser", "ipsum école"]) {
      for (const at of [0, 100, 500]) expectFound(index.path, q, T0 + at, false, small);
    }
  });
});
