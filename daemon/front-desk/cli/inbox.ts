// `tenexd inbox`: an agent's unread mail, most urgent first; `--watch` (desk mode) keeps
// following it and prints each new message as it arrives, until Ctrl-C.

import { PAGE_DEFAULTS } from "../api/page-defaults.js";
import type { InboxView, MessageItem } from "../shapes.js";
import type { Command, CommandContext } from "../../cli/command.js";
import { EXIT } from "../../cli/errors.js";
import { formatTable } from "../../cli/table.js";
import { cli } from "../../cli/support/errors.js";
import { agoSecs, clip } from "../../cli/support/format.js";
import { flag, intOpt, need, opt, parseQuery } from "../../cli/support/options.js";
import { emit } from "../../cli/support/output.js";
import { openReads, type ReadSource } from "./support/sources.js";

export const inbox: Command = {
  name: "inbox",
  usage: `Usage: tenexd inbox [--project DIR] [--json] -a AGENT [--type T] [--include-expired]
                    [--limit N] [--offset N] [--watch [--interval MS] [--max N] [--timeout S]]

Lists the agent's unread messages (neither read past nor acked), most urgent first, then
oldest first, and the conversations they are in. Mark them with \`tenexd read\` or \`tenexd ack\`.

  -a, --agent AGENT    The agent (slug or pubkey)
  --type T             Only messages of this type (context, result, decision, data, feedback,
                       rejection, instruction, test_output, advisory)
  --include-expired    Also expired messages (NIP-40; hidden by default)
  --limit N, --offset N
                       Page size (default 50, at most 500) and start of the first view
  --watch              Desk mode: after the inbox, print each new unread message as it arrives
                       (with --json: one JSON object per line, {"source","new":{…}}), until
                       Ctrl-C, --max messages or --timeout seconds; whatever the page, with the
                       same --type and --include-expired
  --interval MS        How often to look (default 1000)`,
  options: {
    agent: { type: "string", short: "a" },
    type: { type: "string" },
    "include-expired": { type: "boolean" },
    limit: { type: "string" },
    offset: { type: "string" },
    watch: { type: "boolean" },
    interval: { type: "string" },
    max: { type: "string" },
    timeout: { type: "string" },
  },
  async run(ctx) {
    const agent = need(ctx, "agent", "whose inbox to show (slug or pubkey)");
    const q = await parseQuery(async () => (await import("../api/schemas.js")).inboxQuery, {
      type: opt(ctx, "type"), includeExpired: flag(ctx, "include-expired"), limit: opt(ctx, "limit"), offset: opt(ctx, "offset"),
    }, PAGE_DEFAULTS);
    const watch = flag(ctx, "watch")
      ? { intervalMs: intOpt(ctx, "interval", 1000, 100), max: intOpt(ctx, "max", 0), timeoutMs: intOpt(ctx, "timeout", 0) * 1000 }
      : undefined;
    return cli(async () => {
      const src = await openReads(ctx);
      try {
        // What the watch will not print as new: the unread mail as its polls see it, taken before
        // the first view (mail that comes in between is in the view, and is added from there).
        const newest = watch ? unreadPoll(src, agent, q) : undefined;
        const before = newest ? (await newest()).map((m) => m.id) : [];
        const view = await src.api.inbox(agent, q);
        emit(ctx, src.source, view, () => inboxText(view));
        if (watch && newest) await follow(ctx, src, agent, newest, [...before, ...view.items.map((m) => m.id)], watch);
        return EXIT.OK;
      } finally {
        src.close();
      }
    });
  },
};

const row = (m: MessageItem & { title?: string }) => [
  m.alias, m.priority ?? "-", m.type ?? "-", m.from, m.conversationAlias, agoSecs(m.createdAt), clip(m.title ?? "", 30), clip(m.preview, 60),
];
const HEADERS = ["MESSAGE", "PRIORITY", "TYPE", "FROM", "CONVERSATION", "SENT", "TITLE", "TEXT"];

function inboxText(v: InboxView): string {
  if (v.total === 0) return `No unread messages for ${v.agent.slug}.\n`;
  return `${v.total} unread for ${v.agent.slug}\n${formatTable(HEADERS, v.items.map(row))}`;
}

interface WatchOptions {
  intervalMs: number;
  /** Stop after this many new messages (0: never). */
  max: number;
  /** Stop after this long (0: never). */
  timeoutMs: number;
}

// Remembered ids are bounded: the oldest are forgotten first (Set keeps insertion order).
const MAX_REMEMBERED = 10_000;

/**
 * The agent's newest unread messages, as the watch polls them: the view's filters, not its page
 * (a page past the first would hide new mail).
 */
function unreadPoll(src: ReadSource, agent: string, q: { type?: string; includeExpired?: boolean }): () => Promise<MessageItem[]> {
  const filters = { ...(q.type !== undefined ? { type: q.type } : {}), ...(q.includeExpired !== undefined ? { includeExpired: q.includeExpired } : {}) };
  return async () => (await src.api.messages({ recipient: agent, unread: true, order: "desc", limit: 100, offset: 0, ...filters })).items;
}

/** Polls the agent's newest unread messages and prints the ones not seen before. */
async function follow(
  ctx: CommandContext, src: ReadSource, agent: string, newest: () => Promise<MessageItem[]>, known: readonly string[], w: WatchOptions,
): Promise<void> {
  const seen = new Set(known);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const timer = w.timeoutMs > 0 ? setTimeout(onSignal, w.timeoutMs) : undefined;
  let printed = 0;
  if (!ctx.json) ctx.stdout.write(`Watching ${agent}'s inbox (Ctrl-C to stop)…\n`);
  try {
    while (!stop.signal.aborted) {
      await sleep(w.intervalMs, stop.signal);
      if (stop.signal.aborted) break;
      for (const m of (await newest()).reverse()) {
        if (stop.signal.aborted) break;
        if (seen.has(m.id)) continue;
        seen.add(m.id);
        if (seen.size > MAX_REMEMBERED) seen.delete(seen.values().next().value!);
        ctx.stdout.write(ctx.json ? `${JSON.stringify({ source: src.source, new: m })}\n` : formatTable(HEADERS, [row(m)]).split("\n")[1]! + "\n");
        if (w.max > 0 && ++printed >= w.max) stop.abort();
      }
    }
  } finally {
    if (timer) clearTimeout(timer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}
