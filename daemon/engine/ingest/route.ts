// The route of one inbound event, composed here and nowhere else, in the order of
// docs/architecture.md:
//
//   relay → checks → conversation → log → index → runs → outbox
//
// Events from the relays enter at `fromRelay` (live, back-fill, thread fetches); the daemon's own
// at `publish` (signed here, then taken in like any other) or `inConversation` (a decision's
// records and the event it publishes, in one task of the conversation's queue). The checks are
// checks.ts; the conversation step loads it before its queue and, in one task, folds and appends
// the event's records and the runs it starts (src/runs.ts decides them, once); the log makes them
// durable together (group commit), and the store feeds the index from there
// (store/index-feeder.ts); only then is the event acknowledged: its runs start, and the daemon's
// own event goes to the outbox.

import type { Conversation } from "../../../src/conversation-state.js";
import { NotFoundError, PublishRefusedError } from "../../../src/errors.js";
import type { Limits } from "../../../src/edge/validate-inbound.js";
import { decideInbound } from "../../../src/inbound.js";
import type { Clock, Decision, Signer } from "../../../src/ports.js";
import { decideRuns } from "../../../src/runs.js";
import type { NostrEvent, ProjectInfo, UnsignedEvent } from "../../../src/types.js";
import type { Verdict } from "../../../adapters/verify/verify-protocol.js";
import type { CommandAgent } from "../agents/command-agents.js";
import type { ConversationStore } from "../store/conversation-store.js";
import { ArrivalOrder, type Ticket } from "./arrival-order.js";
import { conversationHint, InboundChecks, sentId, type Checked, type IngestOptions, type IngestOutcome } from "./checks.js";
import type { ConversationQueues } from "./conversation-queues.js";
import type { IngestCounters } from "./counters.js";
import { SliceRoute, type SliceItem } from "./route-slice.js";

export type { IngestOptions, IngestOutcome } from "./checks.js";
export type { SliceItem } from "./route-slice.js";

export interface RouteDeps {
  project: ProjectInfo;
  limits: Limits;
  /** `checkMany`, when it has one: the verdicts of a slice's events (fromRelayMany) in one go. */
  verifier: { check(ev: NostrEvent, urgent?: boolean): Promise<Verdict>; checkMany?(evs: readonly NostrEvent[]): Promise<Verdict[]> };
  store: ConversationStore;
  queues: ConversationQueues;
  counters: IngestCounters;
  clock: Clock;
  /** The agents the daemon runs itself, by pubkey (src/runs.ts sets only these to work). */
  runnable: ReadonlyMap<string, CommandAgent>;
  /** Whose events the daemon can sign. */
  signers: ReadonlyMap<string, Signer>;
}

/**
 * When an event that sets agents to work passed each step of the route (performance.now(), ms):
 * handed to the route, checked, staged in its conversation (after its turn and its queue),
 * durable. The runner adds its own steps and the status shows them (src/latency-window.ts).
 */
export interface RouteTimes {
  arrived: number;
  checked: number;
  staged: number;
  durable: number;
}

/** Where the route leads once an event is durable; connected when the engine has built them. */
export interface RouteExits {
  runs: {
    /** Once durable: the run starts (the agent's program is given its input). */
    trigger(conversationId: string, agent: CommandAgent, ev: NostrEvent, times?: RouteTimes): void;
    /** Staged, not yet durable: what can start without the trigger (the program's process) may. */
    prepare?(ev: NostrEvent, agent: CommandAgent): void;
    /** What `prepare` started is stopped: the trigger will not be durable (its append failed). */
    abandon?(ev: NostrEvent, agent: CommandAgent): void;
  };
  outbox: { enqueue(ev: NostrEvent, conversationId: string): Promise<void> };
  /** A reply whose root we have never seen: fetch the root and its thread (best effort). */
  threads: { request(rootId: string, quiet: boolean): void };
}

/** One event in its conversation: its records appended (durable later) and the runs it starts. */
export interface Staged {
  conv: Conversation;
  ev: NostrEvent;
  runs: CommandAgent[];
  durable: Promise<unknown>;
}

// Until connected (tests and benchmarks of the route alone): nobody runs, nothing goes out.
const NOWHERE: RouteExits = { runs: { trigger: () => undefined }, outbox: { enqueue: async () => undefined }, threads: { request: () => undefined } };

export class InboundRoute {
  private readonly checks: InboundChecks;
  private readonly slices: SliceRoute;
  /**
   * Events on their way, by id: a copy waits for the original instead of paying again, a reply for
   * its root. Settles once the event is stored or refused (a slice's, once the whole slice is).
   */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** Per conversation (as the event names it), the events in the order they arrived. */
  private readonly order = new ArrivalOrder();
  private exits: RouteExits = NOWHERE;

  constructor(private readonly d: RouteDeps) {
    this.checks = new InboundChecks(d);
    this.slices = new SliceRoute({
      inFlight: this.inFlight, order: this.order, checks: this.checks,
      verifier: d.verifier, store: d.store, queues: d.queues, clock: d.clock,
      ingest: (raw, opts) => this.ingest(raw, opts), rootInFlight: this.rootInFlight,
      stage: (convId, ev, origin, quiet, now) => this.stage(convId, ev, origin, quiet, now),
      onward: (checked, opts, now, ticket, arrived) => this.onward(checked, opts, now, ticket, arrived),
      durableRuns: (staged) => this.durableRuns(staged), acknowledge: (staged, times) => this.acknowledge(staged, times),
    });
  }

  connect(exits: RouteExits): void {
    this.exits = exits;
  }

  /** relay: an event a relay delivered; `quiet`: history, no agent runs; `bulk`: nobody waits for it. */
  readonly fromRelay = (raw: unknown, relay: string | undefined, quiet: boolean, bulk: boolean): Promise<IngestOutcome> =>
    this.ingest(raw, { origin: "relay", ...(relay ? { relay } : {}), quiet, bulk });

  /**
   * Events a relay delivered together (a turn of the live subscription, about a socket read's
   * worth; a back-fill's, as its pages come in), routed together: route-slice.ts. `outcome(i, o)`
   * is told each event's outcome; `failed(i, err)` that it could not be stored (its append
   * failed: not the event's fault; it is taken when it comes again).
   */
  fromRelayMany(items: readonly SliceItem[], outcome: (i: number, o: IngestOutcome) => void, failed: (i: number, err: unknown) => void): void {
    this.slices.route(items, outcome, failed);
  }

  /**
   * Checks and stores one inbound event; resolves when it is acknowledged (durable) or refused.
   * Not itself async: an event goes straight on to its route, with no promise of its own to
   * wait for it (each promise is CPU and garbage: the live path made 27 an event, now 17).
   */
  ingest(raw: unknown, opts: IngestOptions = {}): Promise<IngestOutcome> {
    try {
      const id = sentId(raw);
      const original = id !== undefined ? this.inFlight.get(id) : undefined;
      // Copies arrive together (several relays; the live subscription and a back-fill racing).
      if (original) return this.afterOriginal(original, raw, opts);
      return this.unlessHeld(raw, opts, id, true);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // If the original is stored by then, the copy is a duplicate; if it was refused, the copy may
  // differ (same id, other signature), and if its append failed it was not stored: either way the
  // copy is checked on its own.
  private async afterOriginal(original: Promise<unknown>, raw: unknown, opts: IngestOptions): Promise<IngestOutcome> {
    await original.catch(() => undefined);
    return this.unlessHeld(raw, opts, sentId(raw), false);
  }

  // Relays repeat themselves (several relays, overlap windows, reconnects): a copy of an event
  // we hold is dropped here, before paying for its checks and its signature. `track`: the route
  // is the one copies of this id wait for (it leaves `inFlight` when it ends).
  private unlessHeld(raw: unknown, opts: IngestOptions, id: string | undefined, track: boolean): Promise<IngestOutcome> {
    if (this.checks.held(raw)) return Promise.resolve(this.checks.duplicate(id!, conversationHint(raw)));
    if (id === undefined || !track) return this.route(raw, opts);
    // The route yields before it ends (its checks are awaited), so it is in `inFlight` by then.
    const run = this.route(raw, opts, id);
    this.inFlight.set(id, run);
    return run;
  }

  /**
   * The route, step by step. The checks of many events run at once, and some finish sooner
   * (an urgent event is checked inline, the others may wait for the pool's workers), but the
   * events of one conversation enter its queue in the order they arrived: a trigger never overtakes
   * what was said before it, and is the end of its agent's context (arrival-order.ts).
   */
  private async route(raw: unknown, opts: IngestOptions, tracked?: string): Promise<IngestOutcome> {
    const arrived = performance.now();
    let ticket: Ticket | undefined;
    try {
      const now = this.d.clock.now();
      const conv = conversationHint(raw);
      ticket = conv === undefined ? undefined : this.order.take(conv, conv === sentId(raw));
      const checked = await this.checks.check(raw, opts, now, this.rootInFlight);
      if (checked.status !== "checked") return checked;
      return await this.onward(checked, opts, now, ticket, arrived);
    } finally {
      if (ticket) this.order.leave(ticket);
      if (tracked !== undefined) this.inFlight.delete(tracked);
    }
  }

  private readonly rootInFlight = (id: string): Promise<unknown> | undefined => this.inFlight.get(id);

  /** A checked event, from its turn in its conversation's line to its acknowledgement. */
  private async onward(checked: Checked, opts: IngestOptions, now: number, ticket: Ticket | undefined, arrived: number): Promise<IngestOutcome> {
    const checkedAt = performance.now();
    const turn = ticket && this.order.turn(ticket);
    if (turn) await turn;
    const staged = await this.intoConversation(checked, opts, now, ticket);
    if (!staged) return this.checks.duplicate(checked.ev.id, checked.conversationId);
    const stagedAt = performance.now();
    if (staged.runs.length === 0) {
      await staged.durable;
      return this.acknowledge(staged);
    }
    await this.durableRuns(staged);
    return this.acknowledge(staged, { arrived, checked: checkedAt, staged: stagedAt, durable: performance.now() });
  }

  /**
   * conversation: the event joins its conversation's queue. Most events find their conversation
   * in memory: they are queued at once, with no promise of their own (the queue holds the
   * conversation in memory from there: ConversationStore's `isBusy`). A back-fill's events go the
   * same way: they once waited at a gate to be staged in groups of up to 1,000 (small flushes
   * synced one file an event), but a flush now gathers what comes while the one before it runs,
   * and without the gate a catch-up ran 5,186-5,439 ev/s against 4,626-5,131 (quick runs, 5 each).
   */
  private intoConversation(c: Checked, opts: IngestOptions, now: number, ticket: Ticket | undefined): Promise<Staged | undefined> {
    if (this.d.store.loaded(c.conversationId)) return this.enqueue(c, opts, now, ticket);
    return this.loadThenEnqueue(c, opts, now, ticket);
  }

  /**
   * A stored conversation that is not in memory is loaded here, before its queue (loaded in the
   * queue task, each read held one of the few global slots while every other conversation's
   * events waited, and the 200 loads of a catch-up ran 8 at a time). Pinned until its task has
   * run: evicted in between, it would be read a second time there. The task folds and appends
   * but does not wait for the fsync: the next event of the same conversation proceeds at once and
   * many share one fsync (group commit).
   */
  private async loadThenEnqueue(c: Checked, opts: IngestOptions, now: number, ticket: Ticket | undefined): Promise<Staged | undefined> {
    this.d.store.pin(c.conversationId);
    try {
      if (!this.d.store.loaded(c.conversationId)) await this.d.store.get(c.conversationId);
      return await this.enqueue(c, opts, now, ticket);
    } finally {
      this.d.store.unpin(c.conversationId);
    }
  }

  private enqueue(c: Checked, opts: IngestOptions, now: number, ticket: Ticket | undefined): Promise<Staged | undefined> {
    const { origin = "relay", quiet = false } = opts;
    const task = this.d.queues.run(c.conversationId, () => this.stage(c.conversationId, c.ev, origin, quiet, now), c.urgent);
    if (ticket) this.order.leave(ticket);
    return task;
  }

  /**
   * log: in the conversation's queue, the event's records (src/inbound.ts) and then, on the state
   * they produced, who it sets to work (src/runs.ts), appended in the same flush: a crash cannot
   * separate an acknowledged event from its runs.
   */
  private stage(convId: string, ev: NostrEvent, origin: "relay" | "local", quiet: boolean, now: number): Staged | undefined | Promise<Staged | undefined> {
    const known = this.d.store.has(convId);
    // Loaded before the queue and pinned, the conversation is almost always in memory here: then
    // the event is staged without a promise. Dropped meanwhile (a failed append), it is read again.
    const conv = this.d.store.loadedOrCreated(convId, this.d.project.coordinate);
    if (conv) return this.stageIn(conv, known, ev, origin, quiet, now);
    return this.d.store.getOrCreate(convId, this.d.project.coordinate).then((c) => this.stageIn(c, known, ev, origin, quiet, now));
  }

  private stageIn(conv: Conversation, known: boolean, ev: NostrEvent, origin: "relay" | "local", quiet: boolean, now: number): Staged | undefined {
    const convId = conv.id;
    const records = decideInbound(conv, ev, origin, now);
    if (records.length === 0) return undefined;
    const event = this.d.store.commit(conv, records);
    const runs = quiet ? [] : decideRuns(conv, ev, this.d.project, this.d.runnable);
    let durable: Promise<unknown> = event.durable;
    if (runs.length > 0) {
      const pending = this.d.store.commit(conv, runs.map((a) => ({ t: "run_pending" as const, at: now, agent: a.pubkey, trigger: ev.id })));
      durable = Promise.all([durable, pending.durable]);
    }
    if (!known && convId !== ev.id) this.exits.threads.request(convId, quiet);
    return { conv, ev, runs, durable };
  }

  /**
   * A trigger's agents' processes start while it is made durable (AgentRunner.prepare): they are
   * given nothing before it is, and stopped if it never is. Started here, as soon as it is
   * staged, the spawn (~0.5 ms of this thread with posix_spawn, adapters/spawn) runs while the log
   * opens the trigger's file. (With child_process's fork, ~2 ms, starting once the flush had posted
   * its write was tried: the program started ~0.8 ms later and had its input no sooner, a fork
   * holding up this process's other threads too.)
   * `alongside`: what else must be durable before they run (an agent's event's own task).
   */
  private async durableRuns(staged: Staged, alongside?: Promise<unknown>): Promise<void> {
    const runs = this.exits.runs;
    for (const agent of staged.runs) runs.prepare?.(staged.ev, agent);
    try {
      await (alongside ? Promise.all([alongside, staged.durable]) : staged.durable);
    } catch (err) {
      for (const agent of staged.runs) runs.abandon?.(staged.ev, agent);
      throw err;
    }
  }

  /** runs: once durable (the index is fed from there), the event is counted and its runs start. */
  private acknowledge(staged: Staged, times?: RouteTimes): IngestOutcome {
    this.d.counters.accepted.total++;
    for (const agent of staged.runs) this.exits.runs.trigger(staged.conv.id, agent, staged.ev, times);
    return { status: "accepted", eventId: staged.ev.id, conversationId: staged.conv.id };
  }

  /**
   * outbox: the daemon's own event, signed as `author`, taken in like any other (in its log,
   * durable, routed), then handed to the outbox. A relay that is down delays publication; it never
   * loses a message.
   */
  async publish(author: string, unsigned: UnsignedEvent): Promise<NostrEvent> {
    const ev = await this.sign(author, unsigned);
    const outcome = await this.ingest(ev, { origin: "local" });
    const refused = refusalOf(outcome);
    if (refused) throw refused;
    // Not awaited: the event is durable; sending (and retrying) is the outbox's job.
    void this.exits.outbox.enqueue(ev, outcome.status === "accepted" ? outcome.conversationId : conversationHint(ev) ?? ev.id);
    return ev;
  }

  /**
   * A decision taken in the conversation's queue on its current state: its records committed
   * and, when it publishes an event, that event signed, checked and staged right after them in the
   * same task. Resolves once all of it is durable, the event acknowledged and handed to the
   * outbox. NotFoundError when there is no such conversation; PublishRefusedError (once the
   * records are durable) when the event is refused.
   */
  async inConversation<T>(
    convId: string, decide: (conv: Conversation, now: number) => Decision<T>, urgent = false,
  ): Promise<{ result: T; published?: NostrEvent }> {
    const task = await this.d.queues.run(convId, async () => {
      const conv = await this.d.store.get(convId);
      if (!conv) throw new NotFoundError("conversation", convId);
      const now = this.d.clock.now();
      const decision = decide(conv, now);
      const { durable } = this.d.store.commit(conv, decision.records);
      if (!decision.publish) return { decision, durable };
      try {
        return { decision, durable, own: await this.stageOwn(convId, decision.publish, now) };
      } catch (err) {
        return { decision, durable, refused: err };
      }
    }, urgent);
    // An agent's event that sets others to work (a routing, a completion) starts their programs
    // while it is made durable, as an inbound trigger does.
    const staged = task.own?.staged;
    if (staged && staged.runs.length > 0) await this.durableRuns(staged, task.durable);
    else await task.durable;
    if (task.refused !== undefined) throw task.refused;
    if (!task.own) return { result: task.decision.result };
    const { ev } = task.own;
    if (staged) {
      await staged.durable;
      this.acknowledge(staged);
    } else {
      this.checks.duplicate(ev.id, convId);
    }
    void this.exits.outbox.enqueue(ev, convId);
    return { result: task.decision.result, published: ev };
  }

  /** Inside the conversation's task: the daemon's own event, signed, checked and staged. */
  private async stageOwn(convId: string, own: { author: string; event: UnsignedEvent }, now: number): Promise<{ ev: NostrEvent; staged?: Staged }> {
    const ev = await this.sign(own.author, own.event);
    const checked = await this.checks.check(ev, { origin: "local" }, now, () => undefined);
    if (checked.status !== "checked") throw refusalOf(checked) ?? new PublishRefusedError(checked.status, "not taken in");
    // Its records were decided in this conversation's task: staged elsewhere, they would bypass that one's queue.
    if (checked.conversationId !== convId) throw new PublishRefusedError("other_conversation", `the event belongs to ${checked.conversationId}`);
    const staged = await this.stage(convId, ev, "local", false, now);
    return staged ? { ev, staged } : { ev };
  }

  private async sign(author: string, unsigned: UnsignedEvent): Promise<NostrEvent> {
    const signer = this.d.signers.get(author);
    if (!signer) throw new PublishRefusedError("no_key", `no key for ${author.slice(0, 12)}…`);
    return signer.sign(unsigned);
  }
}

/** Why the daemon's own event was not taken in; undefined when it was accepted or is already held. */
function refusalOf(outcome: IngestOutcome): PublishRefusedError | undefined {
  if (outcome.status === "rejected") return new PublishRefusedError(outcome.reason, outcome.detail);
  if (outcome.status === "ignored") return new PublishRefusedError(outcome.reason, "not a conversation event");
  if (outcome.status === "deferred") return new PublishRefusedError(outcome.reason, "its conversation is not known");
  return undefined;
}
