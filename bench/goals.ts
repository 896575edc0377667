// The goals each figure is measured against (the project's figures and the issues'), and TENEX's own
// figures on this machine where the design gives them. Kept apart from the measuring code so
// the table can say "met" or "missed" without each benchmark judging itself.

export interface Goal {
  op: ">=" | "<=";
  value: number;
  /** TENEX's ConversationManager on the same workload, where measured on this machine. */
  tenex?: string;
}

export const GOALS: Readonly<Record<string, Goal>> = {
  ingest_1x5000_evps: { op: ">=", value: 3000, tenex: "19.5 ev/s" },
  ingest_1x5000_tail_ratio: { op: "<=", value: 1.5, tenex: "last 100 at 117 ms each" },
  // ≥ 5,000 with every signature verified, both cores used (issue 3's 10,000 is
  // storage alone: ingest_200x50_noverify_evps).
  ingest_200x50_evps: { op: ">=", value: 5000, tenex: "502 ev/s (no fsync)" },
  // The storage goals ("stored and indexed"), read on the same workloads without verification.
  // The index feeder waits as long as its last apply took (60 ms here; timers fire up to 1 ms early).
  index_feeder_gap_after_60ms_apply_ms: { op: ">=", value: 58 },
  ingest_1x5000_noverify_evps: { op: ">=", value: 3000 },
  ingest_200x50_noverify_evps: { op: ">=", value: 12000 },
  ingest_relay_200x50_evps: { op: ">=", value: 10000, tenex: "502 ev/s (no verification, no fsync)" },
  catchup_10k_ratio: { op: ">=", value: 0.8 },
  restart_10k_ms: { op: "<=", value: 100, tenex: "311 ms" },
  restart_10k_rss_mb: { op: "<=", value: 100, tenex: "208 MB" },
  restart_10k_crash_ms: { op: "<=", value: 100, tenex: "311 ms" },
  restart_1m_ms: { op: "<=", value: 1000 },
  restart_1m_crash_ms: { op: "<=", value: 1000 },
  // "RSS bounded" at 1M: held to the same bound as at 10k, since memory must not grow with history.
  restart_1m_rss_mb: { op: "<=", value: 100 },
  // Issue 13: 1,000 events of 100 KB read into a cache bounded at 32 MiB (the default). The JS
  // heap stays within the bound plus 4 MiB (the estimate must not undercount; the rest of what
  // the reads leave, beside the cache, is small); RSS within the bound plus as much again, for
  // the heap's spare room and what the allocator keeps of the reads' buffers (measured 24-62 MB
  // over the baseline in five runs).
  cache_heap_over_baseline_mb: { op: "<=", value: 36 },
  cache_rss_over_baseline_mb: { op: "<=", value: 64 },
  agent_context_first_ms: { op: "<=", value: 20, tenex: "168 ms" },
  agent_context_incremental_ms: { op: "<=", value: 2, tenex: "135 ms" },
  unread_1m_ms: { op: "<=", value: 1 },
  inbox_1m_ms: { op: "<=", value: 5 },
  stats_1m_ms: { op: "<=", value: 50 },
  status_1m_ms: { op: "<=", value: 50 },
  // Issue 18: 10,000 verified events a second down the live subscription and from a relay's
  // back-fill (each beside its ceiling in the same run), and the main thread's own CPU per
  // event low enough that the rate grows with cores.
  ingest_live_200x50_evps: { op: ">=", value: 10000 },
  ingest_main_cpu_us_per_event: { op: "<=", value: 60 },
  // The same goals for a daemon that has run the path already (its second 10,000, live-ingest.ts).
  ingest_live_warm_200x50_evps: { op: ">=", value: 10000 },
  ingest_main_cpu_warm_us_per_event: { op: "<=", value: 60 },
  // Issue 18: with every signature verified, each path keeps ≥ 75% of its rate without (verify-share.ts).
  ingest_live_verify_ratio: { op: ">=", value: 0.75 },
  ingest_live_warm_verify_ratio: { op: ">=", value: 0.75 },
  ingest_relay_verify_ratio: { op: ">=", value: 0.75 },
  // Issue 18: from a message to its agent's process, and from its answer to the relay.
  trigger_spawn_p50_ms: { op: "<=", value: 5 },
  trigger_spawn_p99_ms: { op: "<=", value: 25 },
  trigger_spawn_loaded_p99_ms: { op: "<=", value: 100 },
  answer_to_relay_p99_ms: { op: "<=", value: 25 },
  // The same goals in a second burst, a daemon that has run under load (trigger-latency.ts).
  trigger_spawn_loaded_warm_p99_ms: { op: "<=", value: 100 },
  answer_to_relay_warm_p99_ms: { op: "<=", value: 25 },
  // Issue 18: the Director's commands against a running daemon, wall time (node -e 0 beside it).
  cli_status_wall_ms: { op: "<=", value: 150 },
  cli_conversations_wall_ms: { op: "<=", value: 150 },
  // The same without NODE_EXTRA_CA_CERTS, which costs every Node process's start here (cli-wall.ts).
  cli_status_wall_no_extra_ca_ms: { op: "<=", value: 150 },
  cli_conversations_wall_no_extra_ca_ms: { op: "<=", value: 150 },
  // Issue 18: the native verifier and its fallback agree on every one of 100,000 events.
  verify_differential_mismatches: { op: "<=", value: 0 },
  // Issue 13: the daemon's memory under 100 clients sending frames at and over the relay's limits.
  relay_hostile_rss_mb: { op: "<=", value: 200 },
  relay_in_process_hostile_rss_mb: { op: "<=", value: 200 },
  // Issue 17: the Director's dashboard with 1,000,000 stored messages (10k: the same on 10,000).
  dashboard_api_1m_ms: { op: "<=", value: 50 },
  dashboard_overview_paint_1m_ms: { op: "<=", value: 500 },
  dashboard_event_p50_1m_ms: { op: "<=", value: 200 },
  dashboard_event_p99_1m_ms: { op: "<=", value: 200 },
  dashboard_api_10k_ms: { op: "<=", value: 50 },
  dashboard_overview_paint_10k_ms: { op: "<=", value: 500 },
  dashboard_event_p50_10k_ms: { op: "<=", value: 200 },
  dashboard_event_p99_10k_ms: { op: "<=", value: 200 },
};

export function verdict(name: string, value: number): "met" | "missed" | "" {
  const g = GOALS[name];
  if (!g) return "";
  return (g.op === ">=" ? value >= g.value : value <= g.value) ? "met" : "missed";
}

export function goalText(name: string): string {
  const g = GOALS[name];
  return g ? `${g.op === ">=" ? "≥" : "≤"} ${g.value}` : "";
}
