// One conversation: its timeline (messages with their authors' names, phase changes and
// handoffs, turns with their agents and completions, refused transitions), execution time, the
// thread, who has viewed it since its last message, the routing context, any agent's context
// for a message (what `tenexd context` prints), and the Director's actions: reply, close,
// reopen. It follows the live stream: a message or change in it reloads it.

import { duration, ErrorNote, get, html, post, session, short, useLoad, useState, when, whenSecs } from "../lib.js";

function Entry({ e, name }) {
  const d = e.data;
  switch (e.kind) {
    case "message":
      return html`<li class="msg" id=${`m-${d.eventId}`}>
        <div class="head"><strong>${e.from ?? short(d.author)}</strong> <span class="alias">#${e.number} ${e.alias ?? ""}</span>
          ${d.type ? html`<span class="tag">${d.type}</span>` : null}${d.priority ? html`<span class="tag">${d.priority}</span>` : null}
          <time>${whenSecs(d.createdAt)}</time></div>
        <div class="content">${e.content ?? d.preview}</div></li>`;
    case "phase":
      return html`<li class="event">${d.from === d.to ? `handoff in ${d.to}` : `phase ${d.from} → ${d.to}`} by ${name(d.by)}${d.reason ? `: ${d.reason}` : ""} <time>${when(e.at)}</time></li>`;
    case "phase_refused":
      return html`<li class="event refused">refused: ${d.from} → ${d.to} by ${name(d.by)}: ${d.reason} <time>${when(e.at)}</time></li>`;
    case "turn_start":
      return html`<li class="event">turn ${d.number} (${d.phase}) → ${d.agents.map(name).join(", ")}${d.reason ? `: ${d.reason}` : ""} <time>${when(e.at)}</time></li>`;
    case "completion":
      return html`<li class="event">${name(d.agent)} completed${d.message ? `: ${d.message}` : ""} <time>${when(e.at)}</time></li>`;
    case "turn_end":
      return html`<li class="event">turn ended: ${d.status}${d.reason ? ` (${d.reason})` : ""} <time>${when(e.at)}</time></li>`;
    case "status":
      return html`<li class="event">${d.status}${d.by ? ` by ${name(d.by)}` : ""}${d.reason ? `: ${d.reason}` : ""} <time>${when(e.at)}</time></li>`;
    default:
      return null;
  }
}

function Thread({ detail }) {
  const label = new Map(detail.timeline.filter((e) => e.kind === "message").map((e) => [e.data.eventId, e]));
  return html`<ul class="thread">${detail.thread.map((t) => {
    const e = label.get(t.id);
    return html`<li class=${`depth-${Math.min(t.depth, 8)}`}><a href=${`#m-${t.id}`}>${e?.from ?? ""}: ${(e?.content ?? e?.data.preview ?? "").slice(0, 120)}</a></li>`;
  })}</ul>`;
}

function Routing({ id }) {
  const { data, error } = useLoad(() => get(`/conversations/${encodeURIComponent(id)}/routing`), [id], ["message"], (m) => m.conversationId === id);
  if (error) return html`<${ErrorNote} error=${error} />`;
  if (!data) return null;
  const r = data.routing;
  return html`<dl class="fields">
    <dt>Request</dt><dd class="content">${r.user_request}</dd>
    <dt>Current</dt><dd>${r.current_routing ? `turn ${r.current_routing.turn} (${r.current_routing.phase}) → ${r.current_routing.agents.join(", ")}` : "none"}</dd>
    <dt>History</dt><dd>${r.routing_history.length === 0 ? "none" : html`<ol>${r.routing_history.map((h) => html`<li>turn ${h.turn} (${h.phase}) → ${h.agents.join(", ")}: ${h.status}${h.reason ? `, ${h.reason}` : ""}</li>`)}</ol>`}</dd>
    ${data.problems.repeatedRouting ? html`<dt>Problem</dt><dd class="bad">repeated routing ×${data.problems.repeatedRouting.count}</dd>` : null}
    ${data.problems.stalled ? html`<dt>Problem</dt><dd class="bad">${data.problems.stalled.turnsWithoutProgress} turns without progress</dd>` : null}
  </dl>`;
}

function Context({ id, messages, agents }) {
  const [input, setInput] = useState();
  const [error, setError] = useState();
  const show = async (e) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    const q = new URLSearchParams({ conversation: id });
    if (data.get("trigger")) q.set("trigger", String(data.get("trigger")));
    try {
      setInput(await get(`/agents/${encodeURIComponent(String(data.get("agent")))}/context?${q}`));
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="inline" onSubmit=${show}>
      <label>Agent <select name="agent">${agents.map((a) => html`<option value=${a}>${a}</option>`)}</select></label>
      <label>For message <select name="trigger"><option value="">the default trigger</option>${messages.map((m) => html`<option value=${m.data.eventId}>#${m.number} ${m.from}: ${(m.content ?? m.data.preview).slice(0, 40)}</option>`)}</select></label>
      <button type="submit">Show context</button></form>
    <${ErrorNote} error=${error} />
    ${input ? html`<dl class="fields"><dt>Agent</dt><dd>${input.agent.slug}${input.agent.orchestrator ? " (orchestrator)" : ""}</dd>
      <dt>Trigger</dt><dd>${short(input.trigger.id)} from ${input.trigger.authorName}</dd>
      <dt>Allowed phases</dt><dd>${input.allowedPhases.join(", ")}</dd><dt>Session</dt><dd>${input.session ?? "-"}</dd></dl>
      <ol class="context">${input.messages.map((m) => html`<li class=${`role-${m.role}`}><span class="tag">${m.role}</span><div class="content">${m.content}</div></li>`)}</ol>` : null}`;
}

function Actions({ detail, agents, reload }) {
  const c = detail.conversation;
  const [error, setError] = useState();
  const act = (fn) => async (e) => {
    e.preventDefault();
    try {
      await fn(e.currentTarget);
      setError(undefined);
      reload();
    } catch (err) {
      setError(err);
    }
  };
  const ro = session.readOnly;
  return html`<div class="actions">
    <form onSubmit=${act(async (form) => {
      const data = new FormData(form);
      await post(`/conversations/${c.id}/messages`, { from: String(data.get("from")), content: String(data.get("content")) });
      form.reset();
    })}>
      <label>Reply as <select name="from">${agents.map((a) => html`<option value=${a}>${a}</option>`)}</select></label>
      <label>Message <textarea name="content" rows="2" required></textarea></label>
      <button type="submit" disabled=${ro || c.status !== "open"}>Reply</button>
    </form>
    ${c.status === "open"
      ? html`<button type="button" disabled=${ro} onClick=${act(() => post(`/conversations/${c.id}/close`, {}))}>Close</button>`
      : html`<button type="button" disabled=${ro} onClick=${act(() => post(`/conversations/${c.id}/reopen`, {}))}>Reopen</button>`}
    <${ErrorNote} error=${error} />
  </div>`;
}

export function ConversationPage({ id }) {
  const { data: d, error, reload } = useLoad(() => get(`/conversations/${encodeURIComponent(id)}`), [id], ["message", "conversation"],
    (m) => m.conversationId === id || m.id === id);
  const known = useLoad(() => get("/stats").then((s) => s.agents), []).data ?? [];
  const agents = known.map((a) => a.slug);
  const name = (pk) => known.find((a) => a.pubkey === pk)?.slug ?? (/^[0-9a-f]{64}$/.test(pk ?? "") ? short(pk) : pk);
  if (!d) return html`<h1>Conversation</h1>${error ? html`<${ErrorNote} error=${error} />` : html`<p class="loading">Loading…</p>`}`;
  const c = d.conversation;
  const messages = d.timeline.filter((e) => e.kind === "message");
  return html`
    <h1>${c.title || "(untitled)"}</h1>
    <p class="meta"><span class="alias">${c.alias}</span> · phase ${d.phase.current} · ${c.status}${c.archived ? " · archived" : ""} ·
      ${c.messageCount} messages · execution ${duration(d.execution.totalMs)}${d.execution.running ? " (running)" : ""}</p>
    <${ErrorNote} error=${error} />
    <${Actions} detail=${d} agents=${agents} reload=${reload} />
    <div class="columns">
      <section aria-labelledby="tl-h" class="wide"><h2 id="tl-h">Timeline</h2><ol class="timeline">${d.timeline.map((e) => html`<${Entry} e=${e} name=${name} key=${e.n} />`)}</ol></section>
      <aside>
        <section aria-labelledby="viewed-h"><h2 id="viewed-h">Viewed since the last message</h2><p>${d.viewedBy.length ? d.viewedBy.join(", ") : "nobody"}</p></section>
        <section aria-labelledby="turns-h"><h2 id="turns-h">Turns</h2>${d.turns.length === 0 ? html`<p class="empty">None.</p>` : html`<ol>${d.turns.map((t) =>
          html`<li>${t.phase}: ${t.agents.join(", ")} · ${t.status}${t.waitingFor.length ? ` · waiting for ${t.waitingFor.join(", ")}` : ""}</li>`)}</ol>`}</section>
        <section aria-labelledby="refused-h"><h2 id="refused-h">Refused transitions</h2>${d.phase.refused.length === 0 ? html`<p class="empty">None.</p>` : html`<ul>${d.phase.refused.map((r) =>
          html`<li>${r.from} → ${r.to} by ${r.by}: ${r.reason}</li>`)}</ul>`}</section>
        <section aria-labelledby="thread-h"><h2 id="thread-h">Thread</h2><${Thread} detail=${d} /></section>
      </aside>
    </div>
    <section aria-labelledby="routing-h"><h2 id="routing-h">Routing context</h2><${Routing} id=${c.id} /></section>
    <section aria-labelledby="ctx-h"><h2 id="ctx-h">An agent's context</h2><${Context} id=${c.id} messages=${messages} agents=${agents} /></section>`;
}
