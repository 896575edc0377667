// A load generator for the live ingest figure, not a relay: it speaks just enough NIP-01 on
// loopback to push a fixed set of events down a live subscription as fast as the socket takes
// them. A real relay cannot be the source here: it delivers a live event only after its own
// publish path has verified it (~1,000 ev/s, pure JS, on the cores tenexd needs), so it would
// measure the relay. What it does:
//   REQ whose filters all have `limit: 0` (a live subscription): EOSE, then every event, once,
//   and later the events of each `pushMore` down the same subscription (a daemon already warm);
//   any other REQ (a back-fill): EOSE at once, it stores nothing;
//   EVENT (the daemon publishing): OK, accepted and forgotten.

import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import type { NostrEvent } from "../src/types.js";

export interface ReplayRelay {
  url: string;
  /** performance.now() when the first event (of the last push) went out; undefined until a live REQ came. */
  startedAt(): number | undefined;
  /** Pushes `events` down the live subscription after the first set (started at once); false without one. */
  pushMore(events: readonly NostrEvent[]): boolean;
  close(): Promise<void>;
}

// Above this much unsent data the sender waits: the socket, not memory, paces it.
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

export async function startReplayRelay(events: readonly NostrEvent[]): Promise<ReplayRelay> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((ok, fail) => {
    wss.once("listening", ok);
    wss.once("error", fail);
  });
  // Serialized before the clock starts: what is measured is the daemon, not JSON.stringify here.
  const bodies = events.map((ev) => JSON.stringify(ev));
  let started: number | undefined;
  let subscription: { ws: WebSocket; subId: string } | undefined;

  const push = async (ws: WebSocket, subId: string, bodies: readonly string[]) => {
    const head = `["EVENT",${JSON.stringify(subId)},`;
    started = performance.now();
    for (const body of bodies) {
      if (ws.readyState !== ws.OPEN) return;
      while (ws.bufferedAmount > HIGH_WATER_BYTES) await new Promise((r) => setTimeout(r, 1));
      ws.send(`${head}${body}]`);
    }
  };

  wss.on("connection", (ws) => {
    ws.on("message", (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (!Array.isArray(msg)) return;
      if (msg[0] === "EVENT" && typeof msg[1]?.id === "string") ws.send(JSON.stringify(["OK", msg[1].id, true, ""]));
      if (msg[0] !== "REQ" || typeof msg[1] !== "string") return;
      const subId = msg[1];
      ws.send(JSON.stringify(["EOSE", subId]));
      const live = msg.slice(2).every((f: { limit?: number }) => f?.limit === 0);
      if (live && started === undefined) {
        subscription = { ws, subId };
        void push(ws, subId, bodies);
      }
    });
  });

  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    startedAt: () => started,
    pushMore: (more) => {
      if (!subscription) return false;
      void push(subscription.ws, subscription.subId, more.map((ev) => JSON.stringify(ev)));
      return true;
    },
    close: () => new Promise<void>((r) => {
      for (const c of wss.clients) c.terminate();
      wss.close(() => r());
    }),
  };
}
