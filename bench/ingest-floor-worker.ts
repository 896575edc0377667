// The ingest floor host's threads (ingest-floor-host.ts): `verify` checks batches of events with
// bcrypto's native BIP-340 and answers their verdicts in order; `index` inserts batches of rows
// into the floor's SQLite file, one transaction a batch, the table of sqlite-limit.ts and one
// recipient row a message (the two rows an event the ingest ceiling counts).

import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";
import { loadNativeCheck } from "../adapters/verify/native-verify.js";
import type { NostrEvent } from "../src/types.js";
import { CREATE_TABLE, INSERT_ROW } from "./sqlite-limit.js";

/** One message of the index thread: [conversation, n, event id, author, created_at, preview, recipient]. */
export type FloorRow = [string, number, string, string, number, string, string];

const CREATE_RECIPIENTS = `CREATE TABLE recipients (event_id TEXT NOT NULL, pubkey TEXT NOT NULL, PRIMARY KEY (event_id, pubkey))`;
const INSERT_RECIPIENT = `INSERT INTO recipients (event_id, pubkey) VALUES (?, ?)`;

const port = parentPort!;
const { role, path } = workerData as { role: "verify" | "index"; path?: string };

if (role === "verify") {
  const native = loadNativeCheck();
  if (!("check" in native)) throw new Error(`the floor verifies natively: ${native.reason}`);
  const { check } = native;
  port.on("message", (batch: NostrEvent[] | "close") => {
    if (batch === "close") port.close();
    else port.postMessage(batch.map((ev) => check(ev) === "ok"));
  });
} else {
  const db = new Database(path!);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(CREATE_TABLE);
  db.exec(CREATE_RECIPIENTS);
  const insert = db.prepare(INSERT_ROW);
  const recipient = db.prepare(INSERT_RECIPIENT);
  const apply = db.transaction((rows: FloorRow[]) => {
    for (const [conv, n, id, author, createdAt, preview, to] of rows) {
      insert.run(conv, n, id, author, createdAt, preview);
      recipient.run(id, to);
    }
  });
  port.on("message", (rows: FloorRow[] | "close") => {
    if (rows === "close") {
      db.close();
      port.close();
      return;
    }
    apply(rows);
  });
}
