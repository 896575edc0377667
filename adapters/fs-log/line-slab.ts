// The UTF-8 bytes of a log line, written into a shared slab rather than a buffer of their own.
// `Buffer.from(text)` takes a slice of Node's 8 KB pool, so a ~1.7 KB event line allocated a new
// pool every four or five appends; here one slab serves a few hundred lines. A slab is freed
// once the last line cut from it is (written, and handed to the index).

// A line's UTF-8 takes at most 3 bytes a UTF-16 unit; longer lines get a buffer of their own.
const SLAB_BYTES = 256 * 1024;
const MAX_UNITS_IN_SLAB = Math.floor(SLAB_BYTES / 3 / 4);

export class LineSlab {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  private used = 0;

  /** `text` as UTF-8, in a view that is its own: nothing later written into the slab overlaps it. */
  encode(text: string): Buffer {
    if (text.length > MAX_UNITS_IN_SLAB) return Buffer.from(text);
    if (SLAB_BYTES - this.used < text.length * 3) {
      this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
      this.used = 0;
    }
    const start = this.used;
    this.used += this.slab.write(text, start);
    return this.slab.subarray(start, this.used);
  }
}
