// Size limits on what the daemon signs and publishes. Relays reject oversized events, usually
// without saying why; refusing here gives the agent a message that names the limit to change.

import { DomainError } from "../errors.js";
import type { UnsignedEvent } from "../types.js";

export interface OutgoingLimits {
  maxContentBytes: number;
  maxTags: number;
  /** Per tag element (name and values alike). */
  maxTagValueBytes: number;
}

export type LimitField = keyof OutgoingLimits;

export class OutgoingLimitError extends DomainError {
  override name = "OutgoingLimitError";
  constructor(message: string, readonly field: LimitField) {
    super(message, "outgoing_limit");
  }
}

/** UTF-8 length of a string without encoding it (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
export function utf8ByteLength(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** `subject` reads as the start of a sentence: "content is", "the event has". */
const tooBig = (subject: string, size: number, unit: string, field: LimitField, limit: number) =>
  new OutgoingLimitError(`${subject} ${fmt(size)} ${unit}; the limit is ${fmt(limit)} (limits.${field})`, field);

export function checkOutgoingLimits(ev: UnsignedEvent, limits: OutgoingLimits): void {
  const contentBytes = utf8ByteLength(ev.content);
  if (contentBytes > limits.maxContentBytes) {
    throw tooBig("content is", contentBytes, "bytes", "maxContentBytes", limits.maxContentBytes);
  }
  if (ev.tags.length > limits.maxTags) throw tooBig("the event has", ev.tags.length, "tags", "maxTags", limits.maxTags);
  ev.tags.forEach((tag, t) => {
    tag.forEach((value, i) => {
      const bytes = utf8ByteLength(value);
      if (bytes > limits.maxTagValueBytes) {
        const what = `tag ${t} ("${(tag[0] ?? "").slice(0, 32)}") element ${i} is`;
        throw tooBig(what, bytes, "bytes", "maxTagValueBytes", limits.maxTagValueBytes);
      }
    });
  });
}
