// `tenexd status`: how the running daemon is doing (relays and their lag, queues, rejections,
// errors, stuck turns, agents behind on their mail); without a daemon, what the index says.

import type { StatsView } from "../shapes.js";
import type { Command } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { formatTable } from "../../cli/table.js";
import { cli } from "../../cli/support/errors.js";
import { CLEAR_HINT, damageTable } from "../../cli/support/damage-text.js";
import { ago, clip, duration, fields } from "../../cli/support/format.js";
import { emit } from "../../cli/support/output.js";
import { openReads } from "./support/sources.js";
import type { DaemonStatus, DamageRecord } from "../../../src/daemon-status.js";

export const status: Command = {
  name: "status",
  usage: `Usage: tenexd status [--project DIR] [--json]

Asks the running daemon for its status: uptime, each relay (connected, last event, how far
behind, reconnects, last error), the back-fill (running, or how the last one ended, and each
relay whose back-fill could not see everything: why, and when it is tried again), ingest
counters and rejections by reason, queue depths, the outbox, the signature verifier, agent runs
and failures and how their programs are started (posix-spawn, or child-process and why), how long
the last runs' steps took (a trigger to its process given its input, an answer to the relays; p50 / p99
in ms, docs/api.md), unread mail per agent (and who is over limits.unreadThreshold), open and
stuck orchestrator turns, and the last problems (one row per cause, with how often and since
when it was seen), and the damage recorded in the logs until it is cleared (tenexd damage).
Without a running daemon it says so ("running": false) and shows what the index holds and the
damage recorded; when a process holds the project's lock without answering (a daemon still
starting, a reindex or an import), "lockedBy" names its pid.`,
  options: {},
  async run(ctx) {
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        if (src.client) {
          const s = await src.client.status();
          emit(ctx, "daemon", { running: true, status: s }, () => daemonText(s));
        } else {
          const stats = await src.api.stats();
          const damage = src.damage?.() ?? [];
          emit(ctx, "index", { running: false, lockedBy: src.lockedBy ?? null, stats, damage }, () => offlineText(ctx.projectDir, stats, src.lockedBy) + damageSection(damage));
        }
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};

function daemonText(s: DaemonStatus): string {
  const now = s.startedAt + s.uptimeMs;
  const lag = new Map(s.lag.map((l) => [l.url, l.behindSeconds]));
  const relays = s.relays.map((r) => [
    r.url, r.connected ? "yes" : "NO", ago(r.lastEventAt, now), lag.get(r.url) != null ? `${lag.get(r.url)}s` : "-",
    String(r.reconnects), authText(r.auth), r.lastError ? clip(r.lastError, 60) : "-",
  ]);
  const rejected = Object.entries(s.ingest.rejected).map(([k, v]) => `${k} ${v}`).join(", ");
  const unread = s.unread.byAgent.map((a) => [a.slug, String(a.unread), a.unread > s.unread.threshold ? "OVER" : ""]);
  const stuck = s.turns.stuck.map((t) => [
    t.conversationId.slice(0, 12), String(t.turn), t.phase, t.waitingFor.join(",") || "-",
    [t.overdue ? "overdue" : "", t.problems.repeatedRouting ? `repeated x${t.problems.repeatedRouting.count}` : "",
      t.problems.stalled ? `stalled x${t.problems.stalled.turnsWithoutProgress}` : ""].filter(Boolean).join(", "),
  ]);
  const problems = s.problems.slice(-10).reverse().map((p) => [
    ago(p.last, now), p.kind, p.count > 1 ? `x${p.count} since ${ago(p.first, now)}` : "once", clip(p.detail, 80),
  ]);
  return `tenexd running (pid ${s.pid}), up ${duration(s.uptimeMs)}${s.readyMs !== null ? `, ready in ${s.readyMs} ms` : ""}
${fields([
    ["project", `${s.project.title}  ${s.project.coordinate}`],
    ["ingest", `accepted ${s.ingest.accepted}, duplicates ${s.ingest.duplicates}, echoes ${s.ingest.echoes}, rejected ${s.ingest.rejectedTotal}${rejected ? ` (${rejected})` : ""}`],
    ["queues", `conversations ${s.queues.conversations}, queued ${s.queues.queued}, running ${s.queues.running}`],
    ["catch-up", catchupText(s, now)],
    ["outbox", `pending ${s.outbox.pending}, sent ${s.outbox.sent}${s.outbox.lastError ? `, last error: ${clip(s.outbox.lastError, 60)}` : ""}`],
    ["verifier", `${s.verifier.backend}${s.verifier.fallback ? ` (native verifier not used: ${s.verifier.fallback})` : ""}${s.verifier.poolRunning ? ", worker pool running" : ""}`],
    ["agents", `runs ${s.agents.runs}, failures ${s.agents.failures}, running ${s.agents.running}${spawnerText(s.spawner)}`],
    ...(s.latency.trigger.runs > 0 ? [["trigger → agent", latencyText(s.latency.trigger)] as [string, string]] : []),
    ...(s.latency.answer.runs + s.latency.publish.runs > 0 ? [["answer → relay", `${latencyText(s.latency.answer)}; ${latencyText(s.latency.publish)}`] as [string, string]] : []),
    ["unread", `threshold ${s.unread.threshold}; over it: ${s.unread.overThreshold.join(", ") || "none"}`],
    ["turns", `open ${s.turns.open}, stuck ${s.turns.stuck.length}`],
    ...(s.embeddedRelay && s.embeddedRelayGuard ? [["embedded relay", embeddedText(s.embeddedRelay, s.embeddedRelayGuard)] as [string, string]] : []),
  ])}
Relays
${formatTable(["URL", "CONNECTED", "LAST EVENT", "BEHIND", "RECONNECTS", "AUTH", "LAST ERROR"], relays, "  ")}
Unread
${formatTable(["AGENT", "UNREAD", ""], unread, "  ")}${stuck.length > 0 ? `
Stuck turns
${formatTable(["CONVERSATION", "TURN", "PHASE", "WAITING FOR", "WHY"], stuck, "  ")}` : ""}${problems.length > 0 ? `
Last problems
${formatTable(["LAST", "KIND", "SEEN", "DETAIL (latest)"], problems, "  ")}` : ""}${damageSection(s.damage)}`;
}

/** Each step's p50 / p99 in ms, over the window: "total 9.1 / 26.4 ms (checked 0.4 / 1.1, …), p50 / p99 of the last 60 runs". */
function latencyText(l: DaemonStatus["latency"]["trigger"]): string {
  const step = (x: (typeof l.steps)[number]) => `${x.step} ${x.p50} / ${x.p99}`;
  const total = l.steps.find((x) => x.step === "total");
  const parts = l.steps.filter((x) => x !== total).map(step).join(", ");
  const samples = Math.max(...l.steps.map((x) => x.samples));
  return `${total ? `${step(total)} ms (${parts})` : `${parts} ms`}, p50 / p99 of the last ${samples} run${samples === 1 ? "" : "s"}`;
}

function damageSection(damage: readonly DamageRecord[]): string {
  return damage.length > 0 ? `Damage in the logs\n${damageTable(damage, "  ")}  ${CLEAR_HINT}\n` : "";
}

/** NIP-42 on one relay: not asked, asked and answered (accepted or why not), or asked and unanswered. */
function authText(a: DaemonStatus["relays"][number]["auth"]): string {
  if (!a.asked) return "-";
  if (a.accepted === null) return "asked";
  return a.accepted ? "accepted" : `REFUSED${a.refusal ? `: ${clip(a.refusal, 40)}` : ""}`;
}

/** Connections to the embedded relay and what it refused, by reason. */
// A daemon older than the spawner's choice does not report one.
const spawnerText = (sp: DaemonStatus["spawner"] | undefined) =>
  sp === undefined ? "" : `; programs started with ${sp.backend}${sp.fallback ? ` (native spawner not used: ${sp.fallback})` : ""}`;

function embeddedText(url: string, r: NonNullable<DaemonStatus["embeddedRelayGuard"]>): string {
  const refused = Object.entries(r.refused).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ");
  return `${url}${r.verifier ? ` (verifies with ${r.verifier})` : ""}: ${r.connections} connections (${r.authenticated} authenticated), refused: ${refused || "nothing"}`;
}

/** The back-fill running now, how the last one ended, and every relay still incomplete said loudly, with its next try. */
function catchupText(s: DaemonStatus, now: number): string {
  const c = s.lastCatchup;
  const last = c
    ? `last ${ago(c.at, now)}: ${c.complete ? "complete" : "INCOMPLETE"}, ` +
      `${c.fetched} fetched in ${c.pages} pages, ${duration(c.ms)}${c.quiet ? ", quiet (first sync)" : ""}`
    : "none yet";
  const behind = s.backfill.relays.filter((r) => !r.complete).map((r) =>
    `; INCOMPLETE from ${r.url} (mark kept): ${clip(r.reason ?? "unknown", 160)}, ` +
    `${r.retryAt !== null ? `next try in ${duration(Math.max(0, r.retryAt - now))}` : "next try pending"}`);
  return `${s.catchingUp ? "running; " : ""}${last}${behind.join("")}`;
}

function offlineText(dir: string, stats: StatsView, lockedBy: number | undefined): string {
  const unread = stats.agents.map((a) => [a.slug, String(a.unread), a.overThreshold ? "OVER" : ""]);
  const head = lockedBy !== undefined
    ? `tenexd pid ${lockedBy} holds the lock of ${dir} but its API does not answer (starting, or a reindex or import runs); the index says:`
    : `tenexd is not running on ${dir}`;
  return `${head}
${fields([
    ["conversations", `${stats.conversations.total} (${Object.entries(stats.conversations.byStatus).map(([k, v]) => `${k} ${v}`).join(", ") || "none"})`],
    ["messages", String(stats.messages.total)],
    ["unread", `threshold ${stats.unreadThreshold}`],
  ])}${formatTable(["AGENT", "UNREAD", ""], unread, "  ")}`;
}
