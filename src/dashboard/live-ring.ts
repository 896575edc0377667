// The dashboard's live messages (docs/dashboard.md, "Live updates"): numbered in order, the last
// `capacity` kept, so a page that lost its stream for a moment resumes from its Last-Event-ID.
// A page further behind than the ring reaches is told to reload: what it missed is gone.

export interface LiveMessage {
  /** Increasing from 1: the SSE `id:`. */
  id: number;
  type: string;
  data: unknown;
}

export type Resume = { ok: true; missed: LiveMessage[] } | { ok: false };

export class LiveRing {
  private readonly items: LiveMessage[] = [];
  private last = 0;

  constructor(private readonly capacity = 1000) {}

  /** The id of the newest message (0 when none yet). */
  get lastId(): number {
    return this.last;
  }

  push(type: string, data: unknown): LiveMessage {
    const m = { id: ++this.last, type, data };
    this.items.push(m);
    if (this.items.length > this.capacity) this.items.shift();
    return m;
  }

  /**
   * From here on changes go unrecorded (nobody follows them): a page that saw any message before
   * must reload. The ring is emptied and an id is skipped, so every earlier id is behind it.
   */
  gap(): void {
    this.items.length = 0;
    this.last++;
  }

  /** What came after `lastId`; not ok when some of it has already left the ring (or `lastId` is from another run). */
  after(lastId: number): Resume {
    if (!Number.isInteger(lastId) || lastId < 0 || lastId > this.last) return { ok: false };
    if (lastId === this.last) return { ok: true, missed: [] };
    const oldest = this.items[0]?.id ?? this.last + 1;
    if (lastId < oldest - 1) return { ok: false };
    return { ok: true, missed: this.items.filter((m) => m.id > lastId) };
  }
}
