// Who may write to and read from the embedded relay. The relay is the project's: events are
// taken only from the project's people (owner, whitelist, agents), and reads need a NIP-42 AUTH
// by one of them. Replies use the NIP-01 machine-readable prefixes (`auth-required:`,
// `restricted:`) that clients such as NDK act on.

/** `reads`: REQ and COUNT need AUTH; `all`: EVENT too; `off`: no AUTH asked, reads open. */
export const AUTH_MODES = ["reads", "all", "off"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface AccessPolicy {
  auth: AuthMode;
  /** Pubkeys (hex) that may write and authenticate; undefined: anyone. */
  members?: ReadonlySet<string>;
}

export type AccessRefusalReason = "auth_required" | "write_restricted" | "auth_refused";

export type Access = { ok: true } | { ok: false; reason: AccessRefusalReason; message: string };

const OK: Access = { ok: true };
const AUTH_HINT = "answer the relay's AUTH challenge (NIP-42) with a key of the project's people";

const isMember = (p: AccessPolicy, pubkey: string | undefined): boolean =>
  pubkey !== undefined && (p.members === undefined || p.members.has(pubkey));

/** An EVENT signed by `author` on a connection authenticated as `authed` (if it is). */
export function mayWrite(p: AccessPolicy, author: string, authed: string | undefined): Access {
  if (p.auth === "all" && !isMember(p, authed)) return { ok: false, reason: "auth_required", message: `auth-required: ${AUTH_HINT}` };
  if (!isMember(p, author)) return { ok: false, reason: "write_restricted", message: "restricted: this relay takes events only from the project's people" };
  return OK;
}

/** A REQ or COUNT on a connection authenticated as `authed` (if it is). */
export function mayRead(p: AccessPolicy, authed: string | undefined): Access {
  if (p.auth === "off" || isMember(p, authed)) return OK;
  return { ok: false, reason: "auth_required", message: `auth-required: ${AUTH_HINT}` };
}

/** A valid AUTH event signed by `pubkey`: the connection is taken as that key only if it is a member. */
export function mayAuthenticate(p: AccessPolicy, pubkey: string): Access {
  if (isMember(p, pubkey)) return OK;
  return { ok: false, reason: "auth_refused", message: "restricted: this key is not one of the project's people" };
}
