// A first-in first-out queue whose shift is O(1): an array with a moving head, compacted once
// the head is past half of it. shift() on a long array copies it, and the queues here (a flush's
// file calls, conversations waiting for a slot) hold hundreds to thousands.

export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++] as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Takes `item` out wherever it waits (a search: for rare moves only); false when absent. */
  remove(item: T): boolean {
    const at = this.items.indexOf(item, this.head);
    if (at < 0) return false;
    this.items.splice(at, 1);
    return true;
  }
}
