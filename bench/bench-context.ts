// What the runner hands every benchmark it owns: the mode, the machine limits measured earlier
// in the same run (so each figure can be printed beside its limit) and a progress line.

import { availableParallelism } from "node:os";

export interface MachineLimits {
  /** nostr-wasm verifications per second on one core (verify_limit_evps). */
  verifyEvps?: number;
  /** fsync'd appends, batches of 1,000 (fsync_append_limit_lps). */
  fsyncLps?: number;
  /** SQLite inserts, one transaction per 1,000 rows (sqlite_insert_limit_rps). */
  sqliteRps?: number;
}

export interface BenchContext {
  quick: boolean;
  limits: MachineLimits;
  cores: number;
  progress(msg: string): void;
}

export function benchContext(quick: boolean, progress: (msg: string) => void): BenchContext {
  return { quick, limits: {}, cores: availableParallelism(), progress };
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The run of median `rate`, and "median of N runs (a, b, c ev/s)" for the note ("" for one run). */
export function medianRun<T extends { rate: number }>(runs: readonly T[]): { run: T; spread: string } {
  const run = [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)]!;
  const spread = runs.length > 1 ? `median of ${runs.length} runs (${runs.map((r) => r.rate).join(", ")} ev/s)` : "";
  return { run, spread };
}
export const round = (x: number, digits = 0): number => Math.round(x * 10 ** digits) / 10 ** digits;
export const evps = (n: number, ms: number): number => Math.round(n / (ms / 1000));

/**
 * Rows the index writes for one message of the workloads: the message's own and its recipient's
 * (each event p-tags one; the conversation's row and the search words come on top, uncounted).
 */
export const INDEX_ROWS_PER_MESSAGE = 2;

/**
 * A ceiling no ingest can pass on this machine: events a second the cores allow for checking
 * each signature (when `verified`) and writing each message's index rows, counting nothing else
 * (no parsing, no log, no routing), from the limits measured in this run; the rows have one
 * writer (SQLite's), so they never go faster than one core writes them. Undefined when the
 * limits were not measured.
 */
export function ingestCeiling(ctx: BenchContext, verified: boolean): { evps: number; text: string } | undefined {
  const { verifyEvps, sqliteRps } = ctx.limits;
  if (sqliteRps === undefined || (verified && verifyEvps === undefined)) return undefined;
  const verifyUs = verified ? 1e6 / verifyEvps! : 0;
  const rowsUs = (INDEX_ROWS_PER_MESSAGE * 1e6) / sqliteRps;
  const evps = Math.round(Math.min((ctx.cores * 1e6) / (verifyUs + rowsUs), 1e6 / rowsUs));
  const check = verified ? `a signature check (${round(verifyUs)} µs) and ` : "";
  return {
    evps,
    text: `limit = what ${ctx.cores} cores allow for ${check}${INDEX_ROWS_PER_MESSAGE} index rows (${round(rowsUs)} µs, one writer) an event, nothing else counted`,
  };
}

/** "limits: verify 3,200 ev/s × 2 cores, fsync 500,000 lines/s, SQLite 25,000 rows/s" (only those measured). */
export function limitsText(ctx: BenchContext): string {
  const { verifyEvps, fsyncLps, sqliteRps } = ctx.limits;
  const parts = [
    verifyEvps !== undefined ? `verify ${verifyEvps} ev/s per core` : "",
    fsyncLps !== undefined ? `fsync'd append ${fsyncLps} lines/s` : "",
    sqliteRps !== undefined ? `SQLite insert ${sqliteRps} rows/s` : "",
  ].filter(Boolean);
  return parts.length > 0 ? `machine limits this run: ${parts.join(", ")}` : "";
}
