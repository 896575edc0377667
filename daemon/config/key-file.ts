// Secret key files: one line holding an nsec1… (or 64-hex) key, mode 0600, never overwritten.

import { constants } from "node:fs";
import { mkdir, open, readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { decode, nsecEncode } from "nostr-tools/nip19";
import { generateSecretKey } from "nostr-tools/pure";
import { hexToBytes } from "nostr-tools/utils";
import { isHex64 } from "../../src/types.js";

export type KeyFileFault = "missing" | "unreadable" | "permissions" | "invalid";

/** A key file that cannot be used; `problem` says why and how to fix it. */
export class KeyFileError extends Error {
  override name = "KeyFileError";
  constructor(readonly file: string, readonly fault: KeyFileFault, readonly problem: string) {
    super(`${file}: ${problem}`);
  }
}

/** The secret key in an nsec1… or 64-hex string, or undefined when it is neither. */
export function parseSecretKey(text: string): Uint8Array | undefined {
  const s = text.trim();
  if (isHex64(s.toLowerCase())) return hexToBytes(s.toLowerCase());
  if (!s.startsWith("nsec1")) return undefined;
  try {
    const d = decode(s);
    return d.type === "nsec" ? d.data : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a key file, refusing one that others can read or write. */
export async function readKeyFile(file: string): Promise<Uint8Array> {
  const st = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") {
      throw new KeyFileError(file, "missing", "key file is missing: run `tenexd keys` to generate it (or restore it from your backup)");
    }
    throw new KeyFileError(file, "unreadable", `cannot read key file: ${err.message}`);
  });
  if (!st.isFile()) throw new KeyFileError(file, "invalid", "is not a regular file: it must hold one nsec1… key");
  if ((st.mode & 0o077) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(4, "0");
    throw new KeyFileError(file, "permissions", `key file is accessible to other users (mode ${mode}): run \`chmod 600 ${shellQuote(file)}\``);
  }
  const sk = parseSecretKey(await readFile(file, "utf8"));
  if (sk === undefined) {
    throw new KeyFileError(file, "invalid", "does not hold a key: it must contain one line with an nsec1… or 64-hex secret key");
  }
  return sk;
}

/**
 * Creates a new key file holding a fresh key. The file is created 0600 and exclusively
 * (O_EXCL), so a key is never readable by others, not even for an instant, and an existing key
 * is never overwritten: EEXIST surfaces as an error.
 */
export async function createKeyFile(file: string): Promise<Uint8Array> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const sk = generateSecretKey();
  const fh = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await fh.writeFile(`${nsecEncode(sk)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return sk;
}

/** A path as it can be pasted into a shell (quoted only when it has to be). */
export const shellQuote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);
