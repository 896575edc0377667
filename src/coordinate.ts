// Project coordinates: `31933:<owner-pubkey>:<d-tag>` (NIP-01 addressable events).

import { KIND } from "./kinds.js";
import { isHex64 } from "./types.js";

export interface Coordinate {
  kind: number;
  pubkey: string;
  d: string;
}

const PREFIX = `${KIND.PROJECT}:`;

export const formatCoordinate = (pubkey: string, d: string): string => `${PREFIX}${pubkey}:${d}`;

/** Parses a project coordinate; undefined when it is not one. */
export function parseProjectCoordinate(value: string): Coordinate | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const rest = value.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  if (colon < 0) return undefined;
  const pubkey = rest.slice(0, colon);
  const d = rest.slice(colon + 1);
  if (!isHex64(pubkey) || d.length === 0) return undefined;
  return { kind: KIND.PROJECT, pubkey, d };
}

/**
 * The project an event belongs to: the `a` tag whose value is a project coordinate.
 * Never "the first a tag" (a reply may also tag other addressable events), never the d alone.
 */
export function projectOf(tags: readonly string[][]): string | undefined {
  for (const t of tags) {
    if (t[0] === "a" && typeof t[1] === "string" && parseProjectCoordinate(t[1])) return t[1];
  }
  return undefined;
}
