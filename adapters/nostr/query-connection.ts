// A plain NIP-01 connection for stored-event queries (REQ … EOSE), beside NDK's. Back-fill and
// thread fetches move tens of thousands of events: NDK wraps each one in an NDKEvent, matches it
// against every open subscription and hands fetched events to the live subscription too, which
// cost the daemon more than storing them. Here an event is one JSON.parse and a callback; the
// daemon checks its shape, id and signature itself, as it does for every inbound event.

import { WebSocket } from "ws";
import type { QueryEnd, RelayFilter, Signer } from "../../src/ports.js";
import { AuthAnswer, type AuthAnswerHooks } from "./auth-answer.js";

interface OpenQuery {
  frame: string;
  onEvent: (ev: unknown) => void;
  finish: (end: QueryEnd) => void;
  /** Sent again once after the relay refused it with `auth-required:`. */
  retried: boolean;
  deadline: number;
}

export interface QueryConnectionOptions {
  connectTimeoutMs?: number;
  /**
   * The largest frame taken (transport-limits.ts: room for the largest event the daemon accepts,
   * however the relay escapes it). A larger one drops the connection, and the query is incomplete.
   */
  maxFrameBytes: number;
  /** Answers the relay's AUTH challenges (NIP-42); without it none is answered. */
  authSigner?: Signer;
  authHooks?: AuthAnswerHooks;
}

const AUTH_REQUIRED = "auth-required:";

export class QueryConnection {
  private ws: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly open = new Map<string, OpenQuery>();
  private readonly auth: AuthAnswer;
  private nextId = 0;
  private closed = false;
  private tooLarge = false;

  constructor(readonly url: string, private readonly o: QueryConnectionOptions) {
    this.auth = new AuthAnswer(url, o.authSigner, o.authHooks ?? { onAsked: () => undefined, onAnswered: () => undefined });
  }

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
    const frame = JSON.stringify(["REQ", id, ...filters]);
    return new Promise<QueryEnd>((resolve) => {
      const finish = (end: QueryEnd) => {
        if (!this.open.delete(id)) return;
        clearTimeout(timer);
        // The relay keeps a subscription open after EOSE too, until it is closed.
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(["CLOSE", id]));
        resolve(end);
      };
      const timer = setTimeout(() => finish({ complete: false, reason: `no EOSE within ${timeoutMs} ms` }), timeoutMs);
      this.open.set(id, { frame, onEvent, finish, retried: false, deadline: Date.now() + timeoutMs });
      this.send(ws, id, frame);
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
      const ws = new WebSocket(this.url, { maxPayload: this.o.maxFrameBytes, handshakeTimeout: this.o.connectTimeoutMs ?? 5_000 });
      ws.on("open", () => {
        this.ws = ws;
        this.opening = undefined;
        resolve(ws);
      });
      ws.on("message", (data) => this.onMessage(ws, data.toString()));
      ws.on("error", (err: Error & { code?: string }) => {
        // A frame over maxPayload: ws closes the connection; the queries end with the reason.
        if (err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") this.tooLarge = true;
        if (this.opening && this.ws !== ws) {
          this.opening = undefined;
          reject(err);
        }
      });
      ws.on("close", () => {
        this.auth.reset();
        if (this.ws === ws) {
          this.ws = undefined;
          this.failAll(this.tooLarge ? `the relay sent a frame over ${this.o.maxFrameBytes} bytes` : "connection lost");
          this.tooLarge = false;
        } else if (this.opening) {
          this.opening = undefined;
          reject(new Error("connection closed while opening"));
        }
      });
    });
    return this.opening;
  }

  private onMessage(ws: WebSocket, text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // Not NIP-01: nothing to route.
    }
    if (!Array.isArray(msg) || typeof msg[1] !== "string") return;
    if (msg[0] === "AUTH") {
      void this.auth.challenged(msg[1], (frame) => ws.readyState === WebSocket.OPEN && ws.send(frame), Math.floor(Date.now() / 1000))
        .catch(() => undefined);
      return;
    }
    if (msg[0] === "OK" && this.auth.ok(msg[1], msg[2] === true, String(msg[3] ?? ""))) return;
    const id = msg[1];
    const q = this.open.get(id);
    if (!q) return;
    if (msg[0] === "EVENT") q.onEvent(msg[2]);
    else if (msg[0] === "EOSE") q.finish({ complete: true });
    else if (msg[0] === "CLOSED") void this.closedByRelay(ws, id, q, String(msg[2] ?? ""));
  }

  /** A query the relay ended: one refused for want of AUTH is sent again once the relay accepted ours. */
  private async closedByRelay(ws: WebSocket, id: string, q: OpenQuery, reason: string): Promise<void> {
    if (reason.startsWith(AUTH_REQUIRED) && !q.retried) {
      q.retried = true;
      const outcome = await this.auth.settled(Math.max(1, q.deadline - Date.now()));
      if (outcome?.accepted && this.open.get(id) === q && ws.readyState === WebSocket.OPEN) {
        this.send(ws, id, q.frame);
        return;
      }
      if (outcome && !outcome.accepted) reason = `${reason} (our AUTH: ${outcome.reason})`;
    }
    q.finish({ complete: false, reason: `closed by relay: ${reason}` });
  }

  private send(ws: WebSocket, id: string, frame: string): void {
    ws.send(frame, (err) => {
      if (err) this.open.get(id)?.finish({ complete: false, reason: `send: ${err.message}` });
    });
  }

  private failAll(reason: string): void {
    for (const q of [...this.open.values()]) q.finish({ complete: false, reason });
  }
}
