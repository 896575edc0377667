// A slice's events whose conversation is stored but not in memory (after a restart, a catch-up's
// first page names ~200 such conversations at once) wait here together for one read. Going on
// alone, the first event of each read its conversation and every later one of it, behind it in
// line, went alone too, page after page: 6,121 of a catch-up's 10,000 events took the one-event
// route (docs/performance.md, "Conversations to read"). Here the events that follow each other
// in their conversation's line join its read while it runs, and are staged together once it is
// done, in line order, in one task of the conversation's queue.

import type { ConversationStore } from "../store/conversation-store.js";
import type { ArrivalOrder, Ticket } from "./arrival-order.js";

/** The events of one conversation waiting for its read, in line order, and their tickets. */
export interface ReadGroup<E> {
  conversationId: string;
  items: E[];
  tickets: Ticket[];
  /** Settles once the group's events are stored or failed: their copies and replies wait for it. */
  done: Promise<void>;
}

export interface ConversationReadsDeps<E> {
  order: ArrivalOrder;
  store: ConversationStore;
  /** The read is done: stage the group (its tickets still held). Resolves once its events are settled. */
  read(group: ReadGroup<E>): Promise<void>;
  /** The read failed: every event of the group fails with it. */
  failed(group: ReadGroup<E>, err: unknown): void;
}

export class ConversationReads<E> {
  private readonly open = new Map<string, ReadGroup<E>>();

  constructor(private readonly d: ConversationReadsDeps<E>) {}

  /**
   * The group the event waits in, if it does: its conversation is being read for the event right
   * before it in line, or must be read and the event's turn has come. Undefined: not here.
   */
  wait(conversationId: string, ticket: Ticket, item: E): ReadGroup<E> | undefined {
    const g = this.open.get(conversationId);
    if (g) {
      if (!this.d.order.follows(ticket, g.tickets[g.tickets.length - 1]!)) return undefined;
      g.items.push(item);
      g.tickets.push(ticket);
      return g;
    }
    const { store } = this.d;
    if (!this.d.order.isTurn(ticket) || store.loaded(conversationId) !== undefined || !store.has(conversationId)) return undefined;
    let end!: () => void;
    const group: ReadGroup<E> = { conversationId, items: [item], tickets: [ticket], done: new Promise<void>((resolve) => (end = resolve)) };
    this.open.set(conversationId, group);
    // Kept in memory from its read until its events are settled (evicted before its task ran, it
    // would be read again there, one event at a time).
    store.pin(conversationId);
    const settled = store.get(conversationId).then(
      () => {
        this.close(group);
        return this.d.read(group);
      },
      (err: unknown) => {
        this.close(group);
        this.d.failed(group, err);
      },
    );
    const finish = () => {
      store.unpin(conversationId);
      end();
    };
    settled.then(finish, finish);
    return group;
  }

  /** No event joins the group from here. */
  private close(group: ReadGroup<E>): void {
    if (this.open.get(group.conversationId) === group) this.open.delete(group.conversationId);
  }
}
