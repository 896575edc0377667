// Events built exactly as today's TENEX encoder builds them (tenex-chat/tenex, crates/
// tenex-protocol/src/nostr/encoder.rs and tags.rs; tenex/src/nostr_pub/*.rs): the kind 1
// dialect of the backend, the TUI and the apps, next to the web client's kind 11/1111
// (helpers/events.ts). Tag order follows the encoder: conversation tags (`e` root, `e` reply),
// then `p`, then the standard tags (`a` …).

import type { NostrEvent } from "../../src/types.js";
import { sign, type TestKey } from "./events.js";

/** A conversation root: a kind 1 with the project's `a` tag and no `e`. */
export function noteRoot(author: TestKey, coordinate: string, content: string, p: string[] = [], createdAt?: number): NostrEvent {
  return sign(author, 1, content, [...p.map((x) => ["p", x]), ["a", coordinate]], createdAt);
}

/** A reply with NIP-10 marked tags: `["e", root, "", "root"]`, `["e", parent, "", "reply"]`. */
export function noteReply(author: TestKey, coordinate: string, rootId: string, parentId: string, content: string, p: string[] = [], extra: string[][] = [], createdAt?: number): NostrEvent {
  return sign(author, 1, content, [
    ["e", rootId, "", "root"], ["e", parentId, "", "reply"], ...p.map((x) => ["p", x]), ...extra, ["a", coordinate], ["llm-ral", "1"],
  ], createdAt);
}

/** The deprecated positional form older clients send: the first `e` is the root, the last the parent; no `a`. */
export function positionalReply(author: TestKey, rootId: string, parentId: string, content: string, p: string[] = []): NostrEvent {
  const e = rootId === parentId ? [["e", rootId]] : [["e", rootId], ["e", parentId]];
  return sign(author, 1, content, [...e, ...p.map((x) => ["p", x])]);
}

/** A completion as the encoder writes it: `["status","completed"]` and the delegator p-tagged. */
export function noteCompletion(author: TestKey, coordinate: string, rootId: string, parentId: string, content: string, delegator: string): NostrEvent {
  return noteReply(author, coordinate, rootId, parentId, content, [delegator], [["status", "completed"]]);
}

/** A stop request (kind 24134): `e` the conversation, `p` the agents to stop, `a` the project. */
export function stopRequest(author: TestKey, coordinate: string, conversationId: string, agents: string[]): NostrEvent {
  return sign(author, 24134, "", [["e", conversationId], ...agents.map((x) => ["p", x]), ["a", coordinate]]);
}
