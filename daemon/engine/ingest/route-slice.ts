// A slice of events routed together (docs/performance.md, "A slice at once"): what a relay
// delivered in one turn of the event loop, gathered by slice-collector.ts. One event at a time,
// the route (route.ts) made ~17 promises an event and stayed suspended, its state held until the
// flush; a slice has its checks before the signatures made in one pass, its signatures checked in
// one message, each event staged in arrival order, and one wait for the flush. The events of a
// conversation to read wait for its read together (conversation-reads.ts); what else would wait
// goes on alone, with the one-event route's steps (RouteSteps).

import type { Verdict } from "../../../adapters/verify/verify-protocol.js";
import { mapPacked } from "../../../src/map-packed.js";
import type { Clock } from "../../../src/ports.js";
import type { NostrEvent } from "../../../src/types.js";
import type { ConversationStore } from "../store/conversation-store.js";
import type { ArrivalOrder, Ticket } from "./arrival-order.js";
import { conversationHint, sentId, type Checked, type InboundChecks, type IngestOptions, type IngestOutcome, type Signable } from "./checks.js";
import type { ConversationQueues } from "./conversation-queues.js";
import { ConversationReads, type ReadGroup } from "./conversation-reads.js";
import type { RouteDeps, RouteTimes, Staged } from "./route.js";

/** One event of a slice (fromRelayMany), delivered by a relay. */
export interface SliceItem {
  raw: unknown;
  relay: string | undefined;
  /** History: stored, but no agent set to work. */
  quiet: boolean;
  /** A back-fill's: nobody waits for it (IngestOptions.bulk). */
  bulk?: boolean;
}

/** One event of a slice past the checks before its signature. */
interface SliceEvent {
  /** Its index in the slice. */
  i: number;
  pre: Signable;
  opts: IngestOptions;
  ticket: Ticket | undefined;
}


/** Where a slice's events end: their outcomes, their failures, their routes alone from here. */
interface SliceEnds {
  outcome(i: number, o: IngestOutcome): void;
  failed(i: number, err: unknown): void;
  alone(i: number, p: Promise<IngestOutcome>): void;
}

/** A slice's checked event waiting for its conversation's read (conversation-reads.ts). */
interface Waiting {
  i: number;
  checked: Checked;
  quiet: boolean;
  now: number;
  arrived: number;
  checkedAt: number;
  ends: SliceEnds;
}

/** A staged event, waiting for its flush with the others of its slice (or read). */
interface StagedAt {
  i: number;
  s: Staged;
  ends: SliceEnds;
}

/** What a slice takes of the one-event route (route.ts): its state and its steps. */
export interface RouteSteps {
  /** Events on their way, by id: copies and replies wait for them. */
  inFlight: Map<string, Promise<unknown>>;
  order: ArrivalOrder;
  checks: InboundChecks;
  verifier: RouteDeps["verifier"];
  store: ConversationStore;
  queues: ConversationQueues;
  clock: Clock;
  /** One event's whole route. */
  ingest(raw: unknown, opts: IngestOptions): Promise<IngestOutcome>;
  rootInFlight(id: string): Promise<unknown> | undefined;
  /** In its conversation's task: the event's records and its runs, committed. */
  stage(convId: string, ev: NostrEvent, origin: "relay" | "local", quiet: boolean, now: number): Staged | undefined | Promise<Staged | undefined>;
  /** A checked event, from its turn in its conversation's line to its acknowledgement. */
  onward(checked: Checked, opts: IngestOptions, now: number, ticket: Ticket | undefined, arrived: number): Promise<IngestOutcome>;
  durableRuns(staged: Staged): Promise<void>;
  acknowledge(staged: Staged, times?: RouteTimes): IngestOutcome;
}

export class SliceRoute {
  /** The end of the last slice's staging: the next slice's starts after it. */
  private staging: Promise<void> = Promise.resolve();
  private readonly reads: ConversationReads<Waiting>;

  constructor(private readonly steps: RouteSteps) {
    this.reads = new ConversationReads<Waiting>({
      order: steps.order, store: steps.store,
      read: (group) => this.stageRead(group),
      failed: (group, err) => {
        for (const t of group.tickets) steps.order.leave(t);
        for (const w of group.items) w.ends.failed(w.i, err);
        this.untrack(group);
      },
    });
  }

  /**
   * Events a relay delivered together (live, or a back-fill's: `bulk`). One whose conversation
   * must be read waits for the read, with the events right after it in line (this slice's or the
   * next ones'). An event that would wait on its own goes on alone from where it is: a copy of one
   * on its way, an urgent one (checked inline, in its own lane), a note placed only once its root
   * is, one whose conversation is busy or has an earlier event still on its way. `outcome(i, o)`
   * is told each event's outcome; `failed(i, err)` that it could not be stored.
   */
  route(items: readonly SliceItem[], outcome: (i: number, o: IngestOutcome) => void, failed: (i: number, err: unknown) => void): void {
    const arrived = performance.now();
    const now = this.steps.clock.now();
    const alone = (i: number, p: Promise<IngestOutcome>) => void p.then((o) => outcome(i, o), (err: unknown) => failed(i, err));
    const ends: SliceEnds = { outcome, failed, alone };
    const mine: SliceEvent[] = [];
    let done!: () => void;
    const slice = new Promise<void>((resolve) => (done = resolve));
    let opts: IngestOptions | undefined;
    // The duplicates among them in one look (one index query for those of conversations not in memory).
    const ids = mapPacked(items, (item) => sentId(item.raw));
    const convs = mapPacked(items, (item) => conversationHint(item.raw));
    let held: Set<string> | Error;
    try {
      held = this.steps.checks.heldAmong(ids, convs);
    } catch (err) {
      held = asError(err); // each event fails with it, as its own lookup would have
    }
    for (let i = 0; i < items.length; i++) {
      let ticket: Ticket | undefined;
      try {
        const { raw, relay, quiet, bulk = false } = items[i]!;
        // One options object for the events that came the same way (a slice's, as a rule).
        if (opts === undefined || opts.relay !== relay || opts.quiet !== quiet || opts.bulk !== bulk) opts = { origin: "relay", ...(relay ? { relay } : {}), quiet, bulk };
        const id = ids[i];
        if (id === undefined || this.steps.inFlight.has(id)) {
          alone(i, this.steps.ingest(raw, opts));
          continue;
        }
        const conv = convs[i];
        if (held instanceof Error) throw held;
        if (held.has(id)) {
          outcome(i, this.steps.checks.duplicate(id, conv));
          continue;
        }
        ticket = conv === undefined ? undefined : this.steps.order.take(conv, conv === id);
        const pre = this.steps.checks.beforeSignature(raw, opts, now, this.steps.rootInFlight);
        if (pre instanceof Promise || ("ev" in pre && pre.urgent)) {
          alone(i, this.track(id, this.checkedAlone(this.steps.checks.signed(pre, opts, this.steps.rootInFlight), opts, now, ticket, arrived)));
        } else if (!("ev" in pre)) {
          if (ticket) this.steps.order.leave(ticket);
          outcome(i, pre);
        } else {
          this.steps.inFlight.set(id, slice);
          mine.push({ i, pre, opts, ticket });
        }
      } catch (err) {
        if (ticket) this.steps.order.leave(ticket);
        failed(i, err);
      }
    }
    const verdicts = mine.length === 0 ? Promise.resolve([]) : this.verifyAll(mapPacked(mine, (m) => m.pre.ev));
    // Slices are staged in the order they came: the tickets of one are gone before the next's turn.
    const staging = Promise.all([verdicts, this.staging]).then(([v]) => this.stageSlice(mine, v, now, arrived, ends, slice, done));
    // A slice that could not be staged at all still ends: what waits for its events goes on.
    this.staging = staging.then(() => undefined, () => done());
  }

  /** The verdicts of `evs` in their order, or why there are none. */
  private verifyAll(evs: readonly NostrEvent[]): Promise<Verdict[] | Error> {
    const { verifier } = this.steps;
    try {
      return (verifier.checkMany ? verifier.checkMany(evs) : Promise.all(evs.map((ev) => verifier.check(ev)))).catch(asError);
    } catch (err) {
      return Promise.resolve(asError(err));
    }
  }

  /** A slice's events once their signatures are checked (`verdicts`, or why there are none), in arrival order. */
  private stageSlice(
    mine: readonly SliceEvent[], verdicts: readonly Verdict[] | Error, now: number, arrived: number,
    ends: SliceEnds, slice: Promise<void>, done: () => void,
  ): void {
    const { outcome, failed, alone } = ends;
    const checkedAt = performance.now();
    const staged: StagedAt[] = [];
    for (let k = 0; k < mine.length; k++) {
      const { i, pre, opts, ticket } = mine[k]!;
      const id = pre.ev.id;
      try {
        const verdict = verdicts instanceof Error ? verdicts : verdicts[k] ?? new Error("the verifier gave no verdict");
        const after = verdict instanceof Error ? this.steps.checks.verifyFailed(verdict, pre.ev, opts) : this.steps.checks.afterSignature(pre, verdict, opts, this.steps.rootInFlight);
        if (after instanceof Promise || !this.stagesNow(after, ticket)) {
          // Its conversation to read (or being read for the event before it): it waits for the read.
          const group = !(after instanceof Promise) && after.status === "checked" && ticket?.conversationId === after.conversationId
            ? this.reads.wait(after.conversationId, ticket, { i, checked: after, quiet: opts.quiet ?? false, now, arrived, checkedAt, ends })
            : undefined;
          if (group) this.steps.inFlight.set(id, group.done);
          else alone(i, this.track(id, this.checkedAlone(after, opts, now, ticket, arrived)));
          continue;
        }
        if (after.status !== "checked") {
          if (ticket) this.steps.order.leave(ticket);
          outcome(i, after);
          continue;
        }
        const s = this.steps.stage(after.conversationId, after.ev, "relay", opts.quiet ?? false, now);
        if (ticket) this.steps.order.leave(ticket);
        this.place(i, s, after, arrived, checkedAt, ends, staged);
      } catch (err) {
        if (ticket) this.steps.order.leave(ticket);
        failed(i, err);
      }
    }
    void this.settle(staged, () => {
      for (const { pre } of mine) if (this.steps.inFlight.get(pre.ev.id) === slice) this.steps.inFlight.delete(pre.ev.id);
      done();
    });
  }

  /**
   * A read conversation's waiting events, staged in line order in one task of its queue (their
   * tickets leave once it is queued), then acknowledged together once durable. An event whose
   * staging must wait (the read found no aggregate: a log a crash left empty) is waited for before
   * the next is staged, as separate tasks would be.
   */
  private stageRead(group: ReadGroup<Waiting>): Promise<void> {
    const { conversationId, items } = group;
    const task = this.steps.queues.run(conversationId, async () => {
      const results: (Staged | undefined | { failed: unknown })[] = [];
      for (const w of items) {
        try {
          const s = this.steps.stage(conversationId, w.checked.ev, "relay", w.quiet, w.now);
          results.push(s instanceof Promise ? await s : s);
        } catch (err) {
          results.push({ failed: err });
        }
      }
      return results;
    });
    for (const t of group.tickets) this.steps.order.leave(t);
    return task.then(
      (results) => {
        const staged: StagedAt[] = [];
        results.forEach((s, k) => {
          const w = items[k]!;
          if (s && "failed" in s) w.ends.failed(w.i, s.failed);
          else this.place(w.i, s, w.checked, w.arrived, w.checkedAt, w.ends, staged);
        });
        return this.settle(staged, () => this.untrack(group));
      },
      (err: unknown) => {
        for (const w of items) w.ends.failed(w.i, err);
        this.untrack(group);
      },
    );
  }

  /** A staged event: waits for the flush with the others, or goes on alone (its conversation read again, its runs to start). */
  private place(
    i: number, s: Staged | undefined | Promise<Staged | undefined>, checked: Checked, arrived: number, checkedAt: number,
    ends: SliceEnds, staged: StagedAt[],
  ): void {
    const id = checked.ev.id;
    if (s instanceof Promise || (s && s.runs.length > 0)) ends.alone(i, this.track(id, this.stagedAlone(s, checked, arrived, checkedAt)));
    else if (!s) ends.outcome(i, this.steps.checks.duplicate(id, checked.conversationId));
    else staged.push({ i, s, ends });
  }

  /** Once the staged events are durable, each is acknowledged (or failed, its append having failed); then `end`. */
  private settle(staged: readonly StagedAt[], end: () => void): Promise<void> {
    if (staged.length === 0) {
      end();
      return Promise.resolve();
    }
    const durables = staged.map(({ s }) => s.durable);
    const finish = (results?: PromiseSettledResult<unknown>[]) => {
      staged.forEach(({ i, s, ends }, k) => {
        const r = results?.[k];
        if (r?.status === "rejected") ends.failed(i, r.reason);
        else ends.outcome(i, this.steps.acknowledge(s));
      });
      end();
    };
    // Some append failed: which ones, each on its own.
    return Promise.all(durables).then(() => finish(), () => Promise.allSettled(durables).then(finish));
  }

  /** A group's events are settled: copies and replies no longer wait for it. */
  private untrack(group: ReadGroup<Waiting>): void {
    for (const w of group.items) if (this.steps.inFlight.get(w.checked.ev.id) === group.done) this.steps.inFlight.delete(w.checked.ev.id);
  }

  /**
   * Whether a slice's checked event can be staged right here, with no promise: its turn in its
   * conversation's line has come, the conversation is in memory (or new) and nothing of it is
   * queued. A refused event has nothing to wait for.
   */
  private stagesNow(after: Checked | IngestOutcome, ticket: Ticket | undefined): boolean {
    if (after.status !== "checked") return true;
    const id = after.conversationId;
    return (!ticket || this.steps.order.isTurn(ticket)) && !this.steps.queues.isBusy(id) && (this.steps.store.loaded(id) !== undefined || !this.steps.store.has(id));
  }

  /** `p` is an event's route from here: copies and replies wait for it, not for its slice. */
  private track(id: string, p: Promise<IngestOutcome>): Promise<IngestOutcome> {
    this.steps.inFlight.set(id, p);
    const untrack = () => {
      if (this.steps.inFlight.get(id) === p) this.steps.inFlight.delete(id);
    };
    p.then(untrack, untrack);
    return p;
  }

  /** One event of a slice that goes on alone, from its checks (`after`, or what is left of them) on. */
  private async checkedAlone(
    after: Checked | IngestOutcome | Promise<Checked | IngestOutcome>, opts: IngestOptions, now: number, ticket: Ticket | undefined, arrived: number,
  ): Promise<IngestOutcome> {
    try {
      const checked = after instanceof Promise ? await after : after;
      if (checked.status !== "checked") return checked;
      return await this.steps.onward(checked, opts, now, ticket, arrived);
    } finally {
      if (ticket) this.steps.order.leave(ticket);
    }
  }

  /** One event of a slice staged but not plainly: its conversation read again, or its runs to start. */
  private async stagedAlone(
    s: Staged | undefined | Promise<Staged | undefined>, checked: Checked, arrived: number, checkedAt: number,
  ): Promise<IngestOutcome> {
    const staged = s instanceof Promise ? await s : s;
    if (!staged) return this.steps.checks.duplicate(checked.ev.id, checked.conversationId);
    if (staged.runs.length === 0) {
      await staged.durable;
      return this.steps.acknowledge(staged);
    }
    const stagedAt = performance.now();
    await this.steps.durableRuns(staged);
    return this.steps.acknowledge(staged, { arrived, checked: checkedAt, staged: stagedAt, durable: performance.now() });
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
