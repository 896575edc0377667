// The daemon's recent problems, as the Director sees them. One failing cause repeats: a full
// disk fails every event of a back-fill, and a plain list of the last 100 held 100 identical
// `ingest_failed` lines and nothing else. Here a problem is one entry per kind and detail, with
// the variable parts of the detail (ids, numbers) ignored: it counts its repeats, and keeps
// when it was first and last seen and its latest wording. Entries are bounded in number, and
// per kind, so no single kind can push the others out.

export interface Problem {
  kind: string;
  /** The latest occurrence's detail, as reported. */
  detail: string;
  count: number;
  first: number;
  last: number;
}

export interface ProblemLimits {
  /** Distinct entries kept in all. */
  entries: number;
  /** Distinct entries kept of one kind. */
  perKind: number;
}

export const DEFAULT_PROBLEM_LIMITS: ProblemLimits = { entries: 100, perKind: 20 };

/**
 * The part of a detail that says what went wrong, not where: event and conversation ids, hex
 * runs, and numbers (sizes, positions, times, ports) are replaced by placeholders.
 */
export function problemShape(detail: string): string {
  return detail
    .replace(/\b[0-9a-f]{64}\b/gi, "<id>")
    .replace(/\b[0-9a-f]{8,}\b/gi, "<hex>")
    .replace(/\d+/g, "<n>");
}

export class ProblemList {
  // Insertion order is kept in step with `last`: an entry seen again moves to the end.
  private readonly entries = new Map<string, Problem>();

  constructor(private readonly limits: ProblemLimits = DEFAULT_PROBLEM_LIMITS) {}

  /** Records one occurrence; returns its entry (count 1: a new problem). */
  note(kind: string, detail: string, at: number): Problem {
    const key = `${kind}\u0000${problemShape(detail)}`;
    const seen = this.entries.get(key);
    if (seen) {
      this.entries.delete(key);
      const again = { ...seen, detail, count: seen.count + 1, last: at };
      this.entries.set(key, again);
      return again;
    }
    this.makeRoom(kind);
    const entry = { kind, detail, count: 1, first: at, last: at };
    this.entries.set(key, entry);
    return entry;
  }

  /** Oldest last seen first: the most recent problems are at the end. */
  list(): Problem[] {
    return [...this.entries.values()];
  }

  /** Drops the least recently seen entry of this kind if it has its share, else the least recent of all if full. */
  private makeRoom(kind: string): void {
    let ofKind = 0;
    let oldestOfKind: string | undefined;
    for (const [key, p] of this.entries) {
      if (p.kind !== kind) continue;
      ofKind++;
      oldestOfKind ??= key;
    }
    if (ofKind >= this.limits.perKind && oldestOfKind !== undefined) this.entries.delete(oldestOfKind);
    else if (this.entries.size >= this.limits.entries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** Whether an occurrence is worth a log line: the first ten of an entry, then at 100, 1,000, … */
export const worthLogging = (count: number): boolean => count <= 10 || /^10+$/.test(String(count));
