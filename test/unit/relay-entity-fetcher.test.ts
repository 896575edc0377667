import { naddrEncode, neventEncode, noteEncode } from "nostr-tools/nip19";
import { verifyEvent } from "nostr-tools/pure";
import { describe, expect, it } from "vitest";
import { RelayEntityFetcher } from "../../adapters/nostr/relay-entity-fetcher.js";
import type { RelayFilter } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { sign, testProject } from "../helpers/events.js";

/** A relay that answers every query with `answer`, and remembers what it was asked. */
function relay(answer: unknown[]) {
  const asked: RelayFilter[][] = [];
  const gateway = { fetch: async (filters: RelayFilter[]) => (asked.push(filters), answer as NostrEvent[]) };
  return { asked, fetcher: new RelayEntityFetcher(gateway, async (ev) => verifyEvent({ ...ev } as never)) };
}

describe("RelayEntityFetcher", () => {
  const p = testProject();
  const note = JSON.parse(JSON.stringify(sign(p.owner, 1, "the quoted note", []))) as NostrEvent;

  it("asks the relays for the referenced event and returns it", async () => {
    const { asked, fetcher } = relay([note]);
    expect(await fetcher.fetch(neventEncode({ id: note.id }))).toEqual(note);
    expect(await fetcher.fetch(noteEncode(note.id))).toEqual(note);
    expect(asked[0]).toEqual([{ ids: [note.id], limit: 1 }]);
  });

  it("takes the newest version of an addressable event, and only one with its d tag", async () => {
    const older = sign(p.owner, 30023, "v1", [["d", "spec"]], 100);
    const newer = sign(p.owner, 30023, "v2", [["d", "spec"]], 200);
    const other = sign(p.owner, 30023, "other", [["d", "other"]], 300);
    const { asked, fetcher } = relay([older, other, newer]);
    const naddr = naddrEncode({ kind: 30023, pubkey: p.owner.pubkey, identifier: "spec" });
    expect((await fetcher.fetch(naddr))?.content).toBe("v2");
    expect(asked[0]).toEqual([{ kinds: [30023], authors: [p.owner.pubkey], "#d": ["spec"], limit: 1 }]);
  });

  it("never returns a forged, a malformed or another event; a failing relay is no event", async () => {
    const forged = { ...note, content: "words never signed" };
    const nevent = neventEncode({ id: note.id });
    expect(await relay([forged]).fetcher.fetch(nevent)).toBeUndefined();
    expect(await relay([{ ...note, tags: "nope" }, null, 42]).fetcher.fetch(nevent)).toBeUndefined();
    expect(await relay([sign(p.owner, 1, "something else", [])]).fetcher.fetch(nevent)).toBeUndefined();
    const failing = new RelayEntityFetcher({ fetch: async () => { throw new Error("relay down"); } }, async () => true);
    expect(await failing.fetch(nevent)).toBeUndefined();
    expect(await relay([note]).fetcher.fetch("nevent1notareference")).toBeUndefined();
  });
});
