// One ordered queue per conversation (never two handlers on one conversation at once) under a
// global bound on how many conversations run at the same time. A conversation waiting for a
// slot waits in arrival order; after each of its tasks it queues again at the back, so a busy
// conversation cannot hold a slot while others wait.
//
// Hand-rolled rather than two levels of p-queue: every inbound event passes through here, and
// the two queues (with their events, timeouts and promise wrappers) cost ~8 µs per task, about a
// tenth of what an event costs the main thread in a burst.

interface Task {
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The tasks of one conversation not yet started; present while it has work queued or running. */
interface Lane {
  id: string;
  tasks: Task[];
}

export class ConversationQueues {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes waiting for a global slot, in arrival order. */
  private waiting: Lane[] = [];
  private waitingFrom = 0;
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly maxConcurrentConversations: number) {
    if (!(maxConcurrentConversations >= 1)) throw new RangeError(`maxConcurrentConversations must be at least 1, got ${maxConcurrentConversations}`);
  }

  /** Run `task` after every earlier task of the same conversation. */
  run<T>(conversationId: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Task = { run: task, resolve: resolve as (value: unknown) => void, reject };
      const lane = this.lanes.get(conversationId);
      if (lane) {
        lane.tasks.push(entry);
        return;
      }
      const fresh: Lane = { id: conversationId, tasks: [entry] };
      this.lanes.set(conversationId, fresh);
      this.ask(fresh);
    });
  }

  isBusy(conversationId: string): boolean {
    return this.lanes.has(conversationId);
  }

  /** `queued`: tasks not started yet; `running`: tasks under way. */
  depths(): { conversations: number; queued: number; running: number } {
    let queued = 0;
    for (const lane of this.lanes.values()) queued += lane.tasks.length;
    return { conversations: this.lanes.size, queued, running: this.running };
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    if (this.lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // The lane's first task wants a slot.
  private ask(lane: Lane): void {
    if (this.running < this.maxConcurrentConversations) this.start(lane);
    else this.waiting.push(lane);
  }

  private start(lane: Lane): void {
    const task = lane.tasks.shift() as Task;
    this.running++;
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(task.run());
    } catch (err) {
      result = Promise.reject(err);
    }
    result.then(task.resolve, task.reject).finally(() => this.finished(lane));
  }

  private finished(lane: Lane): void {
    this.running--;
    const next = this.nextWaiting();
    if (next) this.start(next);
    if (lane.tasks.length > 0) {
      this.ask(lane);
      return;
    }
    this.lanes.delete(lane.id);
    if (this.lanes.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  // A queue as an array with a moving head: shift() on a long array copies it.
  private nextWaiting(): Lane | undefined {
    if (this.waitingFrom >= this.waiting.length) return undefined;
    const lane = this.waiting[this.waitingFrom++];
    if (this.waitingFrom > 1024 && this.waitingFrom * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.waitingFrom);
      this.waitingFrom = 0;
    }
    return lane;
  }
}
