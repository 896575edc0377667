// The dashboard's logins (docs/dashboard.md, "Session"): `tenexd dashboard` gets a one-time
// login code (random, 2 minutes, single use); the page exchanges it (POST /session) for a
// session: a random id in an HttpOnly, SameSite=Strict cookie and a CSRF token the page sends
// in a header on every change. Secrets are kept by their SHA-256, so a lookup compares digests
// (nothing about a secret leaks through timing); the CSRF token is compared in constant time.
// In memory only: a restart of the daemon logs every page out.

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const CODE_TTL_MS = 2 * 60_000;
const SESSION_TTL_MS = 12 * 3600_000;
/** Bounds on what a flood of logins can make the daemon hold. */
const MAX_CODES = 100;
const MAX_SESSIONS = 100;

const digest = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex");
const secret = () => randomBytes(32).toString("base64url");

export interface Session {
  csrf: string;
  expiresAt: number;
}

export class Sessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time login code. */
  newCode(): { code: string; expiresAt: number } {
    this.prune();
    const code = secret();
    const expiresAt = this.now() + CODE_TTL_MS;
    this.codes.set(digest(code), expiresAt);
    trim(this.codes, MAX_CODES);
    return { code, expiresAt };
  }

  /** Exchanges a code (once) for a session: its id (the cookie) and the session. Undefined for a code that is not valid. */
  exchange(code: string): { id: string; session: Session } | undefined {
    const key = digest(code);
    const expiresAt = this.codes.get(key);
    this.codes.delete(key);
    if (expiresAt === undefined || expiresAt < this.now()) return undefined;
    const id = secret();
    const session = { csrf: secret(), expiresAt: this.now() + SESSION_TTL_MS };
    this.sessions.set(digest(id), session);
    trim(this.sessions, MAX_SESSIONS);
    return { id, session };
  }

  /** The live session with this id (the cookie's value). */
  get(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const s = this.sessions.get(digest(id));
    if (!s) return undefined;
    if (s.expiresAt < this.now()) {
      this.sessions.delete(digest(id));
      return undefined;
    }
    return s;
  }

  end(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  private prune(): void {
    const now = this.now();
    for (const [k, at] of this.codes) if (at < now) this.codes.delete(k);
  }
}

/** Whether `presented` is the session's CSRF token (constant time). */
export function csrfMatches(session: Session, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(session.csrf, "utf8");
  const b = Buffer.from(presented, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Drops the oldest entries beyond `max` (Maps iterate in insertion order). */
function trim<V>(map: Map<string, V>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) break;
    map.delete(key);
  }
}
