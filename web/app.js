// The dashboard's shell: the session, the navigation (real links, handled here so the page and
// its one live stream stay), the read-only banner, and the page for the address.

import { html, loadSession, openLive, prefetch, render, session, useEffect, useLive, useState } from "./lib.js";
import { Overview } from "./pages/overview.js";
import { Conversations } from "./pages/conversations.js";
import { ConversationPage } from "./pages/conversation.js";
import { Agents, AgentInbox } from "./pages/agents.js";
import { Stats } from "./pages/stats.js";

const ROUTES = [
  [/^\/$/, () => html`<${Overview} />`],
  [/^\/conversations$/, () => html`<${Conversations} />`],
  [/^\/conversations\/([^/]+)$/, (m) => html`<${ConversationPage} id=${decodeURIComponent(m[1])} />`],
  [/^\/agents$/, () => html`<${Agents} />`],
  [/^\/agents\/([^/]+)$/, (m) => html`<${AgentInbox} slug=${decodeURIComponent(m[1])} />`],
  [/^\/stats$/, () => html`<${Stats} />`],
];

const NAV = [["/", "Overview"], ["/conversations", "Conversations"], ["/agents", "Agents"], ["/stats", "Stats"]];

export function navigate(href) {
  history.pushState(null, "", href);
  dispatchEvent(new Event("tenexd:navigate"));
}

function usePath() {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => {
      setPath(location.pathname + location.search);
      window.scrollTo(0, 0);
    };
    addEventListener("popstate", update);
    addEventListener("tenexd:navigate", update);
    return () => {
      removeEventListener("popstate", update);
      removeEventListener("tenexd:navigate", update);
    };
  }, []);
  return path;
}

function App() {
  const path = usePath();
  const [connected, setConnected] = useState(true);
  useLive(["connection"], setConnected);
  const pathname = path.split("?")[0];
  let page = html`<p>No such page.</p>`;
  for (const [re, make] of ROUTES) {
    const m = re.exec(pathname);
    if (m) {
      page = make(m);
      break;
    }
  }
  const section = NAV.filter(([href]) => href === "/" ? pathname === "/" : pathname.startsWith(href)).at(-1)?.[0];
  return html`
    <header class="top">
      <a class="brand" href="/">tenexd</a>
      <span class="project">${session.project}</span>
      <nav aria-label="Main">
        ${NAV.map(([href, label]) => html`<a href=${href} aria-current=${section === href ? "page" : undefined}>${label}</a>`)}
      </nav>
      <span class=${`live ${connected ? "on" : "off"}`} title="live updates">${connected ? "live" : "reconnecting…"}</span>
    </header>
    ${session.readOnly ? html`<p class="banner" role="status">The daemon is not running: read-only views from the index. Actions are disabled.</p>` : null}
    <main id="main">${page}</main>`;
}

// Same-origin links are followed here, without a reload (the live stream stays open).
document.addEventListener("click", (e) => {
  const a = e.target.closest?.("a[href]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});

// The overview's status is asked for beside the session, not after it (the HTML preloads it).
if (location.pathname === "/") prefetch("/status");
await loadSession();
openLive();
const root = document.getElementById("app");
root.textContent = "";
render(html`<${App} />`, root);
