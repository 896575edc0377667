// Events handed over one at a time within a turn of the event loop, routed together at its end
// (InboundRoute.fromRelayMany). The live subscription hands events on a slice a turn
// (adapters/nostr/live-backlog.ts), and a socket read's frames in the turn they were read: each
// of those is one slice here.

export class SliceCollector<T> {
  private items: T[] = [];

  constructor(private readonly route: (items: T[]) => void) {}

  add(item: T): void {
    if (this.items.length === 0) queueMicrotask(this.flush);
    this.items.push(item);
  }

  private readonly flush = (): void => {
    const items = this.items;
    this.items = [];
    this.route(items);
  };
}
