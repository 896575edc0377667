// Who may talk to the daemon's HTTP server from a browser (docs/dashboard.md, "Security"): the
// Host must name the loopback address and the server's own port (a page that reaches 127.0.0.1
// through a hostile DNS name, DNS rebinding, sends that name), and an Origin, when one is sent,
// must be the server's own. A request carried by the session cookie (ambient: the browser adds
// it to any request) must also show its Origin when it changes something, and the session's
// CSRF token.

export type WebRefusal = { ok: false; status: 403; code: "forbidden_host" | "forbidden_origin"; message: string };
export type WebCheck = { ok: true } | WebRefusal;

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/** The origins a page of this server has: http://127.0.0.1:PORT, http://localhost:PORT, http://[::1]:PORT. */
export const ownOrigins = (port: number): string[] => LOOPBACK_NAMES.map((h) => `http://${h}:${port}`);

export function checkHost(host: string | undefined, port: number): WebCheck {
  if (host !== undefined && LOOPBACK_NAMES.some((h) => host.toLowerCase() === `${h}:${port}`)) return { ok: true };
  return {
    ok: false, status: 403, code: "forbidden_host",
    message: `Host ${JSON.stringify(host ?? "(none)")} is not this server: use http://127.0.0.1:${port}/`,
  };
}

/**
 * `origin`: the Origin header. `needed`: the request is carried by the cookie and changes
 * something (an Origin is then required: browsers send it on every such request).
 */
export function checkOrigin(origin: string | undefined, host: string, needed: boolean): WebCheck {
  if (origin === undefined && !needed) return { ok: true };
  if (origin !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`) return { ok: true };
  return {
    ok: false, status: 403, code: "forbidden_origin",
    message: origin === undefined ? "a state-changing request from a browser must carry its Origin" : `requests from ${JSON.stringify(origin)} are refused: only this server's own pages may call it`,
  };
}
