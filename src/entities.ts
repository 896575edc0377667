// Nostr entities in content (`nostr:nevent1…`, `nostr:note1…`, `nostr:naddr1…`) are inlined as
// quotes of the referenced event when building an agent's context (docs/contract.md). Fetching is
// the port's business; a reference that cannot be fetched stays as it was.

import { decode } from "nostr-tools/nip19";
import type { AgentMessage } from "./agent-messages.js";
import type { EntityFetcher } from "./ports.js";
import type { NostrEvent } from "./types.js";

const ENTITY = /nostr:((?:nevent|note|naddr)1[023456789acdefghjklmnpqrstuvwxyz]+)/g;

/** Only well-formed references are fetched: a bech32 typo is text, not an entity. */
function isEntity(bech32: string): boolean {
  try {
    const { type } = decode(bech32);
    return type === "nevent" || type === "note" || type === "naddr";
  } catch {
    return false;
  }
}

/** The referenced event as a quoted block, each line prefixed with "> ". */
export function quoteEntity(bech32: string, content: string): string {
  const body = content.split("\n").map((line) => `> ${line}`).join("\n");
  return `\n[quoted nostr:${bech32}]\n${body}\n`;
}

async function fetchQuietly(fetcher: EntityFetcher, bech32: string): Promise<string | undefined> {
  try {
    return (await fetcher.fetch(bech32))?.content;
  } catch {
    // The port promises not to throw; a broken adapter must still not cost the agent its context.
    return undefined;
  }
}

export async function inlineEntities(text: string, fetcher: EntityFetcher): Promise<string> {
  const refs = new Set<string>();
  for (const m of text.matchAll(ENTITY)) if (isEntity(m[1]!)) refs.add(m[1]!);
  if (refs.size === 0) return text;
  const fetched = new Map<string, string>();
  await Promise.all([...refs].map(async (ref) => {
    const content = await fetchQuietly(fetcher, ref);
    if (content !== undefined) fetched.set(ref, content);
  }));
  return text.replace(ENTITY, (whole, ref: string) => {
    const content = fetched.get(ref);
    return content === undefined ? whole : quoteEntity(ref, content);
  });
}

/** `fetcher`, asked once per reference however many messages name it. */
function once(fetcher: EntityFetcher): EntityFetcher {
  const seen = new Map<string, Promise<NostrEvent | undefined>>();
  return {
    fetch: (bech32) => {
      let p = seen.get(bech32);
      if (!p) {
        p = fetcher.fetch(bech32);
        seen.set(bech32, p);
      }
      return p;
    },
  };
}

/** An agent's messages with their references inlined; a message without any is returned as it was. */
export async function inlineMessages(messages: readonly AgentMessage[], fetcher: EntityFetcher): Promise<AgentMessage[]> {
  const shared = once(fetcher);
  return Promise.all(messages.map(async (m) => {
    if (!m.content.includes("nostr:")) return m;
    const content = await inlineEntities(m.content, shared);
    return content === m.content ? m : { role: m.role, content };
  }));
}
