// A NIP-01 proxy on 127.0.0.1 in front of a real relay that cuts back-fill connections in the
// middle of their answer, as a flaky network or an overloaded relay does. Every client
// connection gets its own upstream connection; frames pass through unchanged. A connection that
// streams stored events (a REQ with a limit above 0: the daemon's back-fill and thread fetches,
// never its live subscription, which asks `limit: 0`) can be cut after a number of events: both
// sockets are dropped at once, nothing is closed politely. The live connection is never touched,
// so the daemon sees no reconnect: whatever it does about the cut, it does on its own.

import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer, type RawData } from "ws";

export interface CuttingProxy {
  url: string;
  /** Connections cut so far. */
  cuts(): number;
  /** Cuts each of the next `connections` connections that stream stored events, after `afterEvents` events. */
  cutBackfills(connections: number, afterEvents: number): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  let toCut = 0;
  let after = 0;
  let cuts = 0;
  wss.on("connection", (client) => {
    const upstream = new WebSocket(target);
    const waiting: string[] = [];
    const storedSubs = new Set<string>();
    let doomed = false;
    let dropped = false;
    let events = 0;
    const drop = () => {
      dropped = true;
      client.terminate();
      upstream.terminate();
    };
    client.on("message", (data: RawData) => {
      const text = data.toString();
      const msg = parse(text);
      if (msg?.[0] === "REQ" && typeof msg[1] === "string" && msg.slice(2).some((f) => ((f as { limit?: number })?.limit ?? 1) > 0)) {
        storedSubs.add(msg[1]);
      }
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else waiting.push(text);
    });
    upstream.on("open", () => {
      for (const text of waiting.splice(0)) upstream.send(text);
    });
    upstream.on("message", (data: RawData) => {
      if (dropped) return;
      const text = data.toString();
      if (storedSubs.size > 0 && text.startsWith('["EVENT"')) {
        const msg = parse(text);
        if (typeof msg?.[1] === "string" && storedSubs.has(msg[1])) {
          // A connection is marked for cutting at its first stored event, while cuts are wanted.
          if (!doomed && toCut > 0) {
            doomed = true;
            toCut--;
          }
          if (doomed && ++events > after) {
            cuts++;
            drop();
            return;
          }
        }
      }
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    for (const ws of [client, upstream]) {
      ws.on("close", drop);
      ws.on("error", drop);
    }
  });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    cuts: () => cuts,
    cutBackfills: (connections, afterEvents) => {
      toCut = connections;
      after = afterEvents;
    },
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function parse(text: string): unknown[] | undefined {
  try {
    const msg: unknown = JSON.parse(text);
    return Array.isArray(msg) ? msg : undefined;
  } catch {
    return undefined;
  }
}
