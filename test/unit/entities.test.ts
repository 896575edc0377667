import { describe, it, expect } from "vitest";
import { naddrEncode, neventEncode, noteEncode } from "nostr-tools/nip19";
import { inlineEntities, quoteEntity } from "../../src/entities.js";
import type { EntityFetcher } from "../../src/ports.js";
import { MapEntityFetcher } from "../../adapters/memory/map-entity-fetcher.js";
import { sign, testProject } from "../helpers/events.js";

function setup() {
  const p = testProject();
  const quoted = sign(p.agents.planner!, 1111, "The plan:\n1. parse\n2. print", [["a", p.coordinate]]);
  const nevent = neventEncode({ id: quoted.id, author: quoted.pubkey });
  return { p, quoted, nevent };
}

describe("inlineEntities", () => {
  it("inlines a fetched nevent as a quote of its content", async () => {
    const { quoted, nevent } = setup();
    const fetcher = new MapEntityFetcher([[nevent, quoted]]);
    const out = await inlineEntities(`See nostr:${nevent} and go.`, fetcher);
    expect(out).toBe(`See ${quoteEntity(nevent, quoted.content)} and go.`);
    expect(out).toContain("> The plan:\n> 1. parse\n> 2. print");
    expect(out).not.toContain(`nostr:${nevent} `);
  });

  it("inlines note and naddr references, fetching each reference once", async () => {
    const { p, quoted } = setup();
    const note = noteEncode(quoted.id);
    const naddr = naddrEncode({ kind: 31933, pubkey: p.owner.pubkey, identifier: "test-project" });
    const project = sign(p.owner, 31933, "Project description", [["d", "test-project"]]);
    const fetcher = new MapEntityFetcher([[note, quoted], [naddr, project]]);
    const out = await inlineEntities(`nostr:${note} twice nostr:${note}, project nostr:${naddr}`, fetcher);
    expect(out.split("> The plan:")).toHaveLength(3);
    expect(out).toContain("> Project description");
    expect(fetcher.requested.sort()).toEqual([naddr, note].sort());
  });

  it("leaves the text as it was when the fetch fails", async () => {
    const { nevent } = setup();
    const text = `See nostr:${nevent} please`;
    expect(await inlineEntities(text, new MapEntityFetcher())).toBe(text);
    const throwing: EntityFetcher = { fetch: async () => { throw new Error("relay down"); } };
    expect(await inlineEntities(text, throwing)).toBe(text);
  });

  it("does not fetch malformed references or other entity types", async () => {
    const { p } = setup();
    const fetcher = new MapEntityFetcher();
    const text = `nostr:note1qqqqqqqq and nostr:npub1${p.owner.pubkey.slice(0, 10)} and plain text`;
    expect(await inlineEntities(text, fetcher)).toBe(text);
    expect(fetcher.requested).toEqual([]);
  });
});
