// Decodes one entry of a TENEX `history`: an NDK-serialized event. TENEX stored
// `NDKEvent.serialize(true, true)`, a JSON string of `[0, pubkey, created_at, kind, tags,
// content, sig, id]`. Like NDK's own deserializer, the trailing pair is told apart by length
// (sig 128 hex, id 64 hex), so an entry written with the pair swapped still decodes. An entry
// already parsed (the array itself) or a plain NIP-01 object is accepted too.
//
// Decoding checks shape only. Whether id and signature are right is the verifier's job.

import { z } from "zod";
import type { NostrEvent } from "../../src/types.js";
import { describeZodError } from "./tenex-schema.js";

/** A history entry that cannot become a NostrEvent; `eventId` is whatever id it carried. */
export class TenexEventFormatError extends Error {
  override name = "TenexEventFormatError";
  constructor(readonly reason: string, readonly eventId: string) {
    super(`undecodable event${eventId ? ` ${eventId}` : ""}: ${reason}`);
  }
}

const hex = (len: number) => z.string().regex(new RegExp(`^[0-9a-f]{${len}}$`), `expected ${len} lowercase hex characters`);

const NostrEventSchema = z.object({
  id: hex(64),
  pubkey: hex(64),
  created_at: z.number().int().min(0),
  kind: z.number().int().min(0).max(65535),
  tags: z.array(z.array(z.string())),
  content: z.string(),
  sig: hex(128),
});

const lengthOf = (v: unknown): number => (typeof v === "string" ? v.length : -1);

/** The NIP-01 fields of an NDK serialized array (sig/id told apart by length). */
function fromArray(a: readonly unknown[]): Record<string, unknown> {
  const [, pubkey, created_at, kind, tags, content, x, y] = a;
  const swapped = lengthOf(x) === 64 && lengthOf(y) !== 64;
  const [sig, id] = swapped ? [y, x] : [x, y];
  return { id, pubkey, created_at, kind, tags, content, sig };
}

function fields(entry: unknown): Record<string, unknown> {
  let value = entry;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new TenexEventFormatError(`not JSON (${(err as Error).message})`, "");
    }
  }
  if (Array.isArray(value)) return fromArray(value);
  if (value !== null && typeof value === "object") return value as Record<string, unknown>;
  throw new TenexEventFormatError(`expected a serialized event, got ${value === null ? "null" : typeof value}`, "");
}

/** The event in a history entry, or a TenexEventFormatError saying what is wrong with it. */
export function decodeHistoryEntry(entry: unknown): NostrEvent {
  const raw = fields(entry);
  const id = typeof raw.id === "string" ? raw.id : "";
  if (raw.sig === undefined || raw.sig === null) throw new TenexEventFormatError("missing signature", id);
  if (raw.id === undefined || raw.id === null) throw new TenexEventFormatError("missing id", id);
  const parsed = NostrEventSchema.safeParse(raw);
  if (!parsed.success) throw new TenexEventFormatError(describeZodError(parsed.error), id);
  return parsed.data;
}
