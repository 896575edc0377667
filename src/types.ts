// Core domain types shared by every layer. Pure data: no classes, no I/O.

import { isLowerHex } from "./hex.js";

/** A signed Nostr event exactly as it travels on the wire (NIP-01). */
export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

/** An event before signing (what an agent asks the signer to sign). */
export interface UnsignedEvent {
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
}

export const PHASES = ["chat", "brainstorm", "plan", "execute", "verification", "chores", "reflection"] as const;
export type Phase = (typeof PHASES)[number];

export const PRIORITIES = ["critical", "high", "medium", "low"] as const;
export type Priority = (typeof PRIORITIES)[number];

export const MESSAGE_TYPES = [
  "context", "result", "decision", "data",
  "feedback", "rejection", "instruction", "test_output", "advisory",
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** A project agent as the domain sees it (keys and backends are the daemon's business). */
export interface AgentInfo {
  slug: string;
  name: string;
  pubkey: string;
  role: string;
  isOrchestrator: boolean;
}

/** Who may trigger what in one project. */
export interface ProjectInfo {
  /** Full coordinate `31933:<owner-pubkey>:<d>`. */
  coordinate: string;
  ownerPubkey: string;
  /** Whitelisted human users (the owner is always allowed). */
  whitelist: readonly string[];
  agents: readonly AgentInfo[];
  /** The dialect agents answer in (src/dialect.ts); the trigger's own when absent or "auto". */
  dialect?: "auto" | "nip22" | "kind1";
}

/** 64 lowercase hex characters: event ids and pubkeys (isHex64 is the faster test: src/hex.ts). */
export const HEX64 = /^[0-9a-f]{64}$/;
export const isHex64 = (s: unknown): s is string => isLowerHex(s, 64);
