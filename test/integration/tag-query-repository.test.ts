// The embedded relay's store (adapters/relay/tag-query-repository.ts) answers tag queries with
// the library's own results (it only keeps the order and limit the library drops), on a real
// SQLite file, and the method it replaces still exists upstream (a rename there would leave the
// fix silently unused).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventRepositorySqlite } from "@nostr-relay/event-repository-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPLACED_METHOD, TagQueryRepository } from "../../adapters/relay/tag-query-repository.js";

const T = 1_760_000_000;
const A = "31933:" + "a".repeat(64) + ":p";
const P1 = "b".repeat(64);
const P2 = "c".repeat(64);

let dir: string;
let ours: TagQueryRepository;
let library: EventRepositorySqlite;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tenexd-tagq-"));
  ours = new TagQueryRepository(join(dir, "relay.sqlite"));
  await ours.init();
  for (let i = 0; i < 300; i++) {
    const tags = [["a", A], ...(i % 2 ? [["p", P1]] : []), ...(i % 3 ? [] : [["p", P2]])];
    const id = i.toString(16).padStart(64, "0");
    // The store does not verify (the relay's publish path does): a stand-in signature will do.
    await ours.upsert({ id, pubkey: "d".repeat(64), created_at: T + i, kind: i % 10 ? 1111 : 11, tags, content: `e${i}`, sig: "0".repeat(128) } as never);
  }
  library = new EventRepositorySqlite(join(dir, "relay.sqlite"));
  await library.init();
});

afterAll(async () => {
  await ours?.destroy();
  await library?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const ids = async (repo: EventRepositorySqlite, filter: object) => (await repo.find(filter as never)).map((e) => e.id);

describe("TagQueryRepository", () => {
  it("replaces a method the library still has", () => {
    expect(typeof (EventRepositorySqlite.prototype as unknown as Record<string, unknown>)[REPLACED_METHOD]).toBe("function");
    expect(Object.hasOwn(TagQueryRepository.prototype, REPLACED_METHOD)).toBe(true);
  });

  it("cuts the id subquery at the limit, newest first (the library's own drops that, and scans every match)", () => {
    type Built = { select(c: string[]): { compile(): { sql: string } } };
    const build = (repo: object) => (repo as Record<string, (f: object, t: string[]) => Built>)[REPLACED_METHOD]!
      .call(repo, { limit: 5 }, [`a:${A}`]).select(["e.id"]).compile().sql;
    const inner = /"e"\."id" in \((select distinct .*)\)/i;
    expect(inner.exec(build(ours))?.[1]).toMatch(/order by "g"\."created_at" desc limit \?$/i);
    expect(inner.exec(build(library))?.[1]).not.toMatch(/limit/i);
  });

  it.each([
    ["one tag, a page", { "#a": [A], limit: 50 }],
    ["one tag, kinds, until and since", { "#a": [A], kinds: [1111], until: T + 200, since: T + 20, limit: 40 }],
    ["several values of one tag", { "#p": [P1, P2], limit: 70 }],
    ["two tags (both must match)", { "#a": [A], "#p": [P2], limit: 30 }],
    ["a limit above what matches", { "#p": [P2], until: T + 30, limit: 1000 }],
  ])("answers %s as the library does: the newest `limit` matches, newest first", async (_name, filter) => {
    const got = await ids(ours, filter);
    expect(got.length).toBeGreaterThan(0);
    expect(got).toEqual(await ids(library, filter));
  });
});
