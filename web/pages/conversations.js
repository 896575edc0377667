// Conversations: search (title and text), filters (phase, status, participant, archived,
// expired), most recent first, paged; the list follows the live stream (a new or changed
// conversation reloads the page of the list shown). Filters live in the address (shareable).

import { ErrorNote, get, html, post, session, useLoad, useState, whenSecs } from "../lib.js";
import { navigate } from "../app.js";

const PHASES = ["chat", "brainstorm", "plan", "execute", "verification", "chores", "reflection"];
const PAGE = 25;

// A search that finds many conversations is not counted to the end (docs/api.md): the API
// then says how many it found at least.
const found = (data) => (data.total ?? `${data.totalAtLeast}+`);

const readFilters = () => Object.fromEntries(new URLSearchParams(location.search));

function AskForm({ onAsked }) {
  const [error, setError] = useState();
  const submit = async (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    try {
      const title = String(data.get("title") ?? "").trim();
      const r = await post("/ask", { content: String(data.get("content")), ...(title ? { title } : {}) });
      form.reset();
      setError(undefined);
      onAsked(r);
    } catch (err) {
      setError(err);
    }
  };
  return html`<details class="ask"><summary>Ask (start a conversation as the owner)</summary>
    <form onSubmit=${submit}>
      <label>Title <input name="title" /></label>
      <label>Request <textarea name="content" required rows="3"></textarea></label>
      <button type="submit" disabled=${session.readOnly}>Ask</button>
      <${ErrorNote} error=${error} />
    </form></details>`;
}

export function Conversations() {
  const f = readFilters();
  const offset = Number(f.offset ?? 0);
  const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const k of ["q", "phase", "status", "participant", "archived", "includeExpired"]) if (f[k]) query.set(k, f[k]);
  const key = query.toString();
  const { data, error } = useLoad(() => get(`/conversations?${key}`), [key], ["conversation"]);
  const apply = (e) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) if (String(v).trim() !== "") next.set(k, String(v).trim());
    navigate(`/conversations${next.size ? `?${next}` : ""}`);
  };
  const pageHref = (o) => {
    const q = new URLSearchParams(location.search);
    q.set("offset", String(o));
    return `/conversations?${q}`;
  };
  // The filter fields are uncontrolled (their defaults come from the address): a live reload of
  // the list re-renders the form, and must never undo what is being typed or chosen.
  return html`
    <h1>Conversations</h1>
    <${AskForm} onAsked=${(r) => navigate(`/conversations/${r.conversationId}`)} />
    <form class="filters" role="search" onSubmit=${apply} key=${key}>
      <label>Search <input type="search" name="q" defaultValue=${f.q ?? ""} placeholder="title or words of a message" /></label>
      <label>Phase <select name="phase"><option value="">any</option>${PHASES.map((p) => html`<option value=${p} selected=${f.phase === p}>${p}</option>`)}</select></label>
      <label>Status <select name="status"><option value="">any</option>${["open", "closed", "completed"].map((p) => html`<option value=${p} selected=${f.status === p}>${p}</option>`)}</select></label>
      <label>Participant <input name="participant" defaultValue=${f.participant ?? ""} placeholder="agent slug" /></label>
      <label>Archived <select name="archived"><option value="">any</option><option value="true" selected=${f.archived === "true"}>archived</option><option value="false" selected=${f.archived === "false"}>not archived</option></select></label>
      <label class="check"><input type="checkbox" name="includeExpired" value="true" defaultChecked=${f.includeExpired === "true"} /> expired too</label>
      <button type="submit">Filter</button>
    </form>
    <${ErrorNote} error=${error} />
    ${data ? html`
      <p class="meta">${found(data)} conversations${data.items.length > 0 ? `, ${offset + 1}–${offset + data.items.length} shown` : ""}</p>
      <div class="scroll"><table class="list"><thead><tr><th>Conversation</th><th>Phase</th><th>Status</th><th>Messages</th><th>Last activity</th></tr></thead>
      <tbody>${data.items.map((c) => html`<tr data-id=${c.id}>
        <td><a href=${`/conversations/${c.id}`}>${c.title || "(untitled)"}</a> <span class="alias">${c.alias}</span></td>
        <td>${c.phase}</td><td>${c.status}${c.archived ? " · archived" : ""}</td><td>${c.messageCount}</td><td>${whenSecs(c.updatedAt)}</td></tr>`)}</tbody></table></div>
      <nav class="pager" aria-label="Pages">
        ${offset > 0 ? html`<a href=${pageHref(Math.max(0, offset - PAGE))}>← Newer</a>` : null}
        ${offset + PAGE < (data.total ?? data.totalAtLeast) ? html`<a href=${pageHref(offset + PAGE)}>Older →</a>` : null}
      </nav>` : html`<p class="loading">Loading…</p>`}`;
}
