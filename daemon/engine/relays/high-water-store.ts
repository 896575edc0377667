// The relays' high-water marks as RelaySync keeps them: read from the index here, written by the
// index's thread while it runs (written here, a mark would wait for the batch that thread is
// committing) and here once it has closed (the last marks, at stop).

import type { SqliteIndex, WorkerIndexWriter } from "../../../adapters/sqlite-index/index.js";
import type { HighWaterStore } from "./relay-sync.js";

export function highWaterStore(index: SqliteIndex, writer: () => WorkerIndexWriter | undefined, onError: (err: unknown) => void): HighWaterStore {
  return {
    highWaterMarks: () => index.highWaterMarks(),
    setHighWaters: (marks) => {
      const w = writer();
      if (!w || w.closed) {
        for (const [relay, at] of marks) index.setHighWater(relay, at);
        return;
      }
      // Lost, a mark costs a longer back-fill next time, never an event.
      w.setHighWaters(marks).catch(onError);
    },
  };
}
