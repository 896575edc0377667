// Hostile input for the daemon (docs/contract.md), each with the reason the daemon must give:
// - signedHostiles: well-signed events a real relay stores and serves, that the daemon must
//   still refuse (stranger authors, sizes over the project's limits, malformed tags, path-shaped
//   tag values, NUL, lone surrogates);
// - forgedEvents: what only a relay that checks nothing would pass (bad ids and signatures,
//   wrong field types, path-shaped ids, unknown kinds);
// - garbageFrames: relay frames that are not events at all;
// and startFakeRelay, a relay that checks nothing and sends whatever it is given.
// Every call with a new `i` gives new events (distinct ids), so a relay stores them all.

import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { NostrEvent } from "../../src/types.js";
import type { SignFn } from "./fault-tools.js";

export interface HostileContext {
  coordinate: string;
  /** Signs as the project owner (authorised): the event is refused for its form alone. */
  owner: SignFn;
  /** Signs as a key nobody whitelisted. */
  stranger: SignFn;
  /** A conversation the daemon knows, to reply into. */
  root: NostrEvent;
  limits: { maxContentBytes: number; maxTags: number; maxTagValueBytes: number; maxEventBytes: number };
}

export interface Hostile {
  label: string;
  /** What goes on the wire: an event (object, maybe not a valid one). */
  event: unknown;
  /**
   * The reason the daemon counts it under (status.ingest.rejected), as it reaches the daemon
   * through its relay client (NDK), or NOT_DELIVERED when NDK drops it on the way.
   */
  expect: string;
}

/** NDK drops events whose kind does not match the subscription's filter: the daemon never sees them. */
export const NOT_DELIVERED = "not_delivered";

const replyTags = (ctx: HostileContext): string[][] => [
  ["E", ctx.root.id, "", ctx.root.pubkey], ["K", "11"], ["P", ctx.root.pubkey], ["e", ctx.root.id], ["k", "11"], ["a", ctx.coordinate],
];

/** Signed events a relay accepts; the daemon must refuse every one. */
export function signedHostiles(i: number, ctx: HostileContext): Hostile[] {
  const a = ["a", ctx.coordinate];
  const { limits } = ctx;
  const tag = (n: number, size: number) => Array.from({ length: n }, (_, k) => ["t", `${i}-${k}-`.padEnd(size, "x")]);
  const root = (content: string, tags: string[][], createdAt?: number) => ctx.owner(11, content, [a, ...tags], createdAt);
  return [
    // Strangers' events are never sent to the daemon: its filters name the project's people
    // (src/backfill/project-filters.ts), a relay answers by them and NDK matches live events
    // against them. Were one delivered anyway, the pipeline would refuse it (not_authorised).
    { label: "stranger_root", expect: NOT_DELIVERED, event: ctx.stranger(11, `stranger ${i}`, [a, ["title", `s${i}`]]) },
    { label: "stranger_reply", expect: NOT_DELIVERED, event: ctx.stranger(1111, `stranger reply ${i}`, replyTags(ctx)) },
    { label: "stranger_task", expect: NOT_DELIVERED, event: ctx.stranger(1934, `stranger task ${i}`, [a]) },
    {
      label: "stranger_path_title", expect: NOT_DELIVERED,
      event: ctx.stranger(11, `paths ${i}`, [a, ["title", "../../etc/passwd"], ["d", `../../x${i}`]]),
    },
    { label: "content_too_large", expect: "content_too_large", event: root(`${i} `.padEnd(limits.maxContentBytes + 100, "y"), []) },
    { label: "p_not_hex", expect: "bad_tag_shape", event: root(`p ${i}`, [["p", "not-hex-at-all"]]) },
    { label: "a_malformed", expect: "bad_tag_shape", event: root(`a ${i}`, [["a", `31933:zz:../../x${i}`]]) },
    { label: "E_path", expect: "bad_tag_shape", event: ctx.owner(1111, `E ${i}`, [["E", `../x${i}`], ["K", "11"], a]) },
    {
      label: "e_path", expect: "bad_tag_shape",
      event: ctx.owner(1111, `e ${i}`, [...replyTags(ctx).filter((t) => t[0] !== "e"), ["e", "../../etc/passwd"]]),
    },
    { label: "phase_path", expect: "bad_tag_shape", event: root(`phase ${i}`, [["phase", "../../root"]]) },
    { label: "K_not_digits", expect: "bad_tag_shape", event: ctx.owner(1111, `K ${i}`, [...replyTags(ctx), ["K", "eleven"]]) },
    { label: "nul_content", expect: "nul_byte", event: root(`nul ${i} \u0000 end`, []) },
    { label: "nul_tag", expect: "nul_byte", event: root(`nul tag ${i}`, [["title", "a\u0000b"]]) },
    { label: "too_many_tags", expect: "too_many_tags", event: root(`tags ${i}`, tag(limits.maxTags + 5, 8)) },
    { label: "tag_too_large", expect: "tag_too_large", event: root(`big tag ${i}`, tag(1, limits.maxTagValueBytes + 10)) },
    {
      label: "event_too_large", expect: "too_large",
      event: root(`${i} `.padEnd(limits.maxContentBytes - 10, "z"), tag(limits.maxTags - 2, limits.maxTagValueBytes - 4)),
    },
  ];
}

/** Signed events relays also pass whose strange content is fine: they must be accepted, harmlessly. */
export function pathShapedButValid(i: number, ctx: HostileContext): NostrEvent[] {
  const a = ["a", ctx.coordinate];
  return [
    ctx.owner(11, `../../etc/passwd ${i}`, [a, ["title", "../../etc/passwd"], ["d", `../../x${i}`]]),
    ctx.owner(11, `abs ${i}`, [a, ["title", `/tmp/tenexd-pwned-${i}`], ["t", "..\\..\\windows"]]),
    ctx.owner(1111, `reply ${i}`, [...replyTags(ctx), ["title", "../../../.tenex/keys/owner.nsec"]]),
  ];
}

const flipFirstByte = (hex: string) => ((parseInt(hex.slice(0, 2), 16) ^ 0x80).toString(16).padStart(2, "0")) + hex.slice(2);

/** What only a relay that checks nothing would pass on. */
export function forgedEvents(i: number, ctx: HostileContext): Hostile[] {
  // Each built on its own event: a client library drops a second event with an id it has seen.
  let k = 0;
  const good = () => ctx.owner(11, `forged ${i}.${k++}`, [["a", ctx.coordinate], ["title", `f${i}`]]);
  const ev = good();
  const ev2 = good();
  const pathId = `../../../../tmp/tenexd-pwned-${i}`.padEnd(64, "/");
  const with_ = (patch: Record<string, unknown>) => ({ ...good(), ...patch });
  return [
    { label: "bad_id", expect: "bad_id", event: { ...ev, content: `${ev.content}!` } },
    { label: "bad_signature", expect: "bad_signature", event: { ...ev2, sig: flipFirstByte(ev2.sig) } },
    { label: "path_id", expect: "bad_id_format", event: with_({ id: pathId }) },
    { label: "uppercase_id", expect: "bad_id_format", event: with_({ id: ev.id.toUpperCase() }) },
    // Not one of the filter's authors: NDK drops it before the daemon sees it (else bad_pubkey_format).
    { label: "bad_pubkey", expect: NOT_DELIVERED, event: with_({ pubkey: `../${i}` }) },
    { label: "bad_sig_format", expect: "bad_sig_format", event: with_({ sig: "00" }) },
    // The edge would call these unknown_kind and malformed; the live subscription drops them first
    // (kind not in the filter; tags it cannot match), as NDK did.
    { label: "unknown_kind", expect: NOT_DELIVERED, event: ctx.owner(4242, `kind ${i}`, [["a", ctx.coordinate]]) },
    { label: "kind_string", expect: NOT_DELIVERED, event: with_({ kind: "11" }) },
    { label: "tags_not_array", expect: NOT_DELIVERED, event: with_({ tags: "a" }) },
    { label: "content_not_string", expect: "malformed", event: with_({ content: i + 1 }) },
    // Live events reach the edge checks as sent (NDK used to turn a missing sig into "").
    { label: "sig_missing", expect: "malformed", event: { ...good(), sig: undefined } },
    { label: "created_at_float", expect: "bad_created_at", event: with_({ created_at: 1.5 + i }) },
    { label: "created_at_negative", expect: "bad_created_at", event: with_({ created_at: -1 - i }) },
    { label: "created_at_future", expect: "bad_created_at", event: ctx.owner(11, `future ${i}`, [["a", ctx.coordinate]], Math.floor(Date.now() / 1000) + 86_400) },
    { label: "empty_tag", expect: "bad_tag_shape", event: with_({ tags: [["a", ctx.coordinate], []] }) },
    { label: "number_in_tag", expect: "bad_tag_shape", event: with_({ tags: [["a", ctx.coordinate], ["p", 5]] }) },
    { label: "lone_surrogate", expect: "invalid_utf8", event: with_({ content: `broken \ud800 ${i}` }) },
  ];
}

/**
 * Frames a broken or hostile relay may send that carry no event the daemon could count:
 * not JSON, JSON of the wrong shape, unknown subscriptions, floods of notices, deep nesting.
 */
export function garbageFrames(i: number, subId: string, anEvent: NostrEvent): string[] {
  return [
    `not json ${i}`,
    "",
    "{",
    JSON.stringify({ EVENT: anEvent }),
    "42",
    "null",
    JSON.stringify(`EVENT ${i}`),
    JSON.stringify([]),
    JSON.stringify(["EVENT"]),
    JSON.stringify(["EVENT", subId]),
    JSON.stringify(["EVENT", subId, null]),
    JSON.stringify(["EVENT", subId, `event ${i}`]),
    JSON.stringify(["EVENT", subId, [1, 2, 3]]),
    JSON.stringify(["EVENT", `no-such-sub-${i}`, anEvent]),
    JSON.stringify(["EVENT", { sub: subId }, anEvent]),
    JSON.stringify(["EOSE", `no-such-sub-${i}`]),
    JSON.stringify(["OK", `${i}`.padStart(64, "0"), true, ""]),
    JSON.stringify(["CLOSED", `no-such-sub-${i}`, "bye"]),
    JSON.stringify(["NOTICE", `notice ${i} `.padEnd(10_000, "n")]),
    JSON.stringify(["AUTH", `challenge-${i}`]),
    JSON.stringify(["COUNT", subId, { count: -1 }]),
    JSON.stringify(["WHAT", subId, anEvent]),
    `${"[".repeat(50_000)}${"]".repeat(50_000)}`,
  ];
}

/** One connection to the fake relay, with its raw socket for frames a ws server would not build. */
export interface FakeConnection {
  socket: Duplex;
  /** Sends a frame the ordinary way. */
  send(data: string): void;
  /** The subscription this connection asked for (live or fetch). */
  subId: string;
  /** Resolves with the close code once the connection is gone (1006 when dropped without one). */
  closed: Promise<number>;
}

/** What the fake relay reads of a REQ's filters. */
export interface Filter { limit?: number; since?: number }

export interface FakeRelay {
  url: string;
  /**
   * The next fetch (a back-fill's or a thread fetch's REQ) that `takes` accepts (default: any) is
   * answered by `answer` instead of the events to serve: one fetch only, the others as usual.
   */
  onNextFetch(answer: (conn: FakeConnection) => Promise<void> | void, takes?: (filters: Filter[]) => boolean): void;
  /** The connections with a live subscription. */
  liveConnections(): FakeConnection[];
  /** What it answers to every fetch (a REQ not all `limit: 0`), whatever the filter, before EOSE. */
  serve(events: readonly unknown[]): void;
  /** Ids of the open live subscriptions (REQs whose filters all have `limit: 0`). */
  liveSubs(): string[];
  /** Sends frames (text, or built per live subscription id) on every connection with a live subscription. */
  push(frames: readonly (string | Buffer | ((subId: string) => string))[]): number;
  connections(): number;
  /** Connections accepted since the start (a reconnect adds one). */
  connectionsMade(): number;
  /** Drops every connection (the daemon should reconnect). */
  dropAll(): void;
  close(): Promise<void>;
}

/**
 * A relay that checks nothing and says what it is told: answers every fetch with what it was
 * given to serve, accepts every publish, and sends whatever frames the test gives it to the
 * live subscriptions.
 */
export async function startFakeRelay(): Promise<FakeRelay> {
  const live = new Map<WebSocket, Set<string>>();
  const raw = new Map<WebSocket, Omit<FakeConnection, "subId">>();
  let served: readonly unknown[] = [];
  let nextFetch: { answer: (conn: FakeConnection) => Promise<void> | void; takes: (filters: Filter[]) => boolean } | undefined;
  let made = 0;
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (ws, req) => {
    made++;
    live.set(ws, new Set());
    raw.set(ws, { socket: req.socket, send: (d) => ws.send(d), closed: new Promise((done) => ws.once("close", (code) => done(code))) });
    ws.on("close", () => live.delete(ws));
    ws.on("error", () => live.delete(ws));
    ws.on("message", (data) => answer(ws, String(data)));
  });
  const answer = (ws: WebSocket, text: string) => {
    let msg: unknown[];
    try {
      msg = JSON.parse(text) as unknown[];
    } catch {
      return;
    }
    if (msg[0] === "REQ") {
      const subId = String(msg[1]);
      const filters = msg.slice(2) as Filter[];
      if (filters.every((f) => f.limit === 0)) {
        live.get(ws)?.add(subId);
      } else if (nextFetch?.takes(filters)) {
        const { answer } = nextFetch;
        nextFetch = undefined;
        void answer({ ...raw.get(ws)!, subId });
        return;
      } else {
        for (const ev of served) ws.send(JSON.stringify(["EVENT", subId, ev]));
      }
      ws.send(JSON.stringify(["EOSE", subId]));
    } else if (msg[0] === "CLOSE") {
      live.get(ws)?.delete(String(msg[1]));
    } else if (msg[0] === "EVENT") {
      ws.send(JSON.stringify(["OK", (msg[1] as { id?: unknown })?.id, true, ""]));
    }
  };
  await new Promise<void>((ok) => wss.once("listening", ok));
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    serve: (events) => (served = events),
    onNextFetch: (answer, takes = () => true) => (nextFetch = { answer, takes }),
    liveConnections: () => [...live].flatMap(([ws, subs]) => (subs.size > 0 && ws.readyState === ws.OPEN ? [{ ...raw.get(ws)!, subId: [...subs][0]! }] : [])),
    liveSubs: () => [...live.values()].flatMap((s) => [...s]),
    connections: () => live.size,
    connectionsMade: () => made,
    push(frames) {
      let sent = 0;
      for (const [ws, subs] of live) {
        const subId = [...subs][0];
        if (subId === undefined || ws.readyState !== ws.OPEN) continue;
        for (const f of frames) {
          ws.send(typeof f === "function" ? f(subId) : f, { binary: Buffer.isBuffer(f) });
          sent++;
        }
      }
      return sent;
    },
    dropAll() {
      for (const ws of live.keys()) ws.terminate();
    },
    close: () => new Promise<void>((done) => {
      for (const ws of live.keys()) ws.terminate();
      wss.close(() => done());
    }),
  };
}
