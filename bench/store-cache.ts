// The 1,000,000-event store takes minutes to fill (and minutes to copy): it is filled once per
// version of the code that writes it (the compiled domain, log and index code, fingerprinted)
// as a bench project under os.tmpdir(), and each run points that project at its relay and
// starts the daemon on it in place. A restart with nothing new to receive adds no record.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SqliteIndex } from "../adapters/sqlite-index/index.js";
import { fillStore, writeBenchProject, type BenchProject, type FillReport } from "./bench-project.js";
import { benchKeys, CACHE_DIR, readDataset, type BenchKeys, type Shape } from "./workload.js";

// What decides the bytes of a filled store: the compiled log, index and domain code.
const STORE_CODE = ["src", "adapters/fs-log", "adapters/sqlite-index"];
// Raise when fillStore (bench-project.ts) changes what it writes.
const FILL_VERSION = 1;
const DIST = resolve(import.meta.dirname, "..");
// The sources beside dist/: tsc leaves the output of a deleted source behind, and counted, a
// stale file gave a checkout a fingerprint of its own (and the store was filled again for it).
const ROOT = resolve(DIST, "..");
const TEMPLATE_RELAY = "ws://template.invalid";

function codeFingerprint(): string {
  const hash = createHash("sha256").update(`fill v${FILL_VERSION}`);
  const add = (path: string) => {
    const full = join(DIST, path);
    if (!existsSync(full)) return;
    if (!full.endsWith(".js")) {
      for (const entry of readdirSync(full, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.isDirectory() || entry.name.endsWith(".js")) add(join(path, entry.name));
      }
      return;
    }
    if (!existsSync(join(ROOT, path.replace(/\.js$/, ".ts")))) return;
    hash.update(path).update(readFileSync(full));
  };
  STORE_CODE.forEach(add);
  return hash.digest("hex").slice(0, 12);
}

const prefixOf = (shape: Shape, keys: BenchKeys) => `store-${shape.name}-${keys.owner.pubkey.slice(0, 8)}-`;
const storeDir = (shape: Shape, keys: BenchKeys) => join(CACHE_DIR, `${prefixOf(shape, keys)}${codeFingerprint()}`);

/** True when the store for `shape` is filled and cached for the code as it is now. */
export const storeCached = (shape: Shape): boolean => existsSync(join(storeDir(shape, benchKeys()), "fill.json"));

/**
 * The cached bench project holding every event of `shape` (filled now if the code changed),
 * reading from `relay` with its high-water mark at the newest stored event.
 */
export async function cachedStoreProject(
  shape: Shape, keys: BenchKeys, relay: string, progress: (msg: string) => void,
): Promise<{ project: BenchProject; fill: FillReport }> {
  const dir = storeDir(shape, keys);
  const report = join(dir, "fill.json");
  if (!existsSync(report)) {
    // Stores for older code are gigabytes each: only the current one is kept.
    for (const old of readdirSync(CACHE_DIR).filter((n) => n.startsWith(prefixOf(shape, keys)))) rmSync(join(CACHE_DIR, old), { recursive: true, force: true });
    progress(`storing ${shape.conversations * shape.perConversation} events through the log and the index (once per code version; kept in ${CACHE_DIR})`);
    const partial = `${dir}.partial`;
    mkdirSync(join(partial, ".tenex"), { recursive: true });
    const fill = await fillStore(join(partial, ".tenex"), keys, readDataset(shape), TEMPLATE_RELAY);
    writeFileSync(join(partial, "fill.json"), JSON.stringify(fill));
    renameSync(partial, dir);
  }
  const fill = JSON.parse(readFileSync(report, "utf8")) as FillReport;
  const project = writeBenchProject(dir, keys, [relay]);
  const index = new SqliteIndex({ path: join(project.tenexDir, "index.sqlite") });
  try {
    index.setHighWater(relay, fill.newest);
  } finally {
    index.close();
  }
  return { project, fill };
}
