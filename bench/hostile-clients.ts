// Hostile WebSocket clients for the relay fault tests and benchmark, written at the byte level so that nothing
// in a library stops them: an upgrade with any headers (a web page's Origin), frames of any size
// (a header that claims 95 MB, then the bytes streamed from one shared buffer), and a crowd of
// such clients on 127.0.0.1 for a bounded time. Plus the resident memory of a process.

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

/** VmRSS of a process in MB, from /proc/PID/status (Linux); undefined once it is gone. */
export function rssMb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface Upgrade {
  /** The HTTP status the server answered the upgrade with (101 when it accepted). */
  status: number;
  socket: Socket;
}

/** Sends a WebSocket upgrade request with `headers` and resolves with the server's status line. */
export function rawUpgrade(url: string, headers: Record<string, string> = {}, localAddress?: string, timeoutMs = 5_000): Promise<Upgrade> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to the upgrade within ${timeoutMs} ms`));
    }, timeoutMs);
    let head = "";
    const onData = (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      clearTimeout(timer);
      socket.off("data", onData);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      // Whatever came after the headers (a first frame) is not needed by any caller.
      resolve({ status, socket });
    };
    socket.on("data", onData);
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once("connect", () => {
      const lines = [
        `GET ${pathname || "/"} HTTP/1.1`, `Host: ${hostname}:${port}`, "Upgrade: websocket", "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`, "Sec-WebSocket-Version: 13",
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
  });
}

/**
 * The header of a masked client text frame claiming `length` payload bytes. The mask key is
 * zero, so the payload goes out as it is: one buffer can be written over and over.
 */
export function frameHeader(length: number): Buffer {
  const mask = Buffer.alloc(4);
  if (length < 126) return Buffer.concat([Buffer.from([0x81, 0x80 | length]), mask]);
  if (length <= 0xffff) {
    const h = Buffer.from([0x81, 0x80 | 126, 0, 0]);
    h.writeUInt16BE(length, 2);
    return Buffer.concat([h, mask]);
  }
  const h = Buffer.alloc(10);
  h[0] = 0x81;
  h[1] = 0x80 | 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([h, mask]);
}

/** A whole masked text frame holding `payload`. */
export const textFrame = (payload: string | Buffer): Buffer => {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  return Buffer.concat([frameHeader(body.length), body]);
};

/** Writes `data`, waiting for the socket to drain; false once the socket is gone. */
function write(socket: Socket, data: Buffer): Promise<boolean> {
  if (socket.destroyed || !socket.writable) return Promise.resolve(false);
  if (socket.write(data)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      socket.off("drain", onDrain);
      socket.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    socket.once("drain", onDrain);
    socket.once("close", onClose);
  });
}

export interface FloodOptions {
  url: string;
  clients: number;
  durationMs: number;
  /** Complete frames sent over and over, each by its own share of the clients: the relay's real limits. */
  limitFrames: readonly Buffer[];
  /** Source addresses to spread the clients over (127.0.0.0/8 is all loopback on Linux). */
  localAddresses?: readonly string[];
  /** Checked between writes: the attack stops early when it returns true (a safety valve). */
  abort?: () => boolean;
  /** Which frames, in turn (default all): one of `limitFrames` (its index), "1mb", "95mb". */
  kinds?: readonly (number | "1mb" | "95mb")[];
}

export interface FloodReport {
  connections: number;
  /** Upgrades the server answered with something other than 101. */
  refusedUpgrades: Record<number, number>;
  /** Frames of each of `limitFrames` sent. */
  framesAtLimit: number[];
  framesOf1MB: number;
  framesClaiming95MB: number;
  bytesSent: number;
}

const ONE_MB = 1024 * 1024;
const CLAIMED = 95_000_000;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/**
 * `clients` connections on loopback, each in turn sending complete frames at one of the relay's
 * limits (over and over, as long as the server reads them), a complete 1 MB frame, and a frame
 * whose header claims 95 MB followed by as many of its bytes as the server reads; reconnecting
 * whenever the server closes, until `durationMs` has passed.
 */
export async function flood(o: FloodOptions): Promise<FloodReport> {
  const report: FloodReport = { connections: 0, refusedUpgrades: {}, framesAtLimit: o.limitFrames.map(() => 0), framesOf1MB: 0, framesClaiming95MB: 0, bytesSent: 0 };
  const until = Date.now() + o.durationMs;
  const going = () => Date.now() < until && !(o.abort?.() ?? false);
  const oneMb = textFrame(Buffer.alloc(ONE_MB, 0x20));
  const claimed = frameHeader(CLAIMED);
  const sockets = new Set<Socket>();

  const client = async (i: number) => {
    const localAddress = o.localAddresses?.[i % o.localAddresses.length];
    for (let round = 0; going(); round++) {
      let up: Upgrade;
      try {
        up = await rawUpgrade(o.url, {}, localAddress);
      } catch {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      const { socket } = up;
      if (up.status !== 101) {
        report.refusedUpgrades[up.status] = (report.refusedUpgrades[up.status] ?? 0) + 1;
        socket.destroy();
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      report.connections++;
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.resume(); // what the server answers is read and dropped
      const send = async (data: Buffer) => {
        const ok = await write(socket, data);
        if (ok) report.bytesSent += data.length;
        return ok;
      };
      const kinds = o.kinds ?? [...o.limitFrames.keys(), "1mb", "95mb"];
      const kind = kinds[(i + round) % kinds.length]!;
      if (typeof kind === "number") {
        while (going() && (await send(o.limitFrames[kind]!))) report.framesAtLimit[kind]!++;
      } else if (kind === "1mb") {
        if (await send(oneMb)) report.framesOf1MB++;
        await new Promise((r) => setTimeout(r, 20));
      } else if (await send(claimed)) {
        report.framesClaiming95MB++;
        for (let sent = 0; sent < CLAIMED && going(); sent += CHUNK.length) if (!(await send(CHUNK))) break;
      }
      socket.destroy();
      sockets.delete(socket);
    }
  };
  await Promise.all(Array.from({ length: o.clients }, (_, i) => client(i)));
  for (const s of sockets) s.destroy();
  return report;
}
