// Each verified event's JSON, serialized on the verifier's thread beside its check, for the log:
// on the main thread, serializing each event for its log line (`JSON.stringify` and its UTF-8)
// took ~12% of its samples in a profile of the live path. The worker serializes its copy of the
// event (a structured clone keeps the properties, their order and their values, so the text is
// the one the main thread's `JSON.stringify` of the original would write), mostly from the texts
// its id's hash already made (native-verify.ts), and a batch's texts come back as one transferred
// buffer. The table holds them by event object, weakly: bytes never
// taken (a refused or duplicate event) go with their event, the edge's copy that only the route
// holds until the event is stored or refused (a view pins its batch's buffer until then).

import type { EventJsonSource } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";

/** Where a pool puts the JSON its workers send back. */
export interface EventJsonSink {
  put(ev: NostrEvent, json: Uint8Array): void;
}

export class VerifiedEventJson implements EventJsonSource, EventJsonSink {
  private readonly byEvent = new WeakMap<NostrEvent, Uint8Array>();

  put(ev: NostrEvent, json: Uint8Array): void {
    this.byEvent.set(ev, json);
  }

  take(ev: NostrEvent): Uint8Array | undefined {
    const json = this.byEvent.get(ev);
    // Deleted once used: a stored event lives on in its conversation, and would hold the batch's buffer.
    if (json) this.byEvent.delete(ev);
    return json;
  }
}

/** A batch's texts as UTF-8 in one buffer of its own (transferable); `ends[i]`: where text i ends. */
export function packJson(texts: readonly string[]): { json: Uint8Array; ends: Uint32Array } {
  const ends = new Uint32Array(texts.length);
  let total = 0;
  for (let i = 0; i < texts.length; i++) ends[i] = total += Buffer.byteLength(texts[i]!);
  const json = Buffer.allocUnsafeSlow(total);
  let off = 0;
  for (const t of texts) off += json.write(t, off);
  return { json, ends };
}

/** Text `i` of a packed batch; undefined when it is empty (no JSON for that event). */
export function jsonAt(json: Uint8Array, ends: Uint32Array, i: number): Uint8Array | undefined {
  const start = i === 0 ? 0 : ends[i - 1]!;
  const end = ends[i]!;
  return end > start ? json.subarray(start, end) : undefined;
}
