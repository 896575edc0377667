// The checks every inbound event passes before it touches any state, cheapest first: the edge
// checks (shape, sizes, tag shapes, kinds: src/edge/), id and signature (the verifier), the
// kind, its conversation, the project (the `a` tag, or a conversation we already hold), and
// whether its author may trigger anything (src/routing.ts). A refused event is counted with its
// reason and changes nothing else.

import { conversationIdOf } from "../../../src/conversation-of.js";
import { placeEvent, placedBeforeSignature } from "../../../src/edge/placement.js";
import { validateInbound, type Limits } from "../../../src/edge/validate-inbound.js";
import { isConversationKind, KNOWN_KINDS } from "../../../src/kinds.js";
import type { Clock } from "../../../src/ports.js";
import { orchestratorOf, refusal } from "../../../src/routing.js";
import { mayTrigger } from "../../../src/trigger-hint.js";
import type { NostrEvent, ProjectInfo } from "../../../src/types.js";
import type { Verdict } from "../../../adapters/verify/verify-protocol.js";
import type { ConversationStore } from "../store/conversation-store.js";
import type { IngestCounters } from "./counters.js";

export type IngestOutcome =
  | { status: "accepted"; eventId: string; conversationId: string }
  | { status: "duplicate"; eventId: string }
  | { status: "ignored"; reason: string; eventId?: string }
  /** A back-fill's reply met before its conversation's root, without a project tag: try it again later. */
  | { status: "deferred"; reason: string; eventId: string }
  | { status: "rejected"; reason: string; detail: string; eventId?: string };

export interface IngestOptions {
  origin?: "relay" | "local";
  /** The relay that delivered it, for rejection reports. */
  relay?: string;
  /** Store it but set no agent to work (the first back-fill of a project's history). */
  quiet?: boolean;
  /** Nobody waits for this one (a back-fill's): it never takes the urgent lane, and a reply met before its root is handed back (deferred). */
  bulk?: boolean;
}

/** An event past the checks before its signature's. */
export interface Signable {
  ev: NostrEvent;
  /** It may set an agent to work, or the daemon publishes it: the route's priority lane (src/trigger-hint.ts). */
  urgent: boolean;
  /** Its place, when it was placed before its signature was checked (kind 1). */
  early: Placed | undefined;
}

/** An event that passed every check, and the conversation it belongs to. */
export interface Checked {
  status: "checked";
  ev: NostrEvent;
  conversationId: string;
  /** It may set an agent to work, or the daemon publishes it: the route's priority lane (src/trigger-hint.ts). */
  urgent: boolean;
}

export interface ChecksDeps {
  project: ProjectInfo;
  limits: Limits;
  verifier: { check(ev: NostrEvent, urgent?: boolean): Promise<Verdict> };
  store: ConversationStore;
  counters: IngestCounters;
  clock: Clock;
  /** The agents the daemon runs itself, by pubkey. */
  runnable: ReadonlyMap<string, unknown>;
}

export class InboundChecks {
  constructor(private readonly d: ChecksDeps) {}

  /**
   * The event, checked, or what became of it. `rootInFlight`: the check of a root still running
   * (a reply without the project tag belongs to us only through its root, which may come first).
   */
  check(
    raw: unknown, opts: IngestOptions, now: number, rootInFlight: (id: string) => Promise<unknown> | undefined,
  ): Promise<Checked | IngestOutcome> {
    return this.signed(this.beforeSignature(raw, opts, now, rootInFlight), opts, rootInFlight);
  }

  /** From the checks before the signature's (`pre`) on: the signature (inline when urgent), then the checks after it. */
  async signed(
    pre: Signable | IngestOutcome | Promise<Signable | IngestOutcome>, opts: IngestOptions, rootInFlight: (id: string) => Promise<unknown> | undefined,
  ): Promise<Checked | IngestOutcome> {
    const p = pre instanceof Promise ? await pre : pre;
    if (!("ev" in p)) return p;
    let verdict: Verdict;
    try {
      verdict = await this.d.verifier.check(p.ev, p.urgent);
    } catch (err) {
      return this.verifyFailed(err, p.ev, opts);
    }
    const after = this.afterSignature(p, verdict, opts, rootInFlight);
    return after instanceof Promise ? await after : after;
  }

  /**
   * The checks before the signature's: the edge's, and a kind 1's place (a stranger's note costs
   * only its tags). A promise only when the place waits for a root being checked.
   */
  beforeSignature(
    raw: unknown, opts: IngestOptions, now: number, rootInFlight: (id: string) => Promise<unknown> | undefined,
  ): Signable | IngestOutcome | Promise<Signable | IngestOutcome> {
    const { relay, bulk = false, quiet = false, origin = "relay" } = opts;
    const edge = validateInbound(raw, this.d.limits, KNOWN_KINDS, Math.floor(now / 1000));
    if (!edge.ok) return this.reject(edge.reason, edge.detail, idOf(raw), relay);
    const ev = edge.event;
    const urgent = origin === "local" || (!bulk && !quiet && mayTrigger(ev, this.d.runnable, orchestratorOf(this.d.project)?.pubkey));
    if (!placedBeforeSignature(ev.kind)) return { ev, urgent, early: undefined };
    const placing = this.place(ev, bulk, rootInFlight);
    const signable = (early: Placed): Signable | IngestOutcome => (early.status === "placed" ? { ev, urgent, early } : early);
    return placing instanceof Promise ? placing.then(signable) : signable(placing);
  }

  /** The checks after the signature's `verdict`. A promise only when the place waits for a root being checked. */
  afterSignature(
    pre: Signable, verdict: Verdict, opts: IngestOptions, rootInFlight: (id: string) => Promise<unknown> | undefined,
  ): Checked | IngestOutcome | Promise<Checked | IngestOutcome> {
    const { ev, urgent } = pre;
    const { relay, bulk = false } = opts;
    if (verdict !== "ok") return this.reject(verdict, verdict === "bad_id" ? "id is not the event's hash" : "signature does not verify", ev.id, relay);
    if (!isConversationKind(ev.kind)) return this.ignore(`kind_${ev.kind}`, ev.id);
    const placing = pre.early ?? this.place(ev, bulk, rootInFlight, relay);
    const checked = (placed: Placed): Checked | IngestOutcome => {
      if (placed.status !== "placed") return placed;
      const refused = refusal(ev, this.d.project);
      if (refused) return this.reject(refused, `author ${ev.pubkey.slice(0, 12)}…`, ev.id, relay);
      return { status: "checked", ev, conversationId: placed.conversationId, urgent };
    };
    return placing instanceof Promise ? placing.then(checked) : checked(placing);
  }

  /** The verifier could not answer: not the event's fault, it is refused now and accepted when it comes again. */
  verifyFailed(err: unknown, ev: NostrEvent, opts: IngestOptions): IngestOutcome {
    return this.reject("verify_failed", err instanceof Error ? err.message : String(err), ev.id, opts.relay);
  }

  /**
   * The event's conversation, if it is this project's (src/edge/placement.ts). A reply without the
   * project tag belongs to us only through its root. Delivered in order, the root may still be
   * being checked when the reply comes: wait for it rather than drop the reply. Answers at once
   * (no promise) when it need not wait, as almost every event.
   */
  private place(
    ev: NostrEvent, bulk: boolean, rootInFlight: (id: string) => Promise<unknown> | undefined, relay?: string,
  ): Placed | Promise<Placed> {
    const holds = (id: string) => this.d.store.has(id);
    const placement = placeEvent(ev, this.d.project.coordinate, holds);
    if (placement.is === "unplaced" && !placement.root) {
      const root = rootInFlight(placement.conversationId);
      if (root) return root.catch(() => undefined).then(() => this.placed(placeEvent(ev, this.d.project.coordinate, holds), ev, bulk, relay));
    }
    return this.placed(placement, ev, bulk, relay);
  }

  private placed(placement: ReturnType<typeof placeEvent>, ev: NostrEvent, bulk: boolean, relay?: string): Placed {
    switch (placement.is) {
      case "ours":
        return { status: "placed", conversationId: placement.conversationId };
      case "no_root":
        return this.reject("bad_tag_shape", "reply without a hex `E` root tag", ev.id, relay);
      // Relays deliver other projects' events too (live delivery ignores #a filters).
      case "other_project":
        return this.ignore("other_project", ev.id);
      case "unplaced":
        // A back-fill pages newest first and meets replies before their roots: one without the
        // project tag is handed back, to be tried again once the back-fill has brought its root.
        if (bulk && !placement.root) return { status: "deferred", reason: "root_not_known_yet", eventId: ev.id };
        return this.ignore("no_project_tag", ev.id);
    }
  }

  /**
   * Whether the event is already stored or being stored. An id we hold was checked when it was
   * stored, and the id is the hash of the whole event: a copy needs no check.
   */
  held(raw: unknown): boolean {
    const id = sentId(raw);
    return id !== undefined && id.length === 64 && this.d.store.hasEvent(id, conversationHint(raw));
  }

  /**
   * As `held` for a slice's events (their sent ids and conversation hints, in order): those
   * held, with one index lookup for all the events of conversations not in memory.
   */
  heldAmong(ids: readonly (string | undefined)[], conversationIds: readonly (string | undefined)[]): Set<string> {
    return this.d.store.heldAmong(ids.map((id) => (id?.length === 64 ? id : undefined)), conversationIds);
  }

  /** A copy of a stored event: an echo of one the daemon published, else a duplicate. */
  duplicate(eventId: string, conversationId: string | undefined): IngestOutcome {
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

/** Where an event belongs, or what became of it. */
type Placed = { status: "placed"; conversationId: string } | IngestOutcome;

/** The id as sent (unchecked). */
export function sentId(raw: unknown): string | undefined {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" ? id : undefined;
}

/** The conversation an event names, read before it is checked (a hint for the duplicate lookup). */
export function conversationHint(raw: unknown): string | undefined {
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
