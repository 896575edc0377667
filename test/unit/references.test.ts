import { describe, expect, it } from "vitest";
import { referencesOf } from "../../src/references.js";

const ROOT = "a".repeat(64);
const PARENT = "b".repeat(64);
const GRAND = "c".repeat(64);
const OTHER = "d".repeat(64);
const SELF = "e".repeat(64);
const PK = "f".repeat(64);
const ev = (kind: number, tags: string[][]) => ({ id: SELF, kind, tags });

describe("referencesOf", () => {
  it("reads NIP-22 as NDK's reply() writes it: parent first, then the root scope", () => {
    const r = referencesOf(ev(1111, [["e", PARENT, "", PK], ["E", ROOT, "", PK], ["K", "11"], ["P", PK], ["k", "1111"]]));
    expect(r).toEqual({ root: ROOT, parent: PARENT, ancestors: [ROOT, PARENT] });
  });

  it("reads a first-level NIP-22 reply, whose parent is the root, as one ancestor", () => {
    const r = referencesOf(ev(1111, [["E", ROOT, "wss://relay", PK], ["K", "11"], ["P", PK], ["e", ROOT, "wss://relay", PK], ["k", "11"]]));
    expect(r).toEqual({ root: ROOT, parent: ROOT, ancestors: [ROOT] });
  });

  it("reads NIP-10 markers, TENEX's kind 1 form", () => {
    const r = referencesOf(ev(1, [["e", ROOT, "", "root"], ["e", PARENT, "", "reply"], ["a", "31933:x:y"], ["p", PK]]));
    expect(r).toEqual({ root: ROOT, parent: PARENT, ancestors: [ROOT, PARENT] });
  });

  it("takes the last reply mark as the parent when NDK's reply() copied the parent's marks", () => {
    const r = referencesOf(ev(1, [["e", ROOT, "", "root", PK], ["e", GRAND, "", "reply", PK], ["e", PARENT, "", "reply", PK]]));
    expect(r).toEqual({ root: ROOT, parent: PARENT, ancestors: [ROOT, GRAND, PARENT] });
  });

  it("answers the root of a first-level NIP-10 reply, and ignores mentions and unmarked tags next to marks", () => {
    const r = referencesOf(ev(1, [["e", ROOT, "", "root"], ["e", OTHER, "", "mention"], ["e", GRAND]]));
    expect(r).toEqual({ root: ROOT, parent: ROOT, ancestors: [ROOT] });
  });

  it("reads the deprecated positional form: first the root, last the parent, mentions between", () => {
    expect(referencesOf(ev(1, [["e", ROOT], ["e", OTHER], ["e", PARENT]]))).toEqual({ root: ROOT, parent: PARENT, ancestors: [ROOT, PARENT] });
    expect(referencesOf(ev(1, [["e", ROOT]]))).toEqual({ root: ROOT, parent: ROOT, ancestors: [ROOT] });
  });

  it("finds nothing in a root, and never names the event itself", () => {
    expect(referencesOf(ev(11, [["a", "31933:x:y"], ["title", "t"], ["p", PK]]))).toEqual({ ancestors: [] });
    expect(referencesOf(ev(1111, [["E", SELF], ["e", SELF]]))).toEqual({ ancestors: [] });
    expect(referencesOf(ev(1111, [["E", ""], ["e"]]))).toEqual({ ancestors: [] });
  });
});
