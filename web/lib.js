// What every page uses: Preact with htm (markup as tagged templates: every value is text,
// never HTML), the API calls (the session cookie rides along; changes carry the CSRF token),
// the one live stream of the page, and small formatting helpers.

import { h, render } from "/vendor/preact.mjs";
import { useEffect, useRef, useState, useCallback } from "/vendor/hooks.mjs";
import htm from "/vendor/htm.mjs";

export const html = htm.bind(h);
export { render, useEffect, useRef, useState, useCallback };

export const session = { csrf: "", readOnly: false, project: "" };

function toLogin() {
  location.replace("/login");
  return new Promise(() => undefined);
}

export async function loadSession() {
  const r = await fetch("/session", { headers: { accept: "application/json" } });
  if (r.status === 401) return toLogin();
  Object.assign(session, await r.json());
  return session;
}

async function answer(r) {
  if (r.status === 401) return toLogin();
  const body = r.status === 204 ? {} : await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error?.message ?? `HTTP ${r.status}`);
  return body;
}

export const get = (path) => fetch(`/api/v1${path}`, { headers: { accept: "application/json" } }).then(answer);

// A read started before the page's modules and session are in (the overview's status).
const early = new Map();
export const prefetch = (path) => early.set(path, get(path).catch(() => undefined));
/** The prefetched answer once (undefined if none was started or it failed), else a fresh read. */
export async function getOnce(path) {
  const p = early.get(path);
  early.delete(path);
  return (p && (await p)) ?? get(path);
}

export const post = (path, body = {}) =>
  fetch(`/api/v1${path}`, {
    method: "POST", headers: { "content-type": "application/json", "x-csrf-token": session.csrf }, body: JSON.stringify(body),
  }).then(answer);

// --- the page's one live stream ---------------------------------------------------------
const listeners = new Map();
let stream;
export const liveState = { connected: false, lastStatus: undefined };

export function openLive() {
  if (stream) return;
  stream = new EventSource("/api/v1/events");
  stream.onopen = () => emit("connection", true);
  stream.onerror = () => emit("connection", false);
  for (const type of ["hello", "status", "conversation", "message", "run-start", "run-end"]) {
    stream.addEventListener(type, (e) => emit(type, JSON.parse(e.data), e));
  }
  // The stream cannot give what was missed: only a reload shows it.
  stream.addEventListener("reload", () => location.reload());
}

function emit(type, data, e) {
  if (type === "connection") liveState.connected = data;
  if (type === "status") liveState.lastStatus = data;
  for (const fn of listeners.get(type) ?? []) fn(data, e);
}

/** Calls `fn` on each live message of these types while the component is mounted. */
export function useLive(types, fn) {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    const call = (d, e) => ref.current(d, e);
    for (const t of types) {
      if (!listeners.has(t)) listeners.set(t, new Set());
      listeners.get(t).add(call);
    }
    return () => types.forEach((t) => listeners.get(t)?.delete(call));
  }, [types.join(",")]);
}

/** Runs `load` now, and again (at most every 250 ms) whenever `when(message)` says a live message concerns it. */
export function useLoad(load, deps, liveTypes = [], when = () => true) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  const timer = useRef();
  // Only the latest read may set the state: a slower one started before (for filters since
  // changed, say) must not overwrite it when it comes back late.
  const latest = useRef(0);
  const run = useCallback(() => {
    const mine = ++latest.current;
    load().then(
      (data) => mine === latest.current && setState({ data, error: undefined }),
      (error) => mine === latest.current && setState((s) => ({ data: s.data, error })),
    );
  }, deps);
  const current = useRef(run);
  current.current = run;
  useEffect(run, [run]);
  useLive(liveTypes, (d) => {
    if (!when(d) || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      current.current();
    }, 250);
  });
  return { ...state, reload: run };
}

// --- formatting -------------------------------------------------------------------------
export const short = (id) => (id ? `${id.slice(0, 8)}…` : "");
export const when = (ms) => (ms ? new Date(ms).toLocaleString() : "-");
export const whenSecs = (s) => (s ? new Date(s * 1000).toLocaleString() : "-");
export function duration(ms) {
  if (ms === null || ms === undefined) return "-";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
export const secs = (v) => (v === undefined || v === null ? "-" : `${Math.round(v)}s`);

export function ErrorNote({ error }) {
  return error ? html`<p class="error" role="alert">${String(error.message ?? error)}</p>` : null;
}
