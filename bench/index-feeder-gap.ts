// The index feeder's pacing (daemon/engine/store/index-feeder.ts) when it applies on its own
// thread (`inlineApplier`: tools and tests; the daemon writes on the index's thread, where the
// batch in flight is the only gap), the timing its unit test no longer asserts: after an apply
// that took 60 ms, the next one waits at least that long (so the index takes at most about half
// the thread, in batches that grow with the load), and after a quick apply and a quiet spell a
// lone item goes at once. Medians over RUNS.

import { IndexFeeder, inlineApplier } from "../daemon/engine/store/index-feeder.js";
import { emptyConversation } from "../src/conversation-reducer.js";
import { indexItem } from "../src/index-item.js";
import { pTagRecipients } from "../src/messaging/recipients.js";
import type { ConversationIndex, IndexItem } from "../src/ports.js";
import type { Figure } from "./figure.js";

const RUNS = 7;
const SLOW_APPLY_MS = 60;

/** Gap (ms) between the end of one apply taking `busyMs` and the start of the next. */
async function gapAfter(busyMs: number, quietMs: number): Promise<number> {
  const spans: { start: number; end: number }[] = [];
  const index = {
    applyBatch(_items: readonly IndexItem[]) {
      const start = performance.now();
      while (performance.now() - start < (spans.length === 0 ? busyMs : 0));
      spans.push({ start, end: performance.now() });
    },
  } as unknown as ConversationIndex;
  const feeder = new IndexFeeder(inlineApplier(index), (err) => { throw err; });
  const conv = emptyConversation("a".repeat(64));
  const item = (n: number) => indexItem(conv, [{ n, at: n, t: "read_file", path: `f${n}` }], pTagRecipients);
  feeder.add(item(1), 1);
  await feeder.idle();
  if (quietMs > 0) await new Promise((r) => setTimeout(r, quietMs));
  feeder.add(item(2), 2);
  await feeder.idle();
  return spans[1]!.start - spans[0]!.end;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchIndexFeederGap(): Promise<Figure[]> {
  const slow: number[] = [];
  const quiet: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    slow.push(await gapAfter(SLOW_APPLY_MS, 0));
    quiet.push(await gapAfter(0, 300) - 300);
  }
  return [
    {
      name: "index_feeder_gap_after_60ms_apply_ms", value: Math.round(median(slow) * 10) / 10, unit: "ms",
      note: `median of ${RUNS}: an item added right after a ${SLOW_APPLY_MS} ms apply waits about as long (min ${Math.min(...slow).toFixed(1)}, max ${Math.max(...slow).toFixed(1)})`,
    },
    {
      name: "index_feeder_gap_after_quiet_ms", value: Math.round(median(quiet) * 10) / 10, unit: "ms",
      note: `median of ${RUNS}: a lone item after a quick apply and 300 ms of quiet is applied at once (the timer's lateness, 300 ms taken off)`,
    },
  ];
}
