// A plain NIP-01 connection for stored-event queries (REQ … EOSE), beside NDK's. Back-fill and
// thread fetches move tens of thousands of events: NDK wraps each one in an NDKEvent, matches it
// against every open subscription and hands fetched events to the live subscription too, which
// cost the daemon more than storing them. Here an event is one JSON.parse and a callback; the
// daemon checks its shape, id and signature itself, as it does for every inbound event.

import { WebSocket } from "ws";
import type { QueryEnd, RelayFilter } from "../../src/ports.js";

interface OpenQuery {
  onEvent: (ev: unknown) => void;
  finish: (end: QueryEnd) => void;
}

// The largest frame taken. Well above the largest event the daemon stores (512 KB): a larger one
// is refused by the edge checks like any other, whereas a frame over this limit drops the
// connection, and a relay holding one such event would end every back-fill early.
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export class QueryConnection {
  private ws: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly open = new Map<string, OpenQuery>();
  private nextId = 0;
  private closed = false;

  constructor(readonly url: string, private readonly connectTimeoutMs = 5_000) {}

  /**
   * Sends one REQ; `onEvent` gets each stored event as it arrives (unchecked). Resolves at EOSE,
   * or incomplete on CLOSED, a dropped connection or the timeout. Never rejects.
   */
  async query(filters: RelayFilter[], onEvent: (ev: unknown) => void, timeoutMs: number): Promise<QueryEnd> {
    let ws: WebSocket;
    try {
      ws = await this.connect();
    } catch (err) {
      return { complete: false, reason: `connect: ${err instanceof Error ? err.message : String(err)}` };
    }
    const id = `q${++this.nextId}`;
    return new Promise<QueryEnd>((resolve) => {
      const finish = (end: QueryEnd) => {
        if (!this.open.delete(id)) return;
        clearTimeout(timer);
        // The relay keeps a subscription open after EOSE too, until it is closed.
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(["CLOSE", id]));
        resolve(end);
      };
      const timer = setTimeout(() => finish({ complete: false, reason: `no EOSE within ${timeoutMs} ms` }), timeoutMs);
      this.open.set(id, { onEvent, finish });
      ws.send(JSON.stringify(["REQ", id, ...filters]), (err) => {
        if (err) finish({ complete: false, reason: `send: ${err.message}` });
      });
    });
  }

  /** Ends every open query (incomplete) and the connection; later queries reconnect unless closed for good. */
  close(forGood = true): void {
    this.closed ||= forGood;
    this.failAll("connection closed");
    const ws = this.ws;
    this.ws = undefined;
    this.opening = undefined;
    ws?.terminate();
  }

  private connect(): Promise<WebSocket> {
    if (this.closed) return Promise.reject(new Error("closed"));
    if (this.ws?.readyState === WebSocket.OPEN) return Promise.resolve(this.ws);
    this.opening ??= new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.url, { maxPayload: MAX_FRAME_BYTES, handshakeTimeout: this.connectTimeoutMs });
      ws.on("open", () => {
        this.ws = ws;
        this.opening = undefined;
        resolve(ws);
      });
      ws.on("message", (data) => this.onMessage(data.toString()));
      ws.on("error", (err) => {
        if (this.opening && this.ws !== ws) {
          this.opening = undefined;
          reject(err);
        }
      });
      ws.on("close", () => {
        if (this.ws === ws) {
          this.ws = undefined;
          this.failAll("connection lost");
        } else if (this.opening) {
          this.opening = undefined;
          reject(new Error("connection closed while opening"));
        }
      });
    });
    return this.opening;
  }

  private onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // Not NIP-01: nothing to route.
    }
    if (!Array.isArray(msg) || typeof msg[1] !== "string") return;
    const q = this.open.get(msg[1]);
    if (!q) return;
    if (msg[0] === "EVENT") q.onEvent(msg[2]);
    else if (msg[0] === "EOSE") q.finish({ complete: true });
    else if (msg[0] === "CLOSED") q.finish({ complete: false, reason: `closed by relay: ${String(msg[2] ?? "")}` });
  }

  private failAll(reason: string): void {
    for (const q of [...this.open.values()]) q.finish({ complete: false, reason });
  }
}
