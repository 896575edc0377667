// The engine's changes as they happen (src/ports.ts EngineChange), for whoever listens through
// the read port (the dashboard's live stream): a conversation's row and its messages once the
// index holds them (so they are acknowledged, and a read that follows finds them), agents' runs
// as they start and end. A listener that throws is dropped, never the engine's work.

import type { IndexItem } from "../../src/ports.js";
import type { EngineChange } from "../../src/ports.js";

export class LiveFeed {
  private readonly listeners = new Set<(change: EngineChange) => void>();

  listen(listener: (change: EngineChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(change: EngineChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        this.listeners.delete(l);
      }
    }
  }

  /** What one index apply made visible. Nothing is built when nobody listens. */
  indexed(items: readonly IndexItem[]): void {
    if (this.listeners.size === 0) return;
    for (const item of items) {
      const { row } = item;
      this.emit({
        kind: "conversation", id: item.conversationId, title: row.title, phase: row.phase, status: row.status,
        archived: row.archived, messageCount: row.messageCount,
      });
      for (const r of item.records) {
        if (r.t !== "event") continue;
        this.emit({
          kind: "message", conversationId: item.conversationId, id: r.ev.id, n: r.n, author: r.ev.pubkey,
          eventKind: r.ev.kind, createdAt: r.ev.created_at,
        });
      }
    }
  }
}
