// Frames above the transport limits, written by hand on a relay's raw socket (a ws server would
// refuse to build them or build them whole in memory): a text frame whose header claims
// `claimed` bytes, its payload streamed after it as long as the client keeps reading. A client
// with a frame limit drops the connection on the header; one without it reads, buffers and
// parses the whole frame.

import type { Duplex } from "node:stream";

export interface ClaimedFrame {
  claimed: number;
  /** Payload bytes the client took before it dropped the connection, or all of them. */
  written: number;
  /** The client dropped the connection before the whole payload was sent. */
  dropped: boolean;
  ms: number;
}

const CHUNK = 1024 * 1024;

/** Header of an unmasked (server to client) text frame of `length` bytes. */
function textFrameHeader(length: number): Buffer {
  const head = Buffer.alloc(10);
  head[0] = 0x81; // FIN, text
  head[1] = 127; // 64-bit length follows
  head.writeBigUInt64BE(BigInt(length), 2);
  return head;
}

/**
 * Sends ["EVENT", subId, {"content":"xxx…"}] in one frame of `claimed` bytes on `socket`, chunk
 * by chunk as the client reads, until it is all sent, the client drops the connection, or
 * `timeoutMs` (then the socket is destroyed). Nothing else may be written on the socket after it.
 */
export async function sendClaimedFrame(socket: Duplex, subId: string, claimed: number, timeoutMs = 30_000): Promise<ClaimedFrame> {
  const started = Date.now();
  const prefix = Buffer.from(`["EVENT",${JSON.stringify(subId)},{"kind":11,"content":"`);
  const suffix = Buffer.from('"}]');
  const filler = Buffer.alloc(CHUNK, "x");
  let written = 0;
  let dropped = false;
  const gone = new Promise<void>((done) => {
    const end = () => {
      dropped = true;
      done();
    };
    socket.once("close", end);
    socket.once("error", end);
  });
  const write = async (buf: Buffer): Promise<boolean> => {
    if (dropped || socket.destroyed) return false;
    const ok = socket.write(buf);
    if (!ok) await Promise.race([new Promise((r) => socket.once("drain", r)), gone]);
    return !dropped;
  };
  const deadline = started + timeoutMs;
  if (await write(textFrameHeader(claimed))) {
    await write(prefix);
    written = prefix.length;
    while (written < claimed - suffix.length && Date.now() < deadline) {
      const n = Math.min(CHUNK, claimed - suffix.length - written);
      if (!(await write(n === CHUNK ? filler : filler.subarray(0, n)))) break;
      written += n;
    }
    if (!dropped && written === claimed - suffix.length && (await write(suffix))) written += suffix.length;
  }
  // A short grace for a client that drops the connection once the frame is in.
  await Promise.race([gone, new Promise((r) => setTimeout(r, 200))]);
  if (Date.now() >= deadline && !dropped) socket.destroy();
  return { claimed, written, dropped: dropped && written < claimed, ms: Date.now() - started };
}
