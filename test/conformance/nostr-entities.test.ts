// `nostr:` references in an agent's context (TENEX's ConversationManager.nostrEntities tests):
// the referenced event's content is inlined where the relays have it. The daemon resolves them
// for every run and every context read (adapters/nostr/relay-entity-fetcher.ts, signatures
// checked); here a map stands in for the relays.
//
// Differs on purpose: TENEX inlines `<nostr-event entity="…">content</nostr-event>`; tenexd quotes
// the content as a block (`[quoted nostr:…]` then `> ` lines), which keeps a multi-line quote
// readable and its end visible. TENEX also tries npub/nprofile and malformed references (its
// tests use made-up ones such as nevent1234567890abcdef); tenexd fetches only well-formed
// nevent, note and naddr references: a typo is text, a profile is not a message to quote.

import { naddrEncode, neventEncode } from "nostr-tools/nip19";
import { describe, expect, it } from "vitest";
import { MapEntityFetcher } from "../../adapters/memory/map-entity-fetcher.js";
import { inlineMessages, quoteEntity } from "../../src/entities.js";
import type { NostrEvent } from "../../src/types.js";
import { finalizeEvent } from "nostr-tools/wasm";
import { CAST, line, Scene, webReply, webRoot } from "./harness.js";

const quoted = finalizeEvent({ kind: 1, content: "This is the content of the referenced event", tags: [], created_at: 1 }, CAST.owner.sk) as NostrEvent;
const article = finalizeEvent({ kind: 30023, content: "Second event content", tags: [["d", "spec"]], created_at: 1 }, CAST.owner.sk) as NostrEvent;
const NEVENT = neventEncode({ id: quoted.id, author: quoted.pubkey });
const NADDR = naddrEncode({ kind: 30023, pubkey: CAST.owner.pubkey, identifier: "spec" });

interface EntityCase {
  name: string;
  tenex: string;
  /** The user's message to the project manager (the trigger). */
  text: string;
  /** Earlier messages, when the reference comes more than once. */
  before?: string[];
  relays: [string, NostrEvent][];
  expect: string[];
  fetched: string[];
}

const CASES: EntityCase[] = [
  {
    name: "a nevent is inlined with the referenced event's content",
    tenex: "nostrEntities: should process nevent entities and inline their content",
    text: `Check out this event: nostr:${NEVENT}`,
    relays: [[NEVENT, quoted]],
    expect: [`user|Check out this event: ${quoteEntity(NEVENT, quoted.content)}`],
    fetched: [NEVENT],
  },
  {
    name: "every reference in a message is inlined",
    tenex: "nostrEntities: should handle multiple nostr entities in a single message",
    text: `Check these: nostr:${NEVENT} and nostr:${NADDR}`,
    relays: [[NEVENT, quoted], [NADDR, article]],
    expect: [`user|Check these: ${quoteEntity(NEVENT, quoted.content)} and ${quoteEntity(NADDR, article.content)}`],
    fetched: [NEVENT, NADDR],
  },
  {
    name: "a reference the relays do not have stays as it was",
    tenex: "nostrEntities: should handle when nostr entity cannot be fetched",
    text: `Check this: nostr:${NEVENT}`,
    relays: [],
    expect: [`user|Check this: nostr:${NEVENT}`],
    fetched: [NEVENT],
  },
  {
    name: "a message without references is left alone, nothing fetched",
    tenex: "nostrEntities: should leave messages without nostr entities unchanged",
    text: "This is a regular message without any nostr entities",
    relays: [[NEVENT, quoted]],
    expect: ["user|This is a regular message without any nostr entities"],
    fetched: [],
  },
  {
    name: "a reference in the history and in the trigger is fetched once, inlined in both",
    tenex: "ConversationManager.buildAgentMessages: processNostrEntities on every historical message and the trigger",
    before: [`Earlier: nostr:${NEVENT}`],
    text: `Again: nostr:${NEVENT}`,
    relays: [[NEVENT, quoted]],
    expect: [`user|Earlier: ${quoteEntity(NEVENT, quoted.content)}`, `user|Again: ${quoteEntity(NEVENT, quoted.content)}`],
    fetched: [NEVENT],
  },
];

describe("conformance: nostr references in the context", () => {
  for (const c of CASES) {
    it(`${c.name}  [${c.tenex}]`, async () => {
      const events = [...(c.before ?? []), c.text];
      const root = webRoot("user", events[0]!, ["pm"]);
      const replies = events.slice(1).map((text) => webReply("user", root, text, ["pm"]));
      const scene = new Scene(root.id).arrive(root, ...replies);
      const trigger = replies.at(-1) ?? root;
      const relays = new MapEntityFetcher(c.relays);
      const messages = await inlineMessages(scene.peek("pm", trigger).messages, relays);
      expect(messages.map(line)).toEqual(c.expect);
      expect(relays.requested).toEqual(c.fetched);
    });
  }
});
