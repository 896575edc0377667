// `tenexd import <dir>`: migrates a TENEX `.tenex/conversations/` folder into the conversation log.
// The source is only read, never changed. Every event is decoded and verified (id and
// signature) before it goes in: a bad one is left out and reported, the rest of its
// conversation still imports. A file that does not parse is reported and skipped; nothing in
// the source stops the import except a source folder that is not there.
//
// A conversation already in the log is skipped ("already imported"), so running the import
// twice is harmless. Rebuilding the SQLite index from the new logs is the caller's job.

import { getEventHash } from "nostr-tools/pure";
import type { ConversationLog } from "../../src/ports.js";
import type { NostrEvent } from "../../src/types.js";
import { convertConversation } from "./convert.js";
import { TenexEventFormatError, decodeHistoryEntry } from "./ndk-event.js";
import { TenexFileFormatError, parseConversation } from "./parse-conversation.js";
import { METADATA_FILE, type MetadataIndex, type SourceFile, listSourceFiles, readJson, readMetadata } from "./source-files.js";

export interface ImportOptions {
  log: ConversationLog;
  /** Checks id and signature; may be async (a worker-pool verifier). */
  verify: (ev: NostrEvent) => boolean | Promise<boolean>;
  /** TENEX names agents by slug, tenexd by pubkey. */
  agentsBySlug: ReadonlyMap<string, string>;
  onProgress?: (p: ImportProgress) => void;
}

export interface ImportProgress {
  /** Files handled so far, of `total`. */
  done: number;
  total: number;
  /** The file just handled, relative to the source folder. */
  file: string;
  outcome: "imported" | "skipped";
}

export interface ImportReport {
  imported: { id: string; title: string; events: number; archived: boolean }[];
  /** `id` is the conversation id, or the file's name when that is not a valid id. */
  skipped: { id: string; file?: string; reason: string }[];
  /** `entry` is the 1-based position in TENEX's history; `eventId` is "" when none could be read. */
  badEvents: { conversationId: string; entry: number; eventId: string; reason: string }[];
  /** Items left out of conversations that were imported (unknown agents, phases, …). */
  warnings: { source: string; message: string }[];
}

interface Context {
  opts: ImportOptions;
  meta: MetadataIndex;
  /** Conversations in the log before this import started. */
  present: Set<string>;
  /** Conversation id → the file it was taken from in this run. */
  taken: Map<string, string>;
  report: ImportReport;
}

type Checked = { ev: NostrEvent } | { eventId: string; reason: string };

async function checkEvent(entry: unknown, verify: ImportOptions["verify"]): Promise<Checked> {
  let ev: NostrEvent;
  try {
    ev = decodeHistoryEntry(entry);
  } catch (err) {
    if (err instanceof TenexEventFormatError) return { eventId: err.eventId, reason: err.reason };
    throw err;
  }
  if (await verify(ev)) return { ev };
  // Hashed again only to say why: a wrong id means the stored event was altered, not forged.
  return { eventId: ev.id, reason: getEventHash(ev) !== ev.id ? "id does not match the event's hash" : "invalid signature" };
}

/** Why the file cannot be taken as is, or undefined when it can. */
function precheck(file: SourceFile, ctx: Context): string | undefined {
  if (file.id === undefined) return "file name is not a conversation id (expected <64 lowercase hex>.json)";
  const earlier = ctx.taken.get(file.id);
  if (earlier !== undefined) return `duplicate of ${earlier}`;
  if (ctx.present.has(file.id)) return "already imported";
  return undefined;
}

async function importFile(file: SourceFile, ctx: Context): Promise<string | undefined> {
  const { report, opts } = ctx;
  const refused = precheck(file, ctx);
  if (refused !== undefined) return refused;
  const id = file.id!;
  ctx.taken.set(id, file.rel);

  let parsed;
  try {
    parsed = parseConversation(await readJson(file.path));
  } catch (err) {
    if (err instanceof TenexFileFormatError) return err.reason;
    if (err instanceof SyntaxError) return `does not parse: ${err.message}`;
    return `cannot read: ${(err as Error).message}`;
  }
  const { conversation } = parsed;
  if (conversation.id !== id) return `holds conversation ${JSON.stringify(conversation.id.slice(0, 80))}, not the one its name says`;

  const checked = await Promise.all(conversation.history.map((entry) => checkEvent(entry, opts.verify)));
  checked.forEach((c, i) => {
    if (!("ev" in c)) report.badEvents.push({ conversationId: id, entry: i + 1, eventId: c.eventId, reason: c.reason });
  });
  const metaEntry = ctx.meta.entries.get(id);
  const archived = file.archived || metaEntry?.archived === true;
  const converted = convertConversation({
    conversation, archived, agentsBySlug: opts.agentsBySlug,
    history: checked.map((c) => ("ev" in c ? c.ev : undefined)),
  });
  for (const message of [...parsed.warnings, ...converted.warnings]) report.warnings.push({ source: id, message });
  if (converted.events === 0) return "no valid event";

  try {
    await opts.log.append(id, converted.records);
    if (archived) await opts.log.setArchived(id, true);
  } catch (err) {
    return `could not write to the log: ${(err as Error).message}`;
  }
  report.imported.push({ id, title: conversation.title || metaEntry?.title || "", events: converted.events, archived });
  return undefined;
}

/** Imports every conversation of a TENEX conversations folder (the one holding metadata.json). */
export async function importTenexFolder(srcDir: string, opts: ImportOptions): Promise<ImportReport> {
  const files = await listSourceFiles(srcDir);
  const meta = await readMetadata(srcDir);
  const report: ImportReport = { imported: [], skipped: [], badEvents: [], warnings: [] };
  for (const message of meta.problems) report.warnings.push({ source: METADATA_FILE, message });
  const present = new Set((await opts.log.list()).map((c) => c.id));
  const ctx: Context = { opts, meta, present, taken: new Map(), report };

  for (const [i, file] of files.entries()) {
    const reason = await importFile(file, ctx);
    if (reason !== undefined) report.skipped.push({ id: file.id ?? file.stem, file: file.rel, reason });
    opts.onProgress?.({ done: i + 1, total: files.length, file: file.rel, outcome: reason === undefined ? "imported" : "skipped" });
  }
  for (const id of meta.entries.keys()) {
    if (!ctx.taken.has(id) && !present.has(id)) report.skipped.push({ id, reason: `listed in ${METADATA_FILE} but has no file` });
  }
  return report;
}
