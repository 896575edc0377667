// The floor of the whole job (bench/ingest-floor-host.ts --job), beside which the bench prices
// tenexd's live ingest: it must store and index what tenexd's own route does with the same events,
// or the floor would be cheaper than the job and the ratio would flatter the daemon. The floor
// host runs as the bench runs it (a child process fed by the load generator); tenexd's route over
// a real log and index takes the same events, as the daemon would (its recipients, a relay's slices).

import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { OnDemandVerifier } from "../../adapters/verify/on-demand-verifier.js";
import { startReplayRelay } from "../../bench/replay-relay.js";
import { conversationEvents } from "../../bench/workload-signer.js";
import { benchCoordinate, benchKeys, benchProjectInfo, inArrivalOrder, type Shape } from "../../bench/workload.js";
import type { NostrEvent } from "../../src/types.js";
import { finalizeEvent } from "nostr-tools/pure";
import { projectRecipients } from "../../src/messaging/recipients.js";
import { eventually } from "../helpers/daemon.js";
import { inSlices, openRoute } from "../helpers/route-fixture.js";
import { tempDir } from "../helpers/temp-dir.js";

const HOST = join(import.meta.dirname, "../../dist/bench/ingest-floor-host.js");
const SHAPE: Shape = { name: "floor-job-test", conversations: 6, perConversation: 15, firstCreatedAt: 1_750_300_000 };
const EVENTS = SHAPE.conversations * SHAPE.perConversation;

// What both indexes hold whatever order a conversation's events were folded in (the floor's two
// verifiers answer out of order; who answered whom, awaiting_reply and the response histogram,
// depends on that order).
const COUNTS = [
  "messages", "recipients", "participants", "unread_counts", "message_words", "conversations",
  "volume_hourly", "author_counts", "unread_by_rank", "log_ends",
] as const;

function counts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const out: Record<string, number> = {};
    for (const t of COUNTS) out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
    out.unread = (db.prepare(`SELECT SUM(unread) AS n FROM unread_totals`).get() as { n: number }).n;
    out.messageCounts = (db.prepare(`SELECT SUM(message_count) AS n FROM conversations`).get() as { n: number }).n;
    return out;
  } finally {
    db.close();
  }
}

const stopped: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stopped.splice(0)) await stop();
});

describe("the bench's floor of the whole job (ingest-floor-host.ts --job)", () => {
  it("stores every event in its conversation's file and indexes it as tenexd's route does", async () => {
    // The bench's own shape of conversation (bench/workload-signer.ts), signed here: few enough.
    const keys = benchKeys();
    const task = { shape: SHAPE, keys, coordinate: benchCoordinate(keys), from: 0, to: SHAPE.conversations };
    const sign = (ev: Omit<NostrEvent, "id" | "pubkey" | "sig">, sk: string) => finalizeEvent(ev, Buffer.from(sk, "hex")) as NostrEvent;
    const events = inArrivalOrder(Array.from({ length: SHAPE.conversations }, (_, c) => conversationEvents(task, c, sign)));
    const info = benchProjectInfo(keys);

    // The floor host, fed down a live subscription as the bench feeds it.
    const relay = await startReplayRelay(events);
    stopped.push(() => relay.close());
    const floorDir = tempDir("tenexd-floor-job-");
    const host = spawn(process.execPath, [HOST, relay.url, floorDir, "--job"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    host.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((r) => host.once("exit", (code) => r(code)));
    // Should the test stop early, the host must not outlive it.
    stopped.push(async () => {
      if (host.exitCode === null && host.signalCode === null) host.kill("SIGKILL");
    });
    const floorIndex = join(floorDir, "index.sqlite");
    const indexed = () => {
      try {
        return counts(floorIndex).messages ?? 0;
      } catch {
        return 0;
      }
    };
    await eventually(() => (indexed() >= EVENTS ? true : undefined), 30_000, `the floor host to index ${EVENTS} messages`).catch((e: Error) => {
      throw new Error(`${e.message} (its stderr: ${stderr})`);
    });
    host.kill("SIGTERM");
    expect(await exited).toBe(0);

    // tenexd's route over a real log and index, the same events in the same order.
    const verifier = new OnDemandVerifier();
    const d = await openRoute(tempDir("tenexd-floor-ref-"), info, { verifier, recipientsOf: projectRecipients(info) });
    try {
      const route = inSlices(d.route);
      const outcomes = await Promise.all(events.map((ev) => route.ingest(ev)));
      expect(outcomes.filter((o) => o.status !== "accepted")).toEqual([]);
      await d.queues.idle();
      await d.store.indexed();
      const reference = counts(join(d.index.path));
      expect(reference.messages).toBe(EVENTS);
      expect(counts(floorIndex)).toEqual(reference);
    } finally {
      await d.close();
      await verifier.close();
    }

    // Each conversation's file holds its events, and the index knows its size.
    const files = readdirSync(floorDir).filter((f) => f.endsWith(".jsonl"));
    expect(files).toHaveLength(SHAPE.conversations);
    const db = new Database(floorIndex, { readonly: true });
    try {
      const ends = new Map((db.prepare(`SELECT conversation_id AS id, bytes FROM log_ends`).all() as { id: string; bytes: number }[]).map((r) => [r.id, r.bytes]));
      for (const f of files) expect(ends.get(f.slice(0, -".jsonl".length))).toBe(statSync(join(floorDir, f)).size);
    } finally {
      db.close();
    }
  }, 60_000);
});
