// A bounded LRU of live conversations. Bounded by the number of events held, not the number of
// conversations, because one conversation can hold 5,000 events and another 3. Conversations
// that are busy (work queued on them) are never evicted: their state is ahead of the index.

import type { Conversation } from "../../src/conversation-state.js";

export class ConversationCache {
  private readonly map = new Map<string, Conversation>();
  private events = 0;

  constructor(
    private readonly maxEvents: number,
    private readonly isBusy: (id: string) => boolean,
  ) {}

  get(id: string): Conversation | undefined {
    const conv = this.map.get(id);
    if (conv) {
      // Re-insert to mark it most recently used (Map keeps insertion order).
      this.map.delete(id);
      this.map.set(id, conv);
    }
    return conv;
  }

  /** The conversation if cached, without marking it used (a lookup, not a use). */
  peek(id: string): Conversation | undefined {
    return this.map.get(id);
  }

  set(conv: Conversation): void {
    const old = this.map.get(conv.id);
    if (old) this.events -= old.events.length;
    this.map.delete(conv.id);
    this.map.set(conv.id, conv);
    this.events += conv.events.length;
    this.evict();
  }

  /** Call after events were added to a cached conversation. */
  grew(by: number): void {
    this.events += by;
    this.evict();
  }

  delete(id: string): void {
    const old = this.map.get(id);
    if (!old) return;
    this.events -= old.events.length;
    this.map.delete(id);
  }

  get size(): number {
    return this.map.size;
  }

  get heldEvents(): number {
    return this.events;
  }

  private evict(): void {
    if (this.events <= this.maxEvents) return;
    for (const [id, conv] of this.map) {
      if (this.events <= this.maxEvents) break;
      if (this.isBusy(id)) continue;
      this.map.delete(id);
      this.events -= conv.events.length;
    }
  }
}
