// How fast the NDK gateway hands events from a local relay to a callback, each beside a plain
// `ws` client reading the same REQ from the same source (the limit: source + socket, no NDK).
//   relay_delivery_ndk_evps           NdkGateway.fetch from a replay server that answers any REQ
//                                     with N pre-serialised events: NDK's own capacity
//   relay_delivery_ndk_embedded_evps  NdkGateway.fetch of N events stored in the embedded relay,
//                                     run as a child process (its own core, as a real relay)
// The embedded relay's database is seeded directly: its inbound signature checks would
// dominate the run otherwise.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EventRepositorySqlite } from "@nostr-relay/event-repository-sqlite";
import Database from "better-sqlite3";
import { initNostrWasm } from "nostr-wasm";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { NdkGateway } from "../adapters/nostr/ndk-gateway.js";
import type { RelayFilter } from "../src/ports.js";
import type { NostrEvent } from "../src/types.js";
import type { Figure } from "./figure.js";

const AUTHORS = 10;
// The relay serves at most 1,000 events per filter: one filter per author covers N ≤ 10,000.
const PER_FILTER_LIMIT = 1000;
const CONTENT = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(15).slice(0, 800);

async function signedEvents(n: number): Promise<{ events: NostrEvent[]; authors: string[] }> {
  const nw = await initNostrWasm();
  const keys = Array.from({ length: AUTHORS }, () => nw.generateSecretKey());
  const authors = keys.map((k) => Buffer.from(nw.getPublicKey(k)).toString("hex"));
  const events = Array.from({ length: n }, (_, i) => {
    const ev = { kind: 1111, created_at: 1_700_000_000 + i, content: `${i} ${CONTENT}`, tags: [["a", "31933:x:bench"]] } as NostrEvent;
    nw.finalizeEvent(ev, keys[i % AUTHORS]!);
    return ev;
  });
  return { events, authors };
}

async function seed(dbPath: string, events: readonly NostrEvent[]): Promise<void> {
  const db = new Database(dbPath);
  db.pragma("journal_mode = WAL");
  // A throw-away database: no need to wait for the disk on each of thousands of commits.
  db.pragma("synchronous = OFF");
  const repo = new EventRepositorySqlite(db);
  await repo.init();
  for (const ev of events) await repo.upsert(ev);
  await repo.destroy();
}

const RELAY_MAIN = resolve(import.meta.dirname, "../adapters/relay/relay-main.js");

function spawnRelay(dbPath: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [RELAY_MAIN, "--port", "0", "--db", dbPath], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolveUrl, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /^READY (\S+)$/m.exec(out);
      if (m) resolveUrl({ url: m[1]!, child });
    });
    child.once("exit", (code) => reject(new Error(`relay exited with ${code} before READY`)));
  });
}

function rawRead(url: string, filters: RelayFilter[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let n = 0;
    ws.on("error", reject);
    ws.on("open", () => ws.send(JSON.stringify(["REQ", "bench", ...filters])));
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as unknown[];
      if (m[0] === "EVENT") n++;
      else if (m[0] === "EOSE") {
        ws.close();
        resolve(n);
      }
    });
  });
}

/** Answers every REQ with the same stored frames and EOSE, as fast as the socket takes them. */
async function replayServer(events: readonly NostrEvent[]): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((r) => wss.once("listening", r));
  const bodies = events.map((ev) => JSON.stringify(ev));
  wss.on("connection", (ws) =>
    ws.on("message", (data) => {
      const m = JSON.parse(String(data)) as unknown[];
      if (m[0] !== "REQ") return;
      const subId = JSON.stringify(m[1]);
      for (const body of bodies) ws.send(`["EVENT",${subId},${body}]`);
      ws.send(`["EOSE",${subId}]`);
    }),
  );
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => { for (const c of wss.clients) c.terminate(); wss.close(() => r()); }) };
}

const evps = (n: number, ms: number) => Math.round(n / (ms / 1000));

/** [delivered by NDK, its rate, delivered raw, raw rate] reading `filters` from `url`. */
async function compare(url: string, filters: RelayFilter[]): Promise<[number, number, number, number]> {
  let t0 = performance.now();
  const rawCount = await rawRead(url, filters);
  const rawRate = evps(rawCount, performance.now() - t0);
  const gw = await NdkGateway.connect({ relays: [url] });
  try {
    t0 = performance.now();
    const delivered = (await gw.fetch(filters, 120_000)).length;
    return [delivered, evps(delivered, performance.now() - t0), rawCount, rawRate];
  } finally {
    await gw.close();
  }
}

export async function benchNdkDelivery(n = 5000): Promise<Figure[]> {
  const { events, authors } = await signedEvents(Math.min(n, AUTHORS * PER_FILTER_LIMIT));
  const filters = authors.map((a) => ({ authors: [a], limit: PER_FILTER_LIMIT }));
  const figures: Figure[] = [];

  const replay = await replayServer(events);
  try {
    const [got, rate, rawGot, rawRate] = await compare(replay.url, filters);
    figures.push({
      name: "relay_delivery_ndk_evps", value: rate, unit: "ev/s", goal: "≥ 10000", limit: rawRate,
      note: `replay server, ${got}/${events.length} delivered (raw ws: ${rawGot})`,
    });
  } finally {
    await replay.close();
  }

  const dir = mkdtempSync(join(tmpdir(), "tenexd-bench-relay-"));
  const dbPath = join(dir, "relay.sqlite");
  await seed(dbPath, events);
  const relay = await spawnRelay(dbPath);
  try {
    const [got, rate, rawGot, rawRate] = await compare(relay.url, filters);
    figures.push({
      name: "relay_delivery_ndk_embedded_evps", value: rate, unit: "ev/s", limit: rawRate,
      note: `embedded relay (child process), ${AUTHORS} filters, ${got}/${events.length} delivered (raw ws: ${rawGot})`,
    });
  } finally {
    const gone = new Promise((r) => relay.child.once("exit", r));
    relay.child.kill("SIGTERM");
    await gone;
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
