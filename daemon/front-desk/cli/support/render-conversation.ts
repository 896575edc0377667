// The human form of one conversation (`tenexd show`): header, phases, turns, timeline or thread.

import type { ConversationDetail, MessageDetail, TimelineEntry } from "../../shapes.js";
import { formatTable } from "../../../cli/table.js";
import { ago, agoSecs, clip, duration, fields, iso } from "../../../cli/support/format.js";

function entryText(e: TimelineEntry): [string, string] {
  switch (e.kind) {
    case "message": {
      const d = e.data;
      const tags = [d.priority && d.priority !== "medium" ? d.priority : "", d.type ?? ""].filter(Boolean).join(",");
      return [e.alias ?? d.eventId.slice(0, 8), `${e.from ?? d.author.slice(0, 8)}${tags ? ` [${tags}]` : ""}: ${clip(e.content ?? d.preview, 90)}`];
    }
    case "phase":
      return ["phase", `${e.data.from} → ${e.data.to}: ${clip(e.data.message, 80)}`];
    case "phase_refused":
      return ["refused", `${e.data.from} → ${e.data.to}: ${e.data.reason}`];
    case "turn_start":
      return ["turn", `#${e.data.number} ${e.data.phase}: ${e.data.agents.length} agent(s), ${clip(e.data.reason, 70)}`];
    case "completion":
      return ["completion", clip(e.data.message, 90)];
    case "turn_end":
      return ["turn end", `${e.data.status}${e.data.reason ? `: ${e.data.reason}` : ""}`];
    case "status":
      return ["status", `${e.data.status}${e.data.reason ? `: ${e.data.reason}` : ""}`];
  }
}

export function renderConversation(d: ConversationDetail, opts: { thread: boolean; now: number }): string {
  const c = d.conversation;
  const header = `${c.alias}  ${c.title}  (${c.status}${c.archived ? ", archived" : ""}, phase ${c.phase})\n` + fields([
    ["id", c.id],
    ["created", `${agoSecs(c.createdAt, opts.now)}; last activity ${agoSecs(c.updatedAt, opts.now)}; ${c.messageCount} messages`],
    ["execution", `${duration(d.execution.totalMs)}${d.execution.running ? " (running)" : ""}`],
    ["viewed by", d.viewedBy.length > 0 ? `${d.viewedBy.join(", ")} (up to the last message)` : "nobody since the last message"],
  ]);
  const phases = d.phase.transitions.map((t) => [`${t.from} → ${t.to}`, t.by, ago(t.at, opts.now), clip(t.message, 70)]);
  const turns = d.turns.map((t) => [String(t.number), t.phase, t.agents.join(","), t.status, t.waitingFor.join(",") || "-", clip(t.reason, 50)]);
  // Messages numbered 1, 2, 3… in the conversation's order; log positions are in --json (`n`).
  const body = opts.thread ? threadText(d) : formatTable(["#", "WHEN", "WHAT", "DETAIL"],
    d.timeline.map((e) => [e.number !== undefined ? String(e.number) : "", ago(e.at, opts.now), ...entryText(e)]), "  ");
  return [
    header,
    phases.length > 0 ? `Phases\n${formatTable(["CHANGE", "BY", "WHEN", "MESSAGE"], phases, "  ")}` : "",
    turns.length > 0 ? `Turns\n${formatTable(["#", "PHASE", "AGENTS", "STATUS", "WAITING FOR", "REASON"], turns, "  ")}` : "",
    `${opts.thread ? "Thread" : "Timeline"}\n${body}`,
  ].filter((s) => s !== "").join("\n");
}

function threadText(d: ConversationDetail): string {
  const byId = new Map<string, TimelineEntry>();
  for (const e of d.timeline) if (e.kind === "message") byId.set(e.data.eventId, e);
  return d.thread.map((t) => {
    const e = byId.get(t.id);
    const text = e ? entryText(e) : [t.alias ?? t.id.slice(0, 8), "(not in the index)"];
    const number = e?.number !== undefined ? `${e.number}. ` : "";
    return `  ${"  ".repeat(t.depth)}${t.depth > 0 ? "↳ " : ""}${number}${text[0]} ${text[1]}\n`;
  }).join("");
}

export function renderMessage(m: MessageDetail): string {
  return fields([
    ["message", `${m.alias}  (${m.id})`],
    ["conversation", `${m.conversationAlias}  (${m.conversationId})`],
    ["from", m.from],
    ["to", m.to.join(", ") || "-"],
    ["sent", iso(m.createdAt * 1000)],
    ["priority", m.priority ?? "-"],
    ["type", m.type ?? "-"],
    ["expires", m.expiration !== null ? iso(m.expiration * 1000) : "-"],
    ["in reply to", m.parentId ?? "-"],
    ["read by", m.readBy.join(", ") || "-"],
  ]) + `\n${m.content}\n`;
}
