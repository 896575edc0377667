// Reads each agent's and the owner's secret key and checks it against what the config says.
// Returns a result per key (instead of throwing at the first) so `doctor` can list every problem.

import { npubEncode } from "nostr-tools/nip19";
import { publicKeyOf } from "../../adapters/nostr/public-key.js";
import type { ConfigIssue } from "./errors.js";
import { KeyFileError, parseSecretKey, readKeyFile } from "./key-file.js";
import { AGENTS_FILE, CONFIG_FILE } from "./read-project-files.js";
import type { KeySource, ProjectFiles } from "./types.js";

export type Env = Readonly<Record<string, string | undefined>>;

export type KeyResult<K = Uint8Array> =
  | { ok: true; pubkey: string; secretKey: K }
  | { ok: false; issue: ConfigIssue };

export async function resolveAgentKey(files: ProjectFiles, index: number, env: Env): Promise<KeyResult> {
  const agent = files.agents[index]!;
  const at = `agents[${index}]`;
  const field = "env" in agent.key ? `${at}.key.env` : `${at}.key.file`;
  const r = await readKey(agent.key, AGENTS_FILE, field, env);
  if (!r.ok || agent.pubkey === undefined || agent.pubkey === r.pubkey) return r;
  return fail(AGENTS_FILE, `${at}.pubkey`,
    `does not match the agent's key (whose public key is ${npubEncode(r.pubkey)}): correct "pubkey" or point "key" at the right key`);
}

/** The owner's key, when config.json names a keyFile; otherwise just the configured pubkey. */
export async function resolveOwnerKey(files: ProjectFiles): Promise<KeyResult<Uint8Array | undefined>> {
  const owner = files.config.project.owner;
  if ("pubkey" in owner) return { ok: true, pubkey: owner.pubkey, secretKey: undefined };
  return readKey({ file: owner.keyFile }, CONFIG_FILE, "project.owner.keyFile", {});
}

async function readKey(source: KeySource, file: string, path: string, env: Env): Promise<KeyResult> {
  if ("env" in source) return keyFromEnv(source.env, file, path, env);
  try {
    const secretKey = await readKeyFile(source.file);
    return { ok: true, secretKey, pubkey: publicKeyOf(secretKey) };
  } catch (err) {
    if (err instanceof KeyFileError) return fail(file, path, err.problem);
    throw err;
  }
}

function keyFromEnv(name: string, file: string, path: string, env: Env): KeyResult {
  const value = env[name];
  if (value === undefined || value === "") {
    return fail(file, path, `environment variable ${name} is not set: export ${name}=nsec1… (the agent's secret key) before starting tenexd`);
  }
  const secretKey = parseSecretKey(value);
  if (secretKey === undefined) return fail(file, path, `environment variable ${name} must hold an nsec1… or 64-hex secret key`);
  return { ok: true, secretKey, pubkey: publicKeyOf(secretKey) };
}

const fail = (file: string, path: string, problem: string): KeyResult => ({ ok: false, issue: { file, path, problem } });
