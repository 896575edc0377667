// The dashboard's live updates (docs/dashboard.md, "Live updates"): one Server-Sent Events
// stream per page. The engine's changes (src/ports.ts EngineChange: a conversation new or
// changed, a message once acknowledged, an agent's run starting or ending) are numbered into a
// bounded ring (src/dashboard/live-ring.ts) and pushed to every page as they happen; a page
// that reconnects with Last-Event-ID gets what it missed, or "reload" when the ring no longer
// holds it. While pages are connected, the status is pushed every ~1.5 s ("status"), carrying
// the id of the last change, so a resume never skips one.
//
// The engine's changes are followed only while a page is open, and for a minute after the last
// one leaves (a page whose stream dropped comes back within seconds, with its Last-Event-ID).
// Followed with no page, every event taken in built two change objects and a ring entry for
// nobody (~1.6 µs of the ingest path's main thread an event, and their garbage). What happens
// while nobody follows is not in the ring: a page that saw anything before it is told to reload.

import type { IncomingMessage, ServerResponse } from "node:http";
import { LiveRing, type LiveMessage } from "../../../src/dashboard/live-ring.js";
import type { DaemonStatus } from "../../../src/daemon-status.js";
import type { EngineChange } from "../../../src/ports.js";

export interface LiveSource {
  /** The engine's changes; none without a daemon (the read-only dashboard). */
  changes?: (listener: (change: EngineChange) => void) => () => void;
  status?: () => Promise<DaemonStatus>;
}

const TICK_MS = 1500;
/** A comment now and then keeps idle proxies and the browser from dropping a quiet stream. */
const PING_MS = 15_000;
/** Bounds what a page left open can make the daemon hold. */
const MAX_CLIENTS = 64;
const MAX_BUFFERED_BYTES = 1024 * 1024;
/** How long the changes are still followed after the last page left. */
const LINGER_MS = 60_000;

const frame = (m: { id: number; type: string; data: unknown }) => `id: ${m.id}\nevent: ${m.type}\ndata: ${JSON.stringify(m.data)}\n\n`;

export class LiveStream {
  private readonly ring = new LiveRing(1000);
  private readonly clients = new Set<ServerResponse>();
  /** Set while the engine's changes are followed. */
  private unsubscribe: (() => void) | undefined;
  private linger: NodeJS.Timeout | undefined;
  private tick: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly source: LiveSource,
    private readonly readOnly: boolean,
    private readonly lingerMs = LINGER_MS,
  ) {}

  get connected(): number {
    return this.clients.size;
  }

  /** Answers a GET of the stream: resumes from Last-Event-ID (header or `lastEventId`), then stays open. */
  attach(req: IncomingMessage, res: ServerResponse, lastEventId: string | undefined): void {
    if (this.clients.size >= MAX_CLIENTS) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "5" }).end("too many live pages open\n");
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive" });
    res.write("retry: 2000\n\n");
    if (lastEventId !== undefined && lastEventId !== "") {
      const resume = this.ring.after(Number(lastEventId));
      if (!resume.ok) res.write(frame({ id: this.ring.lastId, type: "reload", data: { reason: "missed too much: reload the page" } }));
      else for (const m of resume.missed) res.write(frame(m));
    }
    this.follow();
    res.write(frame({ id: this.ring.lastId, type: "hello", data: { readOnly: this.readOnly } }));
    this.clients.add(res);
    req.on("close", () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.left();
    });
    this.startTimers();
  }

  /** Ends every stream (the server stops). */
  close(): void {
    clearTimeout(this.linger);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.stopTimers();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private follow(): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    if (!this.unsubscribe && this.source.changes) this.unsubscribe = this.source.changes((c) => this.publish(c));
  }

  /** The last page left: the changes are followed a while longer, for a page that comes back. */
  private left(): void {
    this.stopTimers();
    clearTimeout(this.linger);
    this.linger = setTimeout(() => {
      this.linger = undefined;
      if (this.clients.size > 0 || !this.unsubscribe) return;
      this.unsubscribe();
      this.unsubscribe = undefined;
      this.ring.gap();
    }, this.lingerMs);
    this.linger.unref();
  }

  private publish(change: EngineChange): void {
    if (change.kind === "run") this.broadcast(this.ring.push(`run-${change.state}`, change.run));
    else {
      const { kind, ...data } = change;
      this.broadcast(this.ring.push(kind, data));
    }
  }

  private broadcast(m: LiveMessage | { id: number; type: string; data: unknown }): void {
    // With no page open the ring keeps the change for a resume; nothing is written, nothing encoded.
    if (this.clients.size === 0) return;
    const text = frame(m);
    for (const res of this.clients) {
      // A page that does not read its stream is let go rather than buffered for without end: it
      // reconnects with its Last-Event-ID, and reloads if the ring has moved past it.
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        this.clients.delete(res);
        res.destroy();
      } else res.write(text);
    }
  }

  private startTimers(): void {
    this.ping ??= setInterval(() => {
      for (const res of this.clients) res.write(": ping\n\n");
    }, PING_MS);
    if (this.source.status && !this.tick) this.tick = setInterval(() => void this.sendStatus(), TICK_MS);
  }

  private stopTimers(): void {
    clearInterval(this.tick);
    clearInterval(this.ping);
    this.tick = this.ping = undefined;
  }

  private async sendStatus(): Promise<void> {
    if (this.ticking || this.clients.size === 0) return;
    this.ticking = true;
    try {
      const status = await this.source.status!();
      this.broadcast({ id: this.ring.lastId, type: "status", data: status });
    } catch {
      // The next tick tries again; the stream stays open.
    } finally {
      this.ticking = false;
    }
  }
}
