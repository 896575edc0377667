// The live events read off a relay's socket, handed on a slice per turn of the event loop rather
// than all at once. libuv reads up to 32 chunks of a socket in one go: under 2,000 ev/s a busy
// daemon took in ~2,000 events in one turn and spent 0.1-0.95 s on them before anything else ran
// (the log's completions, a trigger's next step; docs/performance.md, "From a message to its
// agent"). Between slices the rest of the daemon gets its turn. An urgent event (one that may set
// an agent to work) is handed on at once, ahead of those waiting, unless one of its conversation
// is among them: then it keeps its place, so a conversation's events still arrive in order.

import { conversationIdOf } from "../../src/conversation-of.js";
import type { NostrEvent } from "../../src/types.js";

/** Events handed on per turn of the event loop. */
const SLICE = 64;
// Beyond this many waiting, the oldest are handed on at once (memory stays bounded; the daemon
// is then as it was without the backlog: busy with what it reads).
const MAX_WAITING = 5_000;

interface Waiting {
  ev: NostrEvent;
  url: string;
  conv: string | undefined;
}

export class LiveBacklog {
  private waiting: Waiting[] = [];
  private head = 0;
  /** How many of the waiting events each conversation has. */
  private readonly perConversation = new Map<string, number>();
  /** Events handed on this turn (reset at the next). */
  private handed = 0;
  private scheduled = false;

  constructor(
    private readonly deliver: (ev: NostrEvent, url: string) => void,
    private readonly urgent?: (ev: NostrEvent) => boolean,
  ) {}

  get size(): number {
    return this.waiting.length - this.head;
  }

  add(ev: NostrEvent, url: string): void {
    const conv = conversationOf(ev);
    // A trickle is handed on in the turn it was read; so is an urgent event with nothing of
    // its conversation waiting.
    const now = this.size === 0 ? this.handed < SLICE : this.urgent?.(ev) === true && !(conv !== undefined && this.perConversation.has(conv));
    if (now) {
      this.count();
      this.deliver(ev, url);
      return;
    }
    this.waiting.push({ ev, url, conv });
    if (conv !== undefined) this.perConversation.set(conv, (this.perConversation.get(conv) ?? 0) + 1);
    while (this.size > MAX_WAITING) this.next();
    this.schedule();
  }

  /** Hands on everything waiting, now (the subscription closes: they were read, as if handed on when read). */
  flush(): void {
    while (this.size > 0) this.next();
  }

  private count(): void {
    if (this.handed++ === 0) this.schedule();
  }

  private next(): void {
    const w = this.waiting[this.head++]!;
    if (w.conv !== undefined) {
      const n = this.perConversation.get(w.conv)! - 1;
      if (n === 0) this.perConversation.delete(w.conv);
      else this.perConversation.set(w.conv, n);
    }
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    this.deliver(w.ev, w.url);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  // The next turn: a new slice.
  private drain(): void {
    this.scheduled = false;
    this.handed = 0;
    while (this.handed < SLICE && this.size > 0) {
      this.handed++;
      this.next();
    }
    if (this.size > 0 || this.handed > 0) this.schedule();
  }
}

function conversationOf(ev: NostrEvent): string | undefined {
  try {
    return conversationIdOf(ev);
  } catch {
    return undefined; // not event-shaped: the edge checks will say why
  }
}
