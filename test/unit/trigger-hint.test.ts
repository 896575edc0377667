// src/trigger-hint.ts: which unchecked events take the route's priority lane.

import { describe, expect, it } from "vitest";
import { mayTrigger } from "../../src/trigger-hint.js";

const runner = "a".repeat(64), mailbox = "b".repeat(64), orchestrator = "c".repeat(64);
const ev = (kind: number, tags: string[][]) => ({ kind, tags });

describe("mayTrigger", () => {
  it("is true for a conversation event that p-tags an agent the daemon runs", () => {
    const runnable = new Set([runner]);
    expect(mayTrigger(ev(11, [["a", "31933:x:y"], ["p", runner]]), runnable)).toBe(true);
    expect(mayTrigger(ev(1111, [["p", mailbox], ["p", runner]]), runnable)).toBe(true);
    expect(mayTrigger(ev(1, [["p", runner]]), runnable)).toBe(true);
  });

  it("is false for one that p-tags nobody the daemon runs, for other kinds, and for malformed p tags", () => {
    const runnable = new Set([runner]);
    expect(mayTrigger(ev(11, [["a", "31933:x:y"]]), runnable)).toBe(false);
    expect(mayTrigger(ev(1111, [["p", mailbox]]), runnable)).toBe(false);
    expect(mayTrigger(ev(24010, [["p", runner]]), runnable)).toBe(false);
    expect(mayTrigger(ev(0, [["p", runner]]), runnable)).toBe(false);
    expect(mayTrigger(ev(11, [["P", runner], ["e", runner], ["p"]]), runnable)).toBe(false);
  });

  it("is true for every conversation event when the daemon runs the orchestrator (any of them may wake it)", () => {
    expect(mayTrigger(ev(1111, []), new Set([orchestrator]), orchestrator)).toBe(true);
    expect(mayTrigger(ev(1111, []), new Set([runner]), orchestrator)).toBe(false);
    expect(mayTrigger(ev(24133, []), new Set([orchestrator]), orchestrator)).toBe(false);
  });
});
