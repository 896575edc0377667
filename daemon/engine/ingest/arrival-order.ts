// The events of one conversation enter its queue in the order they arrived, though their checks
// run at once and some finish sooner (an urgent event is checked inline, the others may wait for
// the verifier's workers): a trigger never overtakes what was said before it
// (docs/performance.md, "From a message to its agent").
//
// Tickets in a line per conversation: an event whose predecessors have all entered (or left:
// refused, duplicate) goes on at once, with no promise made; only one that finished its checks
// early waits. A root starts a new line and never waits: a reply that came before its root may
// be waiting for that root's check (checks.ts, place), and the events after the root wait for it.

interface Line {
  /** Tickets handed out. */
  issued: number;
  /** Every ticket below this one has entered or left. */
  next: number;
  /** Tickets at or above `next` that already entered or left. */
  done?: Set<number>;
  /** Tickets waiting for their turn. */
  waiters?: Map<number, () => void>;
}

export interface Ticket {
  readonly conversationId: string;
  readonly line: Line;
  readonly n: number;
  gone: boolean;
}

export class ArrivalOrder {
  private readonly lines = new Map<string, Line>();

  /** The event's place in its conversation's line; `root`: it starts a new line. */
  take(conversationId: string, root: boolean): Ticket {
    let line = root ? undefined : this.lines.get(conversationId);
    if (!line) {
      line = { issued: 0, next: 0 };
      this.lines.set(conversationId, line);
    }
    return { conversationId, line, n: line.issued++, gone: false };
  }

  /** Whether the ticket's turn has come (turn() would make no promise). */
  isTurn(t: Ticket): boolean {
    return t.line.next === t.n;
  }

  /**
   * Whether `t` comes right after `before` in their line: every ticket between them has left
   * (refused, a duplicate). `before` has not left yet.
   */
  follows(t: Ticket, before: Ticket): boolean {
    if (t.line !== before.line || t.n <= before.n) return false;
    for (let n = before.n + 1; n < t.n; n++) if (!t.line.done?.has(n)) return false;
    return true;
  }

  /** Undefined when the ticket's turn has come; else a promise of it. */
  turn(t: Ticket): Promise<void> | undefined {
    if (t.line.next === t.n) return undefined;
    return new Promise((resolve) => (t.line.waiters ??= new Map()).set(t.n, resolve));
  }

  /** The event entered its queue or left the route; the next in line may go. Idempotent. */
  leave(t: Ticket): void {
    if (t.gone) return;
    t.gone = true;
    const line = t.line;
    if (t.n !== line.next) {
      (line.done ??= new Set()).add(t.n);
      return;
    }
    line.next++;
    while (line.done?.delete(line.next)) line.next++;
    line.waiters?.get(line.next)?.();
    line.waiters?.delete(line.next);
    if (line.next === line.issued && this.lines.get(t.conversationId) === line) this.lines.delete(t.conversationId);
  }

  /** Conversations with events in line (tests). */
  get size(): number {
    return this.lines.size;
  }
}
