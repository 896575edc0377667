// The relays' high-water marks as RelaySync keeps them: read from the index here, written through
// the index's writer (on its thread while one runs: written here, a mark would wait for the batch
// that thread is committing; here otherwise, and after it has closed: the last marks, at stop).

import type { OnDemandIndexWriter, SqliteIndex } from "../../../adapters/sqlite-index/index.js";
import type { HighWaterStore } from "./relay-sync.js";

export function highWaterStore(index: SqliteIndex, writer: OnDemandIndexWriter, onError: (err: unknown) => void): HighWaterStore {
  return {
    highWaterMarks: () => index.highWaterMarks(),
    // Lost, a mark costs a longer back-fill next time, never an event.
    setHighWaters: (marks) => void writer.setHighWaters(marks).catch(onError),
  };
}
