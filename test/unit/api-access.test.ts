import { describe, expect, it } from "vitest";
import { decideAccess, type Principal } from "../../src/api-access.js";

const owner: Principal = { kind: "owner" };
const coder: Principal = { kind: "agent", slug: "coder", pubkey: "c".repeat(64) };

describe("decideAccess", () => {
  it("the owner may do anything, as anyone", () => {
    expect(decideAccess(owner, { kind: "owner", what: "close conversations" })).toEqual({ ok: true });
    expect(decideAccess(owner, { kind: "act_as", pubkey: "r".repeat(64), label: "reviewer" })).toEqual({ ok: true });
  });

  it("an agent acts as itself, reads what anyone may, and nothing else", () => {
    expect(decideAccess(coder, { kind: "any" })).toEqual({ ok: true });
    expect(decideAccess(coder, { kind: "act_as", pubkey: coder.pubkey, label: "coder" })).toEqual({ ok: true });
    expect(decideAccess(coder, { kind: "act_as", pubkey: "r".repeat(64), label: "reviewer" })).toEqual({
      ok: false, code: "not_this_agent", message: "this is coder's token: it acts as coder only, and cannot act as reviewer",
    });
    expect(decideAccess(coder, { kind: "owner", what: "ask as the owner" })).toEqual(expect.objectContaining({ ok: false, code: "owner_only" }));
  });

  it("a request that names no agent is left to its own checks (they refuse it)", () => {
    expect(decideAccess(coder, { kind: "act_as", pubkey: undefined, label: "nobody" })).toEqual({ ok: true });
  });
});
