// `tenexd import <dir>`: migrates a TENEX `.tenex/conversations/` folder into the conversation log.
// The source is only read, never changed. Every event is decoded and verified (id and
// signature) before it goes in: a bad one is left out and reported, the rest of its
// conversation still imports. A file that does not parse is reported and skipped; nothing in
// the source stops the import except a source folder that is not there or holds no TENEX data.
//
// A conversation already in the log is topped up: what TENEX holds and the log does not (new
// events, turns, completions, transitions, cursors…; src/merge-records.ts decides by each
// record's identity) is appended, so importing again after TENEX went on, or after a damaged
// file was repaired, brings exactly what is new, and importing the same folder twice adds
// nothing. Events the log already holds are not verified again.

import { getEventHash } from "nostr-tools/pure";
import { stamp } from "../../src/conversation.js";
import { applyRecords, emptyConversation, replay } from "../../src/conversation-reducer.js";
import type { Conversation } from "../../src/conversation-state.js";
import { mergeRecords } from "../../src/merge-records.js";
import type { ConversationLog } from "../../src/ports.js";
import type { LogRecord, RecordType } from "../../src/records.js";
import type { NostrEvent } from "../../src/types.js";
import { convertConversation } from "./convert.js";
import { noCompletions, type CompletionCounts } from "./convert-turns.js";
import { TenexEventFormatError, decodeHistoryEntry } from "./ndk-event.js";
import { TenexFileFormatError, parseConversation, type ParsedConversation } from "./parse-conversation.js";
import { METADATA_FILE, type MetadataIndex, type SourceFile, listSourceFiles, readJson, readMetadata } from "./source-files.js";

export interface ImportOptions {
  log: ConversationLog;
  /** Checks id and signature; may be async (a worker-pool verifier). */
  verify: (ev: NostrEvent) => boolean | Promise<boolean>;
  /** TENEX names agents by slug, tenexd by pubkey. */
  agentsBySlug: ReadonlyMap<string, string>;
  /** The project's orchestrator (TENEX kept no cursor for it). */
  orchestrator: string;
  /** Work out and report everything, write nothing. */
  dryRun?: boolean;
  onProgress?: (p: ImportProgress) => void;
  /** After records were appended to a conversation: its state with them applied (to index them). */
  onAppended?: (conversation: Conversation, records: readonly LogRecord[]) => void;
}

export type ImportOutcome = "imported" | "topped up" | "unchanged" | "skipped";

export interface ImportProgress {
  /** Files handled so far, of `total`. */
  done: number;
  total: number;
  /** The file just handled, relative to the source folder. */
  file: string;
  outcome: ImportOutcome;
}

/** Records added, by type (`event`, `completion`, `cursor`, …). */
export type AddedRecords = Partial<Record<RecordType, number>>;

export interface ImportReport {
  /** Conversations new to this log. */
  imported: { id: string; title: string; events: number; archived: boolean }[];
  /** Conversations already here that TENEX holds more of: what was added. */
  toppedUp: { id: string; title: string; added: AddedRecords }[];
  /** Conversations already here with nothing new. */
  unchanged: string[];
  /** `id` is the conversation id, or the file's name when that is not a valid id. */
  skipped: { id: string; file?: string; reason: string }[];
  /** `entry` is the 1-based position in TENEX's history; `eventId` is "" when none could be read. */
  badEvents: { conversationId: string; entry: number; eventId: string; reason: string }[];
  /** Items left out of conversations that were imported (unknown agents, phases, …). */
  warnings: { source: string; message: string }[];
  /** How TENEX's completions were linked to their events, over every conversation read. */
  completions: CompletionCounts;
  /** Turns TENEX's orchestrator routed to END (see convert-turns.ts): they open no turn. */
  endTurns: number;
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

async function checkEvent(entry: unknown, known: Conversation, verify: ImportOptions["verify"]): Promise<Checked> {
  let ev: NostrEvent;
  try {
    ev = decodeHistoryEntry(entry);
  } catch (err) {
    if (err instanceof TenexEventFormatError) return { eventId: err.eventId, reason: err.reason };
    throw err;
  }
  // Verified when it came in: the log's copy is the one that counts.
  const stored = known.eventsById.get(ev.id);
  if (stored) return { ev: stored.ev };
  if (await verify(ev)) return { ev };
  // Hashed again only to say why: a wrong id means the stored event was altered, not forged.
  return { eventId: ev.id, reason: getEventHash(ev) !== ev.id ? "id does not match the event's hash" : "invalid signature" };
}

/** Why the file cannot be taken as is, or undefined when it can. */
function precheck(file: SourceFile, ctx: Context): string | undefined {
  if (file.id === undefined) return "file name is not a conversation id (expected <64 lowercase hex>.json)";
  const earlier = ctx.taken.get(file.id);
  if (earlier !== undefined) return `duplicate of ${earlier}`;
  return undefined;
}

/** The conversation in a file, or why it cannot be read as one. */
export async function readConversationFile(file: SourceFile): Promise<{ parsed: ReturnType<typeof parseConversation> } | { reason: string }> {
  let parsed;
  try {
    parsed = parseConversation(await readJson(file.path));
  } catch (err) {
    if (err instanceof TenexFileFormatError) return { reason: err.reason };
    if (err instanceof SyntaxError) return { reason: `does not parse: ${err.message}` };
    return { reason: `cannot read: ${(err as Error).message}` };
  }
  if (parsed.conversation.id !== file.id) {
    return { reason: `holds conversation ${JSON.stringify(parsed.conversation.id.slice(0, 80))}, not the one its name says` };
  }
  return { parsed };
}

const countTypes = (records: readonly LogRecord[]): AddedRecords => {
  const out: AddedRecords = {};
  for (const r of records) out[r.t] = (out[r.t] ?? 0) + 1;
  return out;
};

async function importFile(file: SourceFile, ctx: Context): Promise<{ outcome: ImportOutcome; reason?: string }> {
  const { report, opts } = ctx;
  const refused = precheck(file, ctx);
  if (refused !== undefined) return { outcome: "skipped", reason: refused };
  const id = file.id!;
  ctx.taken.set(id, file.rel);
  const read = await readConversationFile(file);
  if ("reason" in read) return { outcome: "skipped", reason: read.reason };
  const { conversation } = read.parsed;

  const present = ctx.present.has(id);
  const conv = present ? replay(id, await opts.log.read(id)) : emptyConversation(id);
  const checked = await Promise.all(conversation.history.map((entry) => checkEvent(entry, conv, opts.verify)));
  checked.forEach((c, i) => {
    if (!("ev" in c)) report.badEvents.push({ conversationId: id, entry: i + 1, eventId: c.eventId, reason: c.reason });
  });
  const metaEntry = ctx.meta.entries.get(id);
  const archived = file.archived || metaEntry?.archived === true;
  const conversion = convertConversation({
    conversation, archived, agentsBySlug: opts.agentsBySlug, orchestrator: opts.orchestrator,
    history: checked.map((c) => ("ev" in c ? c.ev : undefined)),
  });
  for (const message of [...read.parsed.warnings, ...conversion.warnings]) report.warnings.push({ source: id, message });
  for (const k of ["linked", "merged", "unlinked"] as const) report.completions[k] += conversion.completions[k];
  report.endTurns += conversion.tally.ends;
  if (!present && conversion.events === 0) return { outcome: "skipped", reason: "no valid event" };

  const records = stamp(conv, mergeRecords(conv, conversion.source));
  if (records.length === 0) {
    report.unchanged.push(id);
    return { outcome: "unchanged" };
  }
  if (!opts.dryRun) {
    try {
      await opts.log.append(id, records);
      if (records.some((r) => r.t === "archive")) await opts.log.setArchived(id, true);
    } catch (err) {
      return { outcome: "skipped", reason: `could not write to the log: ${(err as Error).message}` };
    }
    applyRecords(conv, records);
    opts.onAppended?.(conv, records);
  }
  const title = conversation.title || metaEntry?.title || "";
  if (present) {
    report.toppedUp.push({ id, title, added: countTypes(records) });
    return { outcome: "topped up" };
  }
  report.imported.push({ id, title, events: conversion.events, archived });
  return { outcome: "imported" };
}

export const emptyReport = (): ImportReport => ({
  imported: [], toppedUp: [], unchanged: [], skipped: [], badEvents: [], warnings: [], completions: noCompletions(), endTurns: 0,
});

/** Imports every conversation of a TENEX conversations folder (the one holding metadata.json). */
export async function importTenexFolder(srcDir: string, opts: ImportOptions): Promise<ImportReport> {
  const files = await listSourceFiles(srcDir);
  const meta = await readMetadata(srcDir);
  const report = emptyReport();
  for (const message of meta.problems) report.warnings.push({ source: METADATA_FILE, message });
  const present = new Set((await opts.log.list()).map((c) => c.id));
  const ctx: Context = { opts, meta, present, taken: new Map(), report };

  for (const [i, file] of files.entries()) {
    const { outcome, reason } = await importFile(file, ctx);
    if (reason !== undefined) report.skipped.push({ id: file.id ?? file.stem, file: file.rel, reason });
    opts.onProgress?.({ done: i + 1, total: files.length, file: file.rel, outcome });
  }
  for (const id of meta.entries.keys()) {
    if (!ctx.taken.has(id) && !present.has(id)) report.skipped.push({ id, reason: `listed in ${METADATA_FILE} but has no file` });
  }
  return report;
}

/** Every conversation file that parses, with its events decoded (not verified): for a survey. */
export async function* readTenexFolder(srcDir: string): AsyncGenerator<{ conversation: ParsedConversation; events: NostrEvent[] }> {
  for (const file of await listSourceFiles(srcDir)) {
    if (file.id === undefined) continue;
    const read = await readConversationFile(file);
    if ("reason" in read) continue;
    const events: NostrEvent[] = [];
    for (const entry of read.parsed.conversation.history) {
      try {
        events.push(decodeHistoryEntry(entry));
      } catch (err) {
        if (!(err instanceof TenexEventFormatError)) throw err;
      }
    }
    yield { conversation: read.parsed.conversation, events };
  }
}
