// The inbound path every event takes, in this order, before it touches any state:
//   edge checks (shape, size, kinds) → id + signature (worker pool) → project → authorisation
//   → the conversation's queue → records folded and appended → durable → acknowledged.
// A rejected event is counted with its reason and changes nothing else.

import type { Conversation } from "../../src/conversation-state.js";
import { projectOf } from "../../src/coordinate.js";
import { isConversationKind, KNOWN_KINDS } from "../../src/kinds.js";
import type { Clock } from "../../src/ports.js";
import { decideInbound } from "../../src/inbound.js";
import { refusal } from "../../src/routing.js";
import { decideRuns } from "../../src/runs.js";
import type { AgentInfo, NostrEvent, ProjectInfo } from "../../src/types.js";
import { validateInbound, type Limits } from "../../src/edge/validate-inbound.js";
import type { Verdict } from "../../adapters/verify/verify-protocol.js";
import type { ConversationStore } from "../store/conversation-store.js";
import { conversationIdOf } from "../../src/conversation-of.js";
import type { ConversationQueues } from "./conversation-queues.js";
import { BulkGate } from "./bulk-gate.js";
import type { IngestCounters } from "./counters.js";

export type IngestOutcome =
  | { status: "accepted"; eventId: string; conversationId: string }
  | { status: "duplicate"; eventId: string }
  | { status: "ignored"; reason: string; eventId?: string }
  /** A back-fill's reply met before its conversation's root, without a project tag: try it again later. */
  | { status: "deferred"; reason: string; eventId: string }
  | { status: "rejected"; reason: string; detail: string; eventId?: string };

/** Called once an accepted event is durable, with the agents it sets to work. */
export type OnAcknowledged = (conv: Conversation, ev: NostrEvent, runs: AgentInfo[]) => void;

export interface IngestOptions {
  origin?: "relay" | "local";
  /** The relay that delivered it, for rejection reports. */
  relay?: string;
  /** Store it but set no agent to work (the first back-fill of a project's history). */
  quiet?: boolean;
  /** Nobody waits for this one (a back-fill's): stage it together with others (bulk-gate.ts). */
  bulk?: boolean;
}

export interface PipelineDeps {
  project: ProjectInfo;
  limits: Limits;
  verifier: { check(ev: NostrEvent): Promise<Verdict> };
  store: ConversationStore;
  queues: ConversationQueues;
  counters: IngestCounters;
  clock: Clock;
  /** Whether the daemon runs an agent itself (src/runs.ts). */
  runsHere: (pubkey: string) => boolean;
  onAcknowledged: OnAcknowledged;
  /** A reply whose root we have never seen: fetch the root and its thread (best effort). */
  onUnknownRoot?: (rootId: string, quiet: boolean) => void;
}

// A back-fill's events are staged in groups of up to BULK_MAX, at least every BULK_LINGER_MS.
const BULK_LINGER_MS = 200;
const BULK_MAX = 1_000;

export class IngestPipeline {
  private readonly bulk = new BulkGate(BULK_LINGER_MS, BULK_MAX);

  constructor(private readonly d: PipelineDeps) {}

  /** Events being checked right now, by id: a copy waits for the original instead of paying again. */
  private readonly inFlight = new Map<string, Promise<IngestOutcome>>();

  /** Checks and stores one inbound event; resolves when it is acknowledged (durable) or refused. */
  async ingest(raw: unknown, opts: IngestOptions = {}): Promise<IngestOutcome> {
    const id = sentId(raw);
    const original = id !== undefined ? this.inFlight.get(id) : undefined;
    // Copies arrive together (several relays; the live subscription and a back-fill racing).
    // If the original is stored, the copy is a duplicate; if it was refused, the copy may
    // differ (same id, other signature) and is checked on its own.
    if (original) {
      const first = await original;
      if (first.status === "accepted" || first.status === "duplicate") return this.duplicate(first.eventId, conversationHint(raw));
    }
    // Relays repeat themselves (several relays, overlap windows, reconnects). An id we already
    // hold was checked when it was stored, and the id is the hash of the whole event: a copy is
    // dropped here, before paying for its checks and ~0.5 ms for its signature.
    if (id !== undefined && id.length === 64 && this.d.store.hasEvent(id, conversationHint(raw))) {
      return this.duplicate(id, conversationHint(raw));
    }
    const run = this.check(raw, opts);
    if (id === undefined || original) return run;
    this.inFlight.set(id, run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(id);
    }
  }

  private async check(raw: unknown, opts: IngestOptions): Promise<IngestOutcome> {
    const { origin = "relay", relay, quiet = false, bulk = false } = opts;
    const now = this.d.clock.now();
    const edge = validateInbound(raw, this.d.limits, KNOWN_KINDS, Math.floor(now / 1000));
    if (!edge.ok) return this.reject(edge.reason, edge.detail, idOf(raw), relay);
    const ev = edge.event;
    let verdict: Verdict;
    try {
      verdict = await this.d.verifier.check(ev);
    } catch (err) {
      // Not the event's fault: it is refused now and will be accepted when it comes again.
      return this.reject("verify_failed", err instanceof Error ? err.message : String(err), ev.id, relay);
    }
    if (verdict !== "ok") return this.reject(verdict, verdict === "bad_id" ? "id is not the event's hash" : "signature does not verify", ev.id, relay);
    if (!isConversationKind(ev.kind)) return this.ignore(`kind_${ev.kind}`, ev.id);

    const convId = conversationIdOf(ev);
    if (!convId) return this.reject("bad_tag_shape", "reply without a hex `E` root tag", ev.id, relay);
    const coord = projectOf(ev.tags);
    // Relays deliver other projects' events too (live delivery ignores #a filters).
    if (coord !== undefined && coord !== this.d.project.coordinate) return this.ignore("other_project", ev.id);
    // A reply without the project tag belongs to us only through its root. Delivered in order,
    // the root may still be being checked when the reply comes: wait for it rather than drop
    // the reply.
    const root = coord === undefined && !this.d.store.has(convId) ? this.inFlight.get(convId) : undefined;
    if (root) await root.catch(() => undefined);
    if (coord === undefined && !this.d.store.has(convId)) {
      // A back-fill pages newest first and meets replies before their roots: one without the
      // project tag is handed back, to be tried again once the back-fill has brought its root.
      if (bulk) return { status: "deferred", reason: "root_not_known_yet", eventId: ev.id };
      return this.ignore("no_project_tag", ev.id);
    }

    const refused = refusal(ev, this.d.project);
    if (refused) return this.reject(refused, `author ${ev.pubkey.slice(0, 12)}…`, ev.id, relay);

    // A stored conversation that is not in memory is loaded here, before its queue: loaded in the
    // queue task, each read held one of the few global slots (maxConcurrentConversations) while
    // every other conversation's events waited, and the 200 loads of a catch-up ran 8 at a time.
    // Pinned until its task has run: evicted in between, it would be read a second time there.
    this.d.store.pin(convId);
    let staged: Awaited<ReturnType<IngestPipeline["stage"]>>;
    try {
      await this.d.store.get(convId);
      if (bulk) await this.bulk.pass();
      // The queue task folds and appends but does not wait for the fsync: the next event of the
      // same conversation proceeds at once and many share one fsync (group commit). The effects
      // (acknowledgement, agent runs) wait for durability, outside the queue.
      staged = await this.d.queues.run(convId, () => this.stage(convId, ev, origin, quiet, now));
    } finally {
      this.d.store.unpin(convId);
    }
    if (!staged) return this.duplicate(ev.id, convId);
    await staged.durable;
    this.d.counters.accepted.total++;
    this.d.onAcknowledged(staged.conv, ev, staged.runs);
    return { status: "accepted", eventId: ev.id, conversationId: convId };
  }

  private async stage(convId: string, ev: NostrEvent, origin: "relay" | "local", quiet: boolean, now: number) {
    const known = this.d.store.has(convId);
    const conv = await this.d.store.getOrCreate(convId, this.d.project.coordinate);
    const records = decideInbound(conv, ev, origin, now);
    if (records.length === 0) return undefined;
    const first = this.d.store.commit(conv, records);
    // Who runs is decided on the state this event produced (a completion may have closed the
    // turn; the root says whose conversation it is) and made durable in the same flush as the
    // event: a crash cannot separate them.
    const runs = quiet ? [] : decideRuns(conv, ev, this.d.project, this.d.runsHere);
    const pending = this.d.store.commit(conv, runs.map((a) => ({ t: "run_pending" as const, at: now, agent: a.pubkey, trigger: ev.id })));
    if (!known && convId !== ev.id) this.d.onUnknownRoot?.(convId, quiet);
    return { conv, runs, durable: Promise.all([first.durable, pending.durable]) };
  }

  /** A copy of a stored event: an echo of one the daemon published, else a duplicate. */
  private duplicate(eventId: string, conversationId: string | undefined): IngestOutcome {
    if (this.d.store.publishedHere(eventId, conversationId)) this.d.counters.echoes.total++;
    else this.d.counters.duplicates.total++;
    return { status: "duplicate", eventId };
  }

  private reject(reason: string, detail: string, eventId?: string, relay?: string): IngestOutcome {
    this.d.counters.reject({ at: this.d.clock.now(), reason, detail, eventId, relay });
    return { status: "rejected", reason, detail, eventId };
  }

  private ignore(reason: string, eventId?: string): IngestOutcome {
    this.d.counters.ignore(reason);
    return { status: "ignored", reason, eventId };
  }
}

/** The id as sent (unchecked). */
function sentId(raw: unknown): string | undefined {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : undefined;
}

/** The conversation an event names, read before it is checked (a hint for the duplicate lookup). */
function conversationHint(raw: unknown): string | undefined {
  try {
    return conversationIdOf(raw as NostrEvent);
  } catch {
    return undefined; // not event-shaped: the edge checks will say why
  }
}

/** The id as sent, cut to 64 characters for reports. */
function idOf(raw: unknown): string | undefined {
  return sentId(raw)?.slice(0, 64);
}
