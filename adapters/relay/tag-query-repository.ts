// The embedded relay's event store, with one query of @nostr-relay/event-repository-sqlite
// (0.0.40) fixed. For a filter on tags (`#a`, `#p`, `#E`…) it builds a subquery of matching event
// ids and means to order it newest first and cut it at the filter's limit, but drops the result
// of that `orderBy().limit()` (kysely builders are immutable): the subquery returns every match
// in the relay's history, and each page of a back-fill costs what the whole history costs. On
// the benchmark's 20,000 events a page of 1,000 took ~110 ms of SQLite per tag filter instead
// of ~8 ms, and it grows with the history. This is the same query with the order and the limit
// kept. tag-query-repository.test.ts checks the results against the library's own and that the
// method it replaces still exists upstream.

import { EventRepositorySqlite } from "@nostr-relay/event-repository-sqlite";

// The few kysely builder methods used here (kysely is the library's dependency, not ours).
interface Query {
  select(column: string): Query;
  distinct(): Query;
  where(column: string, op: string, value: unknown): Query;
  innerJoin(table: string, on: (join: Join) => Join): Query;
  orderBy(order: string): Query;
  limit(n: number): Query;
}
interface Join {
  onRef(a: string, op: string, b: string): Join;
  on(column: string, op: string, value: unknown): Join;
}

/** The library's private members this query uses, as the compiled class has them. */
interface RepositoryInternals {
  db: { selectFrom(table: string): Query };
  getLimitFrom(filter: TagFilter): number;
  extractAndTagsCollectionFrom(filter: TagFilter): { tagName: string; values: string[] }[];
  createAndTagSubQuery(tagName: string, values: string[]): Query;
}

interface TagFilter {
  since?: number;
  until?: number;
  authors?: string[];
  kinds?: number[];
  limit?: number;
}

export const REPLACED_METHOD = "createGenericTagsSelectQuery";

export class TagQueryRepository extends EventRepositorySqlite {}

// Installed on the subclass's prototype: the library's method is private in its types.
Object.defineProperty(TagQueryRepository.prototype, REPLACED_METHOD, {
  value: function genericTagsSelectQuery(this: RepositoryInternals, filter: TagFilter, first: string[], second?: string[]): Query {
    let ids = this.db.selectFrom("generic_tags as g").select("g.event_id").distinct();
    for (const { tagName, values } of this.extractAndTagsCollectionFrom(filter)) {
      ids = ids.where("g.event_id", "in", this.createAndTagSubQuery(tagName, values));
    }
    if (second?.length) {
      ids = ids.innerJoin("generic_tags as g2", (join) => join.onRef("g2.event_id", "=", "g.event_id").on("g2.tag", "in", second));
    }
    ids = ids.where("g.tag", "in", first);
    if (filter.since) ids = ids.where("g.created_at", ">=", filter.since);
    if (filter.until) ids = ids.where("g.created_at", "<=", filter.until);
    if (filter.authors?.length) ids = ids.where("g.author", "in", filter.authors);
    if (filter.kinds?.length) ids = ids.where("g.kind", "in", filter.kinds);
    // The fix: the order and the limit are kept.
    ids = ids.orderBy("g.created_at desc").limit(this.getLimitFrom(filter));
    return this.db.selectFrom("events as e").where("e.id", "in", ids).orderBy("e.created_at desc");
  },
  writable: true,
  configurable: true,
});
