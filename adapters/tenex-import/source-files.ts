// Finding and reading the files of a TENEX `.tenex/conversations/` folder. A conversation file's
// name must be `<64 hex>.json` before it is used as anything: names come from someone else's disk.

import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { isHex64 } from "../../src/types.js";
import { TenexMetadataEntrySchema, TenexMetadataFileSchema, describeZodError, type TenexMetadataEntry } from "./tenex-schema.js";

export const METADATA_FILE = "metadata.json";
export const ARCHIVE_DIR = "archive";

/** The folder is not there, or is not a folder: nothing can be imported from it. */
export class TenexSourceError extends Error {
  override name = "TenexSourceError";
  constructor(dir: string, why: string) {
    super(`cannot import from ${dir}: ${why}`);
  }
}

export interface SourceFile {
  /** Relative to the source folder, e.g. `archive/<id>.json`. */
  rel: string;
  path: string;
  /** The conversation id the name claims; undefined when the name is not `<64 hex>.json`. */
  id: string | undefined;
  /** The name without `.json`, for reports about badly named files. */
  stem: string;
  archived: boolean;
}

async function jsonFilesIn(dir: string, archived: boolean): Promise<SourceFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".json") && !(e.name === METADATA_FILE && !archived))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const stem = name.slice(0, -".json".length);
      return {
        rel: archived ? `${ARCHIVE_DIR}/${name}` : name, path: join(dir, name), id: isHex64(stem) ? stem : undefined,
        stem, archived,
      };
    });
}

/**
 * Every `*.json` conversation file, active ones first, then `archive/`. A folder with neither
 * conversation files nor TENEX's metadata.json holds no TENEX project: an error, not "0 imported".
 */
export async function listSourceFiles(srcDir: string): Promise<SourceFile[]> {
  const st = await stat(srcDir).catch(() => undefined);
  if (!st) throw new TenexSourceError(srcDir, "no such folder");
  if (!st.isDirectory()) throw new TenexSourceError(srcDir, "not a folder");
  const files = [...(await jsonFilesIn(srcDir, false)), ...(await jsonFilesIn(join(srcDir, ARCHIVE_DIR), true))];
  if (files.length === 0 && !(await stat(join(srcDir, METADATA_FILE)).catch(() => undefined))) {
    throw new TenexSourceError(srcDir, `found no TENEX project there (no ${METADATA_FILE}, no <id>.json conversation files)`);
  }
  return files;
}

export async function readJson(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, "utf8"));
}

export interface MetadataIndex {
  entries: Map<string, TenexMetadataEntry>;
  /** What was wrong with metadata.json, if anything: the files themselves are still imported. */
  problems: string[];
}

/** metadata.json, leniently: a missing or broken index only costs titles and archive flags. */
export async function readMetadata(srcDir: string): Promise<MetadataIndex> {
  const entries = new Map<string, TenexMetadataEntry>();
  const problems: string[] = [];
  let json: unknown;
  try {
    json = await readJson(join(srcDir, METADATA_FILE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`unreadable: ${(err as Error).message}`);
    return { entries, problems };
  }
  const file = TenexMetadataFileSchema.safeParse(json);
  if (!file.success) return { entries, problems: [`ignored: ${describeZodError(file.error)}`] };
  file.data.conversations.forEach((raw, i) => {
    const entry = TenexMetadataEntrySchema.safeParse(raw);
    if (entry.success) entries.set(entry.data.id, entry.data);
    else problems.push(`entry #${i + 1} ignored: ${describeZodError(entry.error)}`);
  });
  return { entries, problems };
}
