// What the verifier says about one event, and the messages between the pool and its workers.

import type { NostrEvent } from "../../src/types.js";

/** `bad_id` and `bad_signature` are also edge reject reasons (src/edge/reject-reason.ts). */
export const VERDICTS = ["ok", "bad_id", "bad_signature"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Pool → worker: one batch. */
export interface VerifyRequest {
  batch: number;
  events: NostrEvent[];
}

/** Worker → pool: one verdict code (index into VERDICTS) per event, in order. */
export interface VerifyResponse {
  batch: number;
  codes: Uint8Array;
}

export const verdictCode = (v: Verdict): number => VERDICTS.indexOf(v);

export function verdictOf(code: number | undefined): Verdict {
  const v = code === undefined ? undefined : VERDICTS[code];
  // A code we do not know cannot vouch for the event.
  return v ?? "bad_signature";
}
