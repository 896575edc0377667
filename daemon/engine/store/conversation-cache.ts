// A bounded LRU of live conversations, bounded by the memory they hold (approximately: see
// src/memory-estimate.ts), not by their number or their events': one conversation can hold
// 5,000 events and another 3, and one event 100 bytes and another 100 KB. Conversations that
// are busy (work queued on them) or pinned are never evicted: their state is ahead of the index.
// Neither is the one used last, so a conversation larger than the whole bound is still served
// from memory while it is being used.

import type { Conversation } from "../../../src/conversation-state.js";
import { conversationMemoryBytes } from "../../../src/memory-estimate.js";

interface Entry {
  conv: Conversation;
  bytes: number;
  events: number;
}

export class ConversationCache {
  // Map order is recency: the first entry is the least recently used, the last the most.
  private readonly map = new Map<string, Entry>();
  private bytes = 0;
  private events = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly isBusy: (id: string) => boolean,
  ) {}

  get(id: string): Conversation | undefined {
    const entry = this.map.get(id);
    if (entry) {
      // Re-insert to mark it most recently used (Map keeps insertion order).
      this.map.delete(id);
      this.map.set(id, entry);
    }
    return entry?.conv;
  }

  /** The conversation if cached, without marking it used (a lookup, not a use). */
  peek(id: string): Conversation | undefined {
    return this.map.get(id)?.conv;
  }

  set(conv: Conversation): void {
    this.delete(conv.id);
    const entry = { conv, bytes: conversationMemoryBytes(conv), events: conv.events.length };
    this.map.set(conv.id, entry);
    this.bytes += entry.bytes;
    this.events += entry.events;
    this.evict();
  }

  /** Call after events were added to a cached conversation: how many, and their bytes. */
  grew(id: string, events: number, bytes: number): void {
    const entry = this.map.get(id);
    if (!entry) return;
    entry.events += events;
    entry.bytes += bytes;
    this.events += events;
    this.bytes += bytes;
    this.evict();
  }

  delete(id: string): void {
    const old = this.map.get(id);
    if (!old) return;
    this.bytes -= old.bytes;
    this.events -= old.events;
    this.map.delete(id);
  }

  get size(): number {
    return this.map.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  get heldEvents(): number {
    return this.events;
  }

  private evict(): void {
    if (this.bytes <= this.maxBytes) return;
    let left = this.map.size;
    for (const [id, entry] of this.map) {
      // The last entry is the one used last: kept, whatever its size.
      if (this.bytes <= this.maxBytes || --left === 0) break;
      if (this.isBusy(id)) continue;
      this.map.delete(id);
      this.bytes -= entry.bytes;
      this.events -= entry.events;
    }
  }
}
