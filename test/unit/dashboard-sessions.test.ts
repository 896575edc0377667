// The dashboard's logins: a code works once and for two minutes; a session lasts its time; the
// CSRF token must match exactly.

import { describe, expect, it } from "vitest";
import { csrfMatches, Sessions } from "../../daemon/front-desk/dashboard/sessions.js";

describe("Sessions", () => {
  it("exchanges a login code once, within its two minutes", () => {
    let now = 1_000_000;
    const s = new Sessions(() => now);
    const a = s.newCode();
    const made = s.exchange(a.code);
    expect(made).toBeDefined();
    expect(s.get(made!.id)).toBe(made!.session);
    expect(s.exchange(a.code)).toBeUndefined();
    const late = s.newCode();
    now += 2 * 60_000 + 1;
    expect(s.exchange(late.code)).toBeUndefined();
    expect(s.exchange("made-up")).toBeUndefined();
  });

  it("ends a session at its expiry or on logout", () => {
    let now = 0;
    const s = new Sessions(() => now);
    const one = s.exchange(s.newCode().code)!;
    const two = s.exchange(s.newCode().code)!;
    s.end(two.id);
    expect(s.get(two.id)).toBeUndefined();
    now += 12 * 3600_000 + 1;
    expect(s.get(one.id)).toBeUndefined();
    expect(s.get(undefined)).toBeUndefined();
  });

  it("checks the CSRF token exactly", () => {
    const s = new Sessions();
    const { session } = s.exchange(s.newCode().code)!;
    expect(csrfMatches(session, session.csrf)).toBe(true);
    expect(csrfMatches(session, undefined)).toBe(false);
    expect(csrfMatches(session, "")).toBe(false);
    expect(csrfMatches(session, session.csrf.slice(1))).toBe(false);
    expect(csrfMatches(session, `${session.csrf}x`)).toBe(false);
  });
});
