// Real signed events for tests: every event here has a valid id and Schnorr signature.

import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import type { NostrEvent } from "../../src/types.js";
import { formatCoordinate } from "../../src/coordinate.js";

export interface TestKey {
  sk: Uint8Array;
  pubkey: string;
}

export function newKey(): TestKey {
  const sk = generateSecretKey();
  return { sk, pubkey: getPublicKey(sk) };
}

export function sign(key: TestKey, kind: number, content: string, tags: string[][] = [], createdAt?: number): NostrEvent {
  return finalizeEvent(
    { kind, content, tags, created_at: createdAt ?? Math.floor(Date.now() / 1000) },
    key.sk,
  ) as NostrEvent;
}

/** ~0.8 KB of text, like the benchmark workload. */
export const filler = (i: number, size = 800) => `message ${i} `.padEnd(size, "lorem ipsum dolor sit amet ");

/** Keys of an existing project (e.g. one `tenexd init` made), instead of fresh ones. */
export interface ProjectKeys {
  owner: TestKey;
  orchestrator: TestKey;
  agents: Record<string, TestKey>;
  d: string;
}

/** A test project: owner, orchestrator, agents, a user, and event builders for them. */
export function testProject(opts: { agents?: string[]; keys?: ProjectKeys } = {}) {
  const owner = opts.keys?.owner ?? newKey();
  const orchestrator = opts.keys?.orchestrator ?? newKey();
  const slugs = opts.agents ?? (opts.keys ? Object.keys(opts.keys.agents) : ["planner", "coder"]);
  const agents = Object.fromEntries(slugs.map((s) => [s, opts.keys?.agents[s] ?? newKey()])) as Record<string, TestKey>;
  const coordinate = formatCoordinate(owner.pubkey, opts.keys?.d ?? "test-project");
  const info = {
    coordinate,
    ownerPubkey: owner.pubkey,
    whitelist: [owner.pubkey],
    agents: [
      { slug: "orchestrator", name: "Orchestrator", pubkey: orchestrator.pubkey, role: "orchestrator", isOrchestrator: true },
      ...slugs.map((s) => ({
        slug: s, name: s[0]!.toUpperCase() + s.slice(1), pubkey: agents[s]!.pubkey, role: s, isOrchestrator: false,
      })),
    ],
  };

  /** A kind 11 conversation root, as the TENEX web client publishes it. */
  const root = (author: TestKey, content: string, p: string[] = [], extra: string[][] = [], createdAt?: number) =>
    sign(author, 11, content, [["a", coordinate], ["title", content.slice(0, 40)], ...p.map((x) => ["p", x]), ...extra], createdAt);

  /** A NIP-22 kind 1111 reply in a conversation whose root is `rootEv`. */
  const reply = (
    author: TestKey, rootEv: NostrEvent, content: string, p: string[] = [], extra: string[][] = [],
    parent: NostrEvent = rootEv, createdAt?: number,
  ) =>
    sign(author, 1111, content, [
      ["E", rootEv.id, "", rootEv.pubkey], ["K", String(rootEv.kind)], ["P", rootEv.pubkey],
      ["e", parent.id, "", parent.pubkey], ["k", String(parent.kind)],
      ["a", coordinate],
      ...p.map((x) => ["p", x]),
      ...extra,
    ], createdAt);

  return { owner, orchestrator, agents, coordinate, info, root, reply };
}
