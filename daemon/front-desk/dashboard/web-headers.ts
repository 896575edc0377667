// What every answer of the daemon's HTTP server carries for browsers (docs/dashboard.md,
// "Security"): a strict Content-Security-Policy (only this server's own scripts, styles and
// connections; no inline script, no eval, no framing), no MIME sniffing, no Referer; and the
// session cookie's name and attributes.

import type { IncomingMessage, ServerResponse } from "node:http";

export const CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join("; ");

export function securityHeaders(res: ServerResponse): void {
  res.setHeader("content-security-policy", CSP);
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("referrer-policy", "no-referrer");
  res.setHeader("x-frame-options", "DENY");
  res.setHeader("cross-origin-opener-policy", "same-origin");
  res.setHeader("cross-origin-resource-policy", "same-origin");
}

/** Cookies are not kept apart by port: the name carries it, so two daemons on one host do not log each other out. */
export const cookieName = (port: number) => `tenexd_session_${port}`;

export function sessionCookie(port: number, id: string, maxAgeSeconds: number): string {
  return `${cookieName(port)}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}`;
}

export const clearedCookie = (port: number) => `${cookieName(port)}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;

/** The session id the request's cookie carries, if any. */
export function sessionIdOf(req: IncomingMessage, port: number): string | undefined {
  const name = cookieName(port);
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
