// Agents: each agent's unread inbox by priority, its runs (under way, the last one and how it
// ended) and how fast it answers; a running agent can be stopped; each links to its inbox.

import { duration, ErrorNote, get, html, post, secs, session, short, useLoad, useState, when, whenSecs } from "../lib.js";

export function Agents() {
  const { data, error, reload } = useLoad(() => get("/agents"), [], ["run-start", "run-end", "message"]);
  const [actionError, setActionError] = useState();
  const stop = async (slug) => {
    try {
      await post(`/agents/${encodeURIComponent(slug)}/stop`, {});
      setActionError(undefined);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };
  const now = Date.now();
  return html`
    <h1>Agents</h1>
    <${ErrorNote} error=${error ?? actionError} />
    ${data ? html`<div class="scroll"><table class="list"><thead><tr><th>Agent</th><th>Unread (critical/high/medium/low)</th><th>Running</th><th>Last run</th><th>Response time (median/mean)</th><th></th></tr></thead>
      <tbody>${data.map((a) => html`<tr data-agent=${a.slug}>
        <td><a href=${`/agents/${a.slug}`}>${a.slug}</a> <span class="meta">${a.role} · ${a.backend}</span></td>
        <td class=${a.overThreshold ? "bad" : ""}>${a.unread} (${a.byPriority.critical}/${a.byPriority.high}/${a.byPriority.medium}/${a.byPriority.low})</td>
        <td>${a.running.length === 0 ? "-" : a.running.map((r) => html`<div><a href=${`/conversations/${r.conversationId}`}>${short(r.conversationId)}</a> for ${duration(now - r.startedAt)}</div>`)}</td>
        <td>${a.lastRun ? html`<span class=${a.lastRun.outcome === "ok" ? "ok" : "bad"}>${a.lastRun.outcome}</span> ${when(a.lastRun.endedAt)} (${duration(a.lastRun.endedAt - a.lastRun.startedAt)})` : "-"}</td>
        <td>${secs(a.responseTime?.median)} / ${secs(a.responseTime?.mean)} over ${a.responseTime?.count ?? 0}</td>
        <td>${a.running.length > 0 ? html`<button type="button" disabled=${session.readOnly} onClick=${() => stop(a.slug)}>Stop ${a.slug}</button>` : null}</td>
      </tr>`)}</tbody></table></div>` : html`<p class="loading">Loading…</p>`}`;
}

export function AgentInbox({ slug }) {
  const { data, error } = useLoad(() => get(`/agents/${encodeURIComponent(slug)}/inbox?limit=100`), [slug], ["message"]);
  return html`
    <h1>Inbox of ${slug}</h1>
    <p><a href="/agents">← All agents</a></p>
    <${ErrorNote} error=${error} />
    ${data ? html`<p class="meta">${data.total} unread</p>
      <div class="scroll"><table class="list"><thead><tr><th>Priority</th><th>From</th><th>Conversation</th><th>Message</th><th>Sent</th></tr></thead>
      <tbody>${data.items.map((m) => html`<tr><td>${m.priority ?? "medium"}</td><td>${m.from}</td>
        <td><a href=${`/conversations/${m.conversationId}`}>${m.title || m.conversationAlias}</a></td><td class="content">${m.preview}</td><td>${whenSecs(m.createdAt)}</td></tr>`)}</tbody></table></div>`
      : html`<p class="loading">Loading…</p>`}`;
}
