// V8 optimizes typed-array and Buffer code on a promise that no ArrayBuffer in the isolate has
// ever been detached (its "ArrayBufferDetaching" protector). The first buffer transferred to
// another thread breaks that promise, and every function optimized on it is thrown away and
// compiled again: in a cold live run, the first index batch sent to its thread threw away the
// ingest's route (compiled once more, 36-54 ms) and the hex checks (docs/performance.md, session
// 29). A thread whose code transfers buffers detaches a throwaway one first, so its code is
// optimized once, already knowing.

let detached = false;

/** Detaches an empty buffer, once a thread (later calls do nothing), before any transfer. */
export function detachEarly(): void {
  if (detached) return;
  const buffer = new ArrayBuffer(0);
  structuredClone(buffer, { transfer: [buffer] });
  detached = true;
}
