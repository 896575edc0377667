// What the configuration loader hands to the rest of the daemon.

import type { AgentInfo, ProjectInfo } from "../../src/types.js";
import type { ParsedAgent } from "./agents-schema.js";
import type { ParsedConfig } from "./config-schema.js";

/** How the daemon reaches an agent. Command paths are absolute once loaded. */
export type AgentBackend = { type: "mailbox" } | CommandBackend;

export type CommandBackend = { type: "command"; command: string[]; timeoutSeconds: number };

/** Where a secret key comes from: an absolute file path, or an environment variable. */
export type KeySource = { file: string } | { env: string };

export type ResolvedOwner = { pubkey: string } | { keyFile: string };

/** config.json with the owner's key file made absolute. */
export type ProjectConfig = Omit<ParsedConfig, "project"> & {
  project: Omit<ParsedConfig["project"], "owner"> & { owner: ResolvedOwner };
};

/** One agents.json entry with its paths made absolute (no key read yet). */
export type ResolvedAgentEntry = Omit<ParsedAgent, "key" | "backend"> & { key: KeySource; backend: AgentBackend };

/** Both files parsed and validated, before any key is read. */
export interface ProjectFiles {
  projectDir: string;
  tenexDir: string;
  config: ProjectConfig;
  agents: ResolvedAgentEntry[];
}

export interface LoadedAgent extends AgentInfo {
  secretKey: Uint8Array;
  keySource: KeySource;
  backend: AgentBackend;
}

/** The key that answers relays' AUTH challenges (config.json `relayAuth.signer`). */
export interface RelayAuthKey {
  /** An agent's slug, or "owner". */
  signer: string;
  pubkey: string;
  secretKey: Uint8Array;
}

export interface LoadedProject {
  projectDir: string;
  tenexDir: string;
  config: ProjectConfig;
  /** `31933:<owner-hex>:<d>`. */
  coordinate: string;
  /** The owner's secret key is present only when config.json names an owner keyFile. */
  owner: { pubkey: string; secretKey?: Uint8Array };
  agents: LoadedAgent[];
  orchestrator: LoadedAgent;
  relayAuth: RelayAuthKey;
  /** The project as the domain (src/) sees it. */
  info: ProjectInfo;
}
