// Who may do what through the local API. The owner's token (the Director's) may do anything, as
// anyone. A mailbox agent's token acts as that agent only: it reads the project's shared record
// and its own inbox and context, and posts and marks as itself; acting as another agent, or the
// owner's powers (asking as the owner, closing and reopening, the Director's status), is refused.

export type Principal = { kind: "owner" } | { kind: "agent"; pubkey: string; slug: string };

/** What a request needs: the owner, anyone with a token, or to act as an agent. */
export type Need =
  | { kind: "owner"; what: string }
  | { kind: "any" }
  /** `pubkey`: the agent the request acts as (undefined when it names none: its own checks refuse it). */
  | { kind: "act_as"; pubkey: string | undefined; label: string };

export type AccessDecision =
  | { ok: true }
  | { ok: false; code: "owner_only" | "not_this_agent"; message: string };

export function decideAccess(who: Principal, need: Need): AccessDecision {
  if (who.kind === "owner" || need.kind === "any") return { ok: true };
  if (need.kind === "owner") {
    return { ok: false, code: "owner_only", message: `this is ${who.slug}'s token: only the owner's token (.tenex/daemon.token) may ${need.what}` };
  }
  if (need.pubkey === undefined || need.pubkey === who.pubkey) return { ok: true };
  return { ok: false, code: "not_this_agent", message: `this is ${who.slug}'s token: it acts as ${who.slug} only, and cannot act as ${need.label}` };
}
