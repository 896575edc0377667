// The UTF-8 bytes of a log line, written into a shared slab rather than a buffer of their own.
// `Buffer.from(text)` takes a slice of Node's 8 KB pool, so a ~1.7 KB event line allocated a new
// pool every four or five appends; here one slab serves a few hundred lines. A slab is freed
// once the last line cut from it is (written, and handed to the index).

/** A piece of a line: text, or bytes already UTF-8 (an event's JSON from its verifier). */
export type LinePart = string | Uint8Array;

const SLAB_BYTES = 256 * 1024;
// Longer lines get a buffer of their own.
const MAX_BYTES_IN_SLAB = SLAB_BYTES / 4;

export class LineSlab {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;

  /** The parts' bytes, one after the other, in a view that is their own: nothing written later overlaps it. */
  encode(parts: LinePart | readonly LinePart[]): Buffer {
    const list = typeof parts === "string" || parts instanceof Uint8Array ? [parts] : parts;
    // At most: a UTF-16 unit takes up to 3 bytes in UTF-8.
    let most = 0;
    for (const p of list) most += typeof p === "string" ? p.length * 3 : p.length;
    if (most > MAX_BYTES_IN_SLAB) return Buffer.concat(list.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
    if (SLAB_BYTES - this.used < most) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const start = this.used;
    for (const p of list) {
      if (typeof p === "string") {
        this.used += this.slab.write(p, this.used);
      } else {
        this.slab.set(p, this.used);
        this.used += p.length;
      }
    }
    return this.slab.subarray(start, this.used);
  }
}
