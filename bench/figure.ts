// One measured figure, as written to bench/results/latest.json.
export interface Figure {
  /** Stable name, comparable across runs (e.g. `ingest_1x5000_evps`). */
  name: string;
  value: number;
  unit: string;
  /** The goal this figure is measured against, in words (e.g. "≥ 3000"). */
  goal?: string;
  /** The machine limit measured in the same run, where one applies. */
  limit?: number;
  note?: string;
}
