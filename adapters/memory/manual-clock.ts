// A clock that moves only when told to: time-dependent behaviour becomes deterministic in tests.

import type { Clock } from "../../src/ports.js";

export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2025, 0, 1)) {}

  now(): number {
    return this.ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }

  advance(ms: number): number {
    this.ms += ms;
    return this.ms;
  }

  /** Unix seconds, as event created_at wants them. */
  seconds(): number {
    return Math.floor(this.ms / 1000);
  }
}
