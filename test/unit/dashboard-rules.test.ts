// The dashboard's pure rules: the live ring a page resumes from, the per-minute counts of the
// overview's charts, and who may call the server from a browser (Host and Origin).

import { describe, expect, it } from "vitest";
import { LiveRing } from "../../src/dashboard/live-ring.js";
import { emptyRing, MINUTES, perMinute, sample } from "../../src/dashboard/minute-series.js";
import { checkHost, checkOrigin } from "../../src/dashboard/web-access.js";

describe("LiveRing", () => {
  it("gives a page what it missed, and refuses a page the ring no longer covers", () => {
    const ring = new LiveRing(3);
    for (let i = 0; i < 5; i++) ring.push("message", { i });
    expect(ring.lastId).toBe(5);
    expect(ring.after(5)).toEqual({ ok: true, missed: [] });
    expect(ring.after(2)).toMatchObject({ ok: true, missed: [{ id: 3 }, { id: 4 }, { id: 5 }] });
    // Message 2 left the ring: a page that saw only 1 would miss it.
    expect(ring.after(1)).toEqual({ ok: false });
    // An id from an earlier run of the daemon (beyond this ring's last), or not a number.
    expect(ring.after(9)).toEqual({ ok: false });
    expect(ring.after(Number("x"))).toEqual({ ok: false });
  });

  it("after a gap (changes no longer recorded), refuses every page that saw something before it", () => {
    const ring = new LiveRing(3);
    for (let i = 0; i < 2; i++) ring.push("message", { i });
    ring.gap();
    expect(ring.after(2)).toEqual({ ok: false });
    expect(ring.after(0)).toEqual({ ok: false });
    // A page that joined after the gap (its hello carried the gap's id) resumes.
    const from = ring.lastId;
    ring.push("message", { i: 9 });
    expect(ring.after(from)).toMatchObject({ ok: true, missed: [{ id: from + 1 }] });
  });
});

describe("per-minute counts", () => {
  const min = 60_000;
  it("counts each minute between its samples, the last up to now, over exactly the last hour", () => {
    const ring = emptyRing();
    const t0 = 1_000 * min;
    sample(ring, t0 + 5_000, { accepted: 10, rejected: { bad_sig: 1 } });
    sample(ring, t0 + 30_000, { accepted: 99, rejected: {} }); // same minute: ignored
    sample(ring, t0 + min + 1, { accepted: 25, rejected: { bad_sig: 4, too_large: 2 } });
    const points = perMinute(ring, t0 + min + 30_000, { accepted: 27, rejected: { bad_sig: 4, too_large: 2 } });
    expect(points).toHaveLength(MINUTES);
    expect(points.at(-1)).toEqual({ at: t0 + min, accepted: 2, rejected: {} });
    expect(points.at(-2)).toEqual({ at: t0, accepted: 15, rejected: { bad_sig: 3, too_large: 2 } });
    expect(points.at(-3)).toEqual({ at: t0 - min, accepted: 0, rejected: {} });
  });

  it("keeps at most an hour of samples", () => {
    const ring = emptyRing();
    for (let m = 0; m < 500; m++) sample(ring, m * min, { accepted: m, rejected: {} });
    expect(ring.samples.length).toBe(MINUTES + 1);
  });
});

describe("Host and Origin", () => {
  it("accepts only the loopback names with this server's port as Host", () => {
    for (const host of ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080"]) expect(checkHost(host, 8080).ok).toBe(true);
    for (const host of [undefined, "127.0.0.1", "127.0.0.1:8081", "evil.example:8080", "127.0.0.1.evil.example:8080", "localhost:8080@evil"]) {
      expect(checkHost(host, 8080)).toMatchObject({ ok: false, status: 403, code: "forbidden_host" });
    }
  });

  it("accepts only the server's own origin, and requires one on a change the cookie carries", () => {
    expect(checkOrigin("http://127.0.0.1:8080", "127.0.0.1:8080", true).ok).toBe(true);
    expect(checkOrigin(undefined, "127.0.0.1:8080", false).ok).toBe(true);
    expect(checkOrigin(undefined, "127.0.0.1:8080", true)).toMatchObject({ ok: false, code: "forbidden_origin" });
    for (const origin of ["http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:8080", "null", "http://localhost:8080"]) {
      expect(checkOrigin(origin, "127.0.0.1:8080", false)).toMatchObject({ ok: false, code: "forbidden_origin" });
    }
  });
});
