// The floor hosts' live subscription (trigger-floor-host.ts, ingest-floor-host.ts): one socket,
// one REQ for the conversation kinds from now on, each EVENT frame parsed once and handed on.

import { WebSocket } from "ws";
import type { NostrEvent } from "../src/types.js";

export function subscribeLive(url: string, onEvent: (ev: NostrEvent) => void): WebSocket {
  const ws = new WebSocket(url);
  ws.on("open", () => ws.send(JSON.stringify(["REQ", "floor", { kinds: [1, 11, 1111], limit: 0 }])));
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data)) as unknown[];
    if (msg[0] === "EVENT") onEvent(msg[2] as NostrEvent);
  });
  return ws;
}
