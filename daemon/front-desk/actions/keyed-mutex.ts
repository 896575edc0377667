// One task at a time per key, in arrival order. Used where a decision reads the index and then
// publishes (the direct conversation of a pair): two concurrent first messages must not both
// decide "create". Not the conversation queues: a task here publishes, and publishing queues on
// the conversation, which would hold two of the queues' global slots at once.

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
