// Stats: the figures of `tenexd stats`, with the volume of the last hour (per minute, from the
// live status) and each agent's response times as charts.

import { ErrorNote, get, html, liveState, secs, useLive, useLoad, useState } from "../lib.js";
import { TimeChart } from "../chart.js";

const counts = (r) => Object.entries(r).map(([k, v]) => `${k} ${v}`).join(", ") || "-";

function Volume() {
  const [points, setPoints] = useState(liveState.lastStatus?.perMinute);
  useLive(["status"], (s) => setPoints(s.perMinute));
  if (!points || points.length === 0) return html`<p class="empty">Volume over time needs the running daemon's per-minute counts.</p>`;
  return html`<${TimeChart} title="Events accepted per minute (last hour)" x=${points.map((p) => p.at)} series=${[{ label: "accepted", values: points.map((p) => p.accepted) }]} />`;
}

function ResponseBars({ agents }) {
  const max = Math.max(1, ...agents.map((a) => a.responseTime?.mean ?? 0));
  return html`<figure class="bars"><figcaption>Response time per agent (mean seconds, the median beside it)</figcaption>
    <ul>${agents.map((a) => html`<li><span class="label">${a.slug}</span>
      <span class="bar" role="img" aria-label=${`${a.slug}: mean ${secs(a.responseTime?.mean)}, median ${secs(a.responseTime?.median)}`}>
        <span class="fill" style=${{ width: `${Math.round(((a.responseTime?.mean ?? 0) / max) * 100)}%` }}></span></span>
      <span class="value">${secs(a.responseTime?.mean)} (median ${secs(a.responseTime?.median)})</span></li>`)}</ul></figure>`;
}

export function Stats() {
  const { data: s, error } = useLoad(() => get("/stats"), [], ["conversation"]);
  if (!s) return html`<h1>Stats</h1>${error ? html`<${ErrorNote} error=${error} />` : html`<p class="loading">Loading…</p>`}`;
  return html`
    <h1>Stats</h1>
    <dl class="fields">
      <dt>Conversations</dt><dd>${s.conversations.total} (archived ${s.conversations.archived})</dd>
      <dt>By status</dt><dd>${counts(s.conversations.byStatus)}</dd>
      <dt>By phase</dt><dd>${counts(s.conversations.byPhase)}</dd>
      <dt>Messages</dt><dd>${s.messages.total}; last hour ${s.messages.lastHour}, last 24 h ${s.messages.last24h}, last week ${s.messages.lastWeek}</dd>
      <dt>Response time</dt><dd>median ${secs(s.responseTimes.overall.median)}, mean ${secs(s.responseTimes.overall.mean)} over ${s.responseTimes.overall.count} answers</dd>
    </dl>
    <div class="charts"><${Volume} /><${ResponseBars} agents=${s.agents} /></div>
    <h2>Agents (unread threshold ${s.unreadThreshold})</h2>
    <div class="scroll"><table class="list"><thead><tr><th>Agent</th><th>Role</th><th>Unread</th><th>Answers</th><th>Median</th><th>Mean</th></tr></thead>
    <tbody>${s.agents.map((a) => html`<tr><td><a href=${`/agents/${a.slug}`}>${a.slug}</a></td><td>${a.role}</td><td class=${a.overThreshold ? "bad" : ""}>${a.unread}</td>
      <td>${a.responseTime?.count ?? 0}</td><td>${secs(a.responseTime?.median)}</td><td>${secs(a.responseTime?.mean)}</td></tr>`)}</tbody></table></div>
    <h2>Top communicators</h2>
    <ul>${s.topCommunicators.map((t) => html`<li>${t.from}: ${t.messages}</li>`)}</ul>`;
}
