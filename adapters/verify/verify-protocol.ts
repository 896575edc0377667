// What the verifier says about one event, and the messages between the pool and its workers.

import type { NostrEvent } from "../../src/types.js";
import type { VerifierBackend } from "./verifier-choice.js";

/** `bad_id` and `bad_signature` are also edge reject reasons (src/edge/reject-reason.ts). */
export const VERDICTS = ["ok", "bad_id", "bad_signature"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Pool → worker: one batch. */
export interface VerifyRequest {
  batch: number;
  events: NostrEvent[];
}

/** Pool → worker: end once the batch in hand is answered (worker-slot.ts says why not terminate). */
export interface StopRequest {
  stop: true;
}

export type PoolMessage = VerifyRequest | StopRequest;

/** What a worker is started with. */
export interface VerifyWorkerData {
  backend: VerifierBackend;
  /** Shared with the pool, read across threads with Atomics; the slots are SHARED_STOP and SHARED_CHECKING. */
  shared: Int32Array;
  /** Answer each event found "ok" with its JSON too (event-json.ts). */
  json?: boolean;
}

/** 1 once the pool stops the worker: batches still queued to it are not worth checking. */
export const SHARED_STOP = 0;
/**
 * The batch the worker is checking, plus one (0: none). Read by the pool when the worker dies:
 * that batch may be what killed it; the others it held never reached the check and are not
 * charged a try (one poison event must not fail the innocent batches queued behind it).
 */
export const SHARED_CHECKING = 1;
export const SHARED_SLOTS = 2;

/** Worker → pool: one verdict code (index into VERDICTS) per event, in order. */
export interface VerifyResponse {
  batch: number;
  codes: Uint8Array;
  /** With VerifyWorkerData.json: the "ok" events' JSON, packed (event-json.ts packJson; the others' empty). */
  json?: Uint8Array;
  ends?: Uint32Array;
}

/** Worker → pool, once, first: the verifier is loaded and the worker takes batches. */
export interface WorkerReady {
  ready: true;
}

export type WorkerMessage = VerifyResponse | WorkerReady;

export const verdictCode = (v: Verdict): number => VERDICTS.indexOf(v);

export function verdictOf(code: number | undefined): Verdict {
  const v = code === undefined ? undefined : VERDICTS[code];
  // A code we do not know cannot vouch for the event.
  return v ?? "bad_signature";
}
