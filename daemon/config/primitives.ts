// Zod building blocks shared by config.json and agents.json. Each carries its own error text
// (what is wrong + how to fix it) so a failed parse reads as an instruction, not a type dump.

import { posix } from "node:path";
import { decode } from "nostr-tools/nip19";
import { z } from "zod";
import { isHex64 } from "../../src/types.js";

/** A strict object (typos are errors) whose unknown-key message lists what is allowed. */
export function strict<S extends z.ZodRawShape>(shape: S) {
  const allowed = Object.keys(shape);
  return z.strictObject(shape, {
    error: (iss) => (iss.code === "unrecognized_keys" ? unknownKeys(iss.keys, allowed) : undefined),
  });
}

function unknownKeys(keys: readonly string[], allowed: readonly string[]): string {
  const list = allowed.map((k) => `"${k}"`).join(", ");
  const parts = keys.map((k) => {
    const near = closest(k, allowed);
    return near === undefined ? `unknown field "${k}"` : `unknown field "${k}" (did you mean "${near}"?)`;
  });
  return `${parts.join("; ")}: allowed fields are ${list}`;
}

/** The allowed key within edit distance 2, if any: catches typos like "relay" for "relays". */
function closest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = 3;
  for (const a of allowed) {
    const d = editDistance(key.toLowerCase(), a.toLowerCase());
    if (d < bestDist) [best, bestDist] = [a, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** A public key as hex or npub; always normalised to 64 lowercase hex. */
export const pubkey = z.string().transform((s, ctx) => {
  const hex = toHexPubkey(s.trim());
  if (hex === undefined) {
    ctx.addIssue({
      code: "custom",
      message: `must be a 64-character hex public key or an npub1… key, e.g. "npub1…" as shown by \`tenexd keys\` (got ${JSON.stringify(s)})`,
    });
    return z.NEVER;
  }
  return hex;
});

function toHexPubkey(s: string): string | undefined {
  if (isHex64(s.toLowerCase())) return s.toLowerCase();
  if (!s.startsWith("npub1")) return undefined;
  try {
    const d = decode(s);
    return d.type === "npub" ? d.data : undefined;
  } catch {
    return undefined;
  }
}

/** True when a relative path stays inside the directory it is relative to. */
export function staysInside(p: string): boolean {
  if (p === "" || posix.isAbsolute(p) || p.includes("\\")) return false;
  const n = posix.normalize(p);
  return n !== "." && n !== ".." && !n.startsWith("../");
}

/** A file path relative to .tenex/ that may not leave it. */
export const relativePath = z.string().refine(staysInside, {
  error: (iss) =>
    `must be a path relative to .tenex/ that stays inside it, e.g. "keys/agent.nsec" (got ${JSON.stringify(iss.input)})`,
});

export const wsUrl = z.string().refine(isWsUrl, {
  error: (iss) => `must be a ws:// or wss:// URL, e.g. "wss://relay.example" (got ${JSON.stringify(iss.input)})`,
});

function isWsUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "ws:" || u.protocol === "wss:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** A web page's origin as browsers send it (`scheme://host[:port]`), or "null" (sandboxed and file pages). */
export const origin = z.string().refine((s) => s === "null" || /^[a-z][a-z0-9+.-]*:\/\/[^/\s?#]+$/i.test(s), {
  error: (iss) => `must be an origin such as "https://tenex.chat" or "http://localhost:5173" (scheme, host and port only; got ${JSON.stringify(iss.input)})`,
});

export const positiveInt = z.number().int({ error: "must be a whole number" }).positive({ error: "must be greater than 0" });

export const port = z
  .number()
  .int({ error: "must be a whole number" })
  .min(0, { error: "must be between 0 and 65535 (0 picks a free port)" })
  .max(65535, { error: "must be between 0 and 65535 (0 picks a free port)" });

/** Services bind to loopback only: the daemon is never exposed beyond this machine. */
export const loopbackHost = z.literal("127.0.0.1", {
  error: 'must be "127.0.0.1": tenexd only listens on loopback (put a reverse proxy in front to expose it)',
});

/** Exactly one of two alternative fields is set (for `{pubkey}|{keyFile}`, `{file}|{env}`). */
export function exactlyOne(a: string, b: string, example: string) {
  return (v: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if ((v[a] === undefined) === (v[b] === undefined)) {
      ctx.addIssue({ code: "custom", message: `set exactly one of "${a}" or "${b}", e.g. ${example}` });
    }
  };
}
