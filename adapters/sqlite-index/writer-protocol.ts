// Messages between the index's writer thread and the daemon's main thread.

import type { WireBatch } from "./index-wire.js";

export type WriterRequest =
  | ({ close?: false; seq: number; hold?: boolean } & WireBatch)
  | { close?: false; seq: number; marks: readonly (readonly [relay: string, createdAt: number])[] }
  | { close?: false; seq: number; end: "commit" | "rollback" }
  | { close: true };

export interface WriterResponse {
  seq: number;
  /** Why the batch was rolled back. */
  error?: { name: string; message: string; code?: string };
}
