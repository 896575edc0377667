// Overview: the daemon's status, live (the stream's status ticks): relays, ingest and
// rejections per minute over the last hour, queues, outbox, agents running, stuck turns,
// agents behind on their inbox, the last problems, damage records.

import { duration, ErrorNote, getOnce, html, liveState, short, useEffect, useLive, useState, when } from "../lib.js";
import { TimeChart } from "../chart.js";

function useStatus() {
  const [status, setStatus] = useState(liveState.lastStatus);
  const [error, setError] = useState();
  useEffect(() => {
    if (!liveState.lastStatus) getOnce("/status").then(setStatus, setError);
  }, []);
  useLive(["status"], (s) => {
    setStatus(s);
    setError(undefined);
  });
  return { status, error };
}

function Charts({ perMinute }) {
  const x = perMinute.map((p) => p.at);
  const reasons = [...new Set(perMinute.flatMap((p) => Object.keys(p.rejected)))];
  const rejected = reasons.length > 0
    ? reasons.map((r) => ({ label: r, values: perMinute.map((p) => p.rejected[r] ?? 0) }))
    : [{ label: "rejected", values: perMinute.map(() => 0) }];
  return html`<div class="charts">
    <${TimeChart} title="Events accepted per minute" x=${x} series=${[{ label: "accepted", values: perMinute.map((p) => p.accepted) }]} />
    <${TimeChart} title="Events rejected per minute, by reason" x=${x} series=${rejected} />
  </div>`;
}

export function Overview() {
  const { status: s, error } = useStatus();
  if (error && !s) return html`<h1>Overview</h1><${ErrorNote} error=${error} />`;
  if (!s) return html`<h1>Overview</h1><p class="loading">Loading…</p>`;
  const now = Date.now();
  return html`
    <h1>Overview</h1>
    <p class="meta">pid ${s.pid} · up ${duration(s.uptimeMs)} · ${s.catchingUp ? "catching up" : "in step"}</p>
    <section aria-labelledby="relays-h"><h2 id="relays-h">Relays</h2>
      <div class="scroll"><table><thead><tr><th>Relay</th><th>Connected</th><th>Behind</th><th>Reconnects</th><th>AUTH</th><th>Last error</th></tr></thead>
      <tbody>${s.relays.map((r) => {
        const lag = s.lag.find((l) => l.url === r.url);
        const auth = !r.auth.asked ? "not asked" : r.auth.accepted === true ? "accepted" : r.auth.accepted === false ? `refused${r.auth.refusal ? `: ${r.auth.refusal}` : ""}` : "pending";
        return html`<tr><td>${r.url}</td><td class=${r.connected ? "ok" : "bad"}>${r.connected ? "yes" : "no"}</td>
          <td>${lag?.behindSeconds ?? "-"}${lag?.behindSeconds !== null && lag?.behindSeconds !== undefined ? " s" : ""}</td><td>${r.reconnects}</td><td>${auth}</td>
          <td>${r.lastError ?? "-"}</td></tr>`;
      })}</tbody></table></div>
    </section>
    <${Charts} perMinute=${s.perMinute} />
    <section class="cards" aria-label="Counters">
      <div class="card"><h3>Ingest</h3><p>${s.ingest.accepted} accepted · ${s.ingest.rejectedTotal} rejected · ${s.ingest.duplicates} duplicates</p></div>
      <div class="card"><h3>Queues</h3><p>${s.queues.queued} queued · ${s.queues.running} running · ${s.queues.conversations} conversations</p></div>
      <div class="card"><h3>Outbox</h3><p>${s.outbox.pending} pending · ${s.outbox.sent} sent${s.outbox.lastError ? html` · <span class="bad">${s.outbox.lastError}</span>` : ""}</p></div>
      <div class="card"><h3>Agents</h3><p>${s.agents.running} running · ${s.agents.runs} runs · ${s.agents.failures} failed</p></div>
    </section>
    <section aria-labelledby="running-h"><h2 id="running-h">Running now</h2>
      ${s.runs.length === 0 ? html`<p class="empty">No agent is running.</p>` : html`<ul>${s.runs.map((r) =>
        html`<li><a href=${`/agents/${r.agent}`}>${r.agent}</a> on <a href=${`/conversations/${r.conversationId}`}>${short(r.conversationId)}</a> for ${duration(now - r.startedAt)}</li>`)}</ul>`}
    </section>
    <section aria-labelledby="stuck-h"><h2 id="stuck-h">Stuck turns</h2>
      ${s.turns.stuck.length === 0 ? html`<p class="empty">None (${s.turns.open} open turns).</p>` : html`<ul>${s.turns.stuck.map((t) =>
        html`<li><a href=${`/conversations/${t.conversationId}`}>${t.title || short(t.conversationId)}</a>: turn ${t.turn} (${t.phase}) waiting for ${t.waitingFor.join(", ") || "-"}${t.overdue ? " · overdue" : ""}</li>`)}</ul>`}
    </section>
    <section aria-labelledby="unread-h"><h2 id="unread-h">Over the unread threshold (${s.unread.threshold})</h2>
      ${s.unread.overThreshold.length === 0 ? html`<p class="empty">No agent is behind.</p>` : html`<ul>${s.unread.byAgent.filter((a) => s.unread.overThreshold.includes(a.slug)).map((a) =>
        html`<li><a href=${`/agents/${a.slug}`}>${a.slug}</a>: ${a.unread} unread</li>`)}</ul>`}
    </section>
    <section aria-labelledby="problems-h"><h2 id="problems-h">Last problems</h2>
      ${s.problems.length === 0 ? html`<p class="empty">None.</p>` : html`<div class="scroll"><table><thead><tr><th>Kind</th><th>Times</th><th>Last</th><th>Detail</th></tr></thead>
        <tbody>${s.problems.slice(-20).reverse().map((p) => html`<tr><td>${p.kind}</td><td>${p.count}</td><td>${when(p.last)}</td><td>${p.detail}</td></tr>`)}</tbody></table></div>`}
    </section>
    <section aria-labelledby="damage-h"><h2 id="damage-h">Damage records</h2>
      ${s.damage.length === 0 ? html`<p class="empty">None.</p>` : html`<ul>${s.damage.map((d) =>
        html`<li>${d.id}: ${d.kind} in ${short(d.conversationId)}, ${d.detail} (${when(d.at)})</li>`)}</ul>`}
    </section>`;
}
