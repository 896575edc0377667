// One ordered queue per conversation (never two handlers on one conversation at once) under a
// global bound on how many conversations run at the same time. A conversation waiting for a
// slot waits in arrival order; after each of its tasks it queues again at the back, so a busy
// conversation cannot hold a slot while others wait. A conversation with an urgent task queued
// (someone waits on it: a trigger, an agent's run; docs/performance.md, "From a message to its
// agent") takes the next free slot ahead of the others; its own tasks still run in their order.
//
// Hand-rolled rather than two levels of p-queue: every inbound event passes through here, and
// the two queues (with their events, timeouts and promise wrappers) cost ~8 µs per task, about a
// tenth of what an event costs the main thread in a burst.

import { Fifo } from "../../../src/fifo.js";

interface Task {
  run: () => unknown;
  urgent: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The tasks of one conversation not yet started; present while it has work queued or running. */
interface Lane {
  id: string;
  tasks: Task[];
  /** How many of its tasks are urgent. */
  urgentTasks: number;
  /** In `urgent` (waiting ahead of the others), in `waiting`, or neither (running or idle). */
  queued?: "urgent" | "waiting";
}

export class ConversationQueues {
  private readonly lanes = new Map<string, Lane>();
  /** Lanes waiting for a global slot, in arrival order. */
  private readonly waiting = new Fifo<Lane>();
  /** Lanes with an urgent task waiting for a slot, served first, in arrival order. */
  private urgent: Lane[] = [];
  private running = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly maxConcurrentConversations: number) {
    if (!(maxConcurrentConversations >= 1)) throw new RangeError(`maxConcurrentConversations must be at least 1, got ${maxConcurrentConversations}`);
  }

  /**
   * Run `task` after every earlier task of the same conversation; `urgent`: its conversation goes
   * ahead for a slot. The task may return its result or a promise of it.
   */
  run<T>(conversationId: string, task: () => T | Promise<T>, urgent = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Task = { run: task, urgent, resolve: resolve as (value: unknown) => void, reject };
      const lane = this.lanes.get(conversationId);
      if (lane) {
        lane.tasks.push(entry);
        if (urgent) lane.urgentTasks++;
        if (urgent && lane.queued === "waiting") this.promote(lane);
        return;
      }
      const fresh: Lane = { id: conversationId, tasks: [entry], urgentTasks: urgent ? 1 : 0 };
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
    else if (lane.urgentTasks > 0) this.urgent.push(Object.assign(lane, { queued: "urgent" as const }));
    else this.waiting.push(Object.assign(lane, { queued: "waiting" as const }));
  }

  // An urgent task joined a lane waiting behind the others: the lane moves ahead (rare: a
  // search of the waiting lanes is cheaper than bookkeeping on every task).
  private promote(lane: Lane): void {
    this.waiting.remove(lane);
    lane.queued = "urgent";
    this.urgent.push(lane);
  }

  private start(lane: Lane): void {
    lane.queued = undefined;
    const task = lane.tasks.shift() as Task;
    if (task.urgent) lane.urgentTasks--;
    this.running++;
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(task.run());
    } catch (err) {
      result = Promise.reject(err);
    }
    // One reaction for both outcomes (a `.finally` after it cost a second promise per task).
    result.then(
      (value) => {
        task.resolve(value);
        this.finished(lane);
      },
      (err: unknown) => {
        task.reject(err);
        this.finished(lane);
      },
    );
  }

  private finished(lane: Lane): void {
    this.running--;
    // A conversation with an urgent task still to run goes ahead before the slot is handed on.
    const urgentLeft = lane.urgentTasks > 0;
    if (urgentLeft) this.urgent.push(Object.assign(lane, { queued: "urgent" as const }));
    const next = this.nextWaiting();
    if (next) this.start(next);
    if (lane.tasks.length > 0) {
      if (!urgentLeft) this.ask(lane);
      return;
    }
    this.lanes.delete(lane.id);
    if (this.lanes.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  // Urgent lanes first (few: shifted as they are).
  private nextWaiting(): Lane | undefined {
    if (this.urgent.length > 0) return this.urgent.shift();
    return this.waiting.shift();
  }
}
