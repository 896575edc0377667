// `tenexd keys`: creates every key file that agents.json (and an owner keyFile) names but
// that does not exist yet. Existing keys are read and reported, never overwritten.

import { relative } from "node:path";
import { npubEncode } from "nostr-tools/nip19";
import { publicKeyOf } from "../../adapters/nostr/public-key.js";
import { createKeyFile, type Env, KeyFileError, parseSecretKey, readKeyFile, readProjectFiles } from "./index.js";

export type KeyStatus = "created" | "existing" | "env" | "error";

export interface KeyReport {
  /** Agent slug, or "owner". */
  who: string;
  /** Key file relative to .tenex/, or `env:NAME`. */
  source: string;
  status: KeyStatus;
  pubkey?: string;
  npub?: string;
  /** Set when status is "error": what is wrong and how to fix it. */
  problem?: string;
}

export async function generateProjectKeys(projectDir: string, env: Env = process.env): Promise<KeyReport[]> {
  const files = await readProjectFiles(projectDir);
  const rel = (file: string) => relative(files.tenexDir, file);
  const rows: KeyReport[] = [];
  const owner = files.config.project.owner;
  if ("keyFile" in owner) rows.push(await ensureKeyFile("owner", owner.keyFile, rel(owner.keyFile)));
  for (const a of files.agents) {
    rows.push("env" in a.key ? fromEnv(a.slug, a.key.env, env) : await ensureKeyFile(a.slug, a.key.file, rel(a.key.file), a.pubkey));
  }
  return rows;
}

async function ensureKeyFile(who: string, file: string, source: string, declaredPubkey?: string): Promise<KeyReport> {
  try {
    // A declared pubkey pins an existing key: a fresh one could never match it.
    if (declaredPubkey === undefined) return withKey({ who, source, status: "created" }, await createKeyFile(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  try {
    const row = withKey({ who, source, status: "existing" }, await readKeyFile(file));
    if (declaredPubkey === undefined || row.pubkey === declaredPubkey) return row;
    return { ...row, status: "error", problem: 'does not match the "pubkey" declared in agents.json: correct one or the other' };
  } catch (err) {
    if (!(err instanceof KeyFileError)) throw err;
    const missing = declaredPubkey !== undefined && err.fault === "missing";
    const problem = missing
      ? 'key file is missing and agents.json pins this agent\'s "pubkey", so a new key would not match: restore the key file, or remove "pubkey" and run `tenexd keys` again'
      : err.problem;
    return { who, source, status: "error", problem };
  }
}

function fromEnv(who: string, name: string, env: Env): KeyReport {
  const source = `env:${name}`;
  const sk = parseSecretKey(env[name] ?? "");
  if (sk !== undefined) return withKey({ who, source, status: "env" }, sk);
  const problem = env[name] === undefined
    ? `environment variable ${name} is not set: export ${name}=nsec1… before starting tenexd (tenexd keys does not create environment keys)`
    : `environment variable ${name} must hold an nsec1… or 64-hex secret key`;
  return { who, source, status: "error", problem };
}

function withKey(row: KeyReport, sk: Uint8Array): KeyReport {
  const pubkey = publicKeyOf(sk);
  return { ...row, pubkey, npub: npubEncode(pubkey) };
}
