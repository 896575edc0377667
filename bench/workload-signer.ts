// Signing a workload shape on every core: worker threads (this same file) build and sign
// whole conversations with nostr-wasm and hand back one JSON line per conversation, which the
// main thread writes in order. ~2,000 events/s per core on this machine.

import { createWriteStream, mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { NostrEvent } from "../src/types.js";
import type { BenchKeys, Shape } from "./workload.js";

/** Where the previous shape's conversation stands: what the next reply refers to. */
export interface Tail {
  root: { id: string; pubkey: string };
  last: { id: string; pubkey: string; kind: number };
  count: number;
}

export interface SignTask {
  shape: Shape;
  keys: BenchKeys;
  coordinate: string;
  from: number;
  to: number;
  tails?: Tail[];
}

const filler = (shape: string, c: number, p: number) =>
  `${shape} conversation ${c} message ${p}: `.padEnd(800, "lorem ipsum dolor sit amet, consectetur adipiscing elit ");

/**
 * One conversation's events. Authors take turns (owner, orchestrator, planner, coder, reviewer,
 * shifted per conversation) and each message p-tags the next speaker: agents get mail, replies
 * from users address agents, as in a working project.
 */
export function conversationEvents(task: SignTask, c: number, sign: (ev: Omit<NostrEvent, "id" | "pubkey" | "sig">, sk: string) => NostrEvent) {
  const { shape, keys, coordinate } = task;
  const speakers = [keys.owner, ...keys.agents];
  const tail = task.tails?.[c];
  const events: NostrEvent[] = [];
  let root = tail?.root;
  let last = tail?.last;
  for (let j = 0; j < shape.perConversation; j++) {
    const p = (tail?.count ?? 0) + j;
    const createdAt = shape.firstCreatedAt + j * shape.conversations + c;
    const content = filler(shape.name, c, p);
    let ev: NostrEvent;
    if (!root || !last) {
      ev = sign({ kind: 11, created_at: createdAt, content, tags: [["a", coordinate], ["title", `bench ${shape.name} #${c}`], ["p", keys.agents[1]!.pubkey]] }, keys.owner.sk);
      root = { id: ev.id, pubkey: ev.pubkey };
    } else {
      const author = speakers[(p + c) % speakers.length]!;
      const next = speakers[(p + c + 1) % speakers.length]!;
      ev = sign({
        kind: 1111, created_at: createdAt, content,
        tags: [["E", root.id, "", root.pubkey], ["K", "11"], ["P", root.pubkey], ["e", last.id, "", last.pubkey], ["k", String(last.kind)],
          ["a", coordinate], ["p", next.pubkey]],
      }, author.sk);
    }
    last = { id: ev.id, pubkey: ev.pubkey, kind: ev.kind };
    events.push(ev);
  }
  return events;
}

async function runSigner(): Promise<void> {
  const { initNostrWasm } = await import("nostr-wasm");
  const nw = await initNostrWasm();
  const sign = (ev: Omit<NostrEvent, "id" | "pubkey" | "sig">, sk: string) => {
    const full = { ...ev, id: "", pubkey: "", sig: "" };
    nw.finalizeEvent(full, Buffer.from(sk, "hex"));
    return full;
  };
  parentPort!.on("message", (task: SignTask) => {
    const lines: string[] = [];
    for (let c = task.from; c < task.to; c++) lines.push(JSON.stringify(conversationEvents(task, c, sign)));
    parentPort!.postMessage(lines);
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === "bench-signer") void runSigner();

export interface SignJob {
  shape: Shape;
  keys: BenchKeys;
  coordinate: string;
  /** The file to write: `header`, then one line per conversation. */
  path: string;
  header: string;
  progress: (msg: string) => void;
  tails?: Tail[] | undefined;
}

export async function signShape(job: SignJob): Promise<void> {
  const { shape, keys, coordinate, path, progress, tails } = job;
  mkdirSync(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  out.write(`${job.header}\n`);
  const perTask = Math.max(1, Math.floor(2000 / shape.perConversation));
  const tasks: SignTask[] = [];
  for (let from = 0; from < shape.conversations; from += perTask) {
    const to = Math.min(shape.conversations, from + perTask);
    tasks.push({ shape, keys, coordinate, from, to, ...(tails ? { tails: sliceTails(tails, from, to) } : {}) });
  }
  const total = shape.conversations * shape.perConversation;
  const started = performance.now();
  let lastReport = started;
  let done = 0;
  const results = new Map<number, string[]>();
  let nextToWrite = 0;
  let nextTask = 0;
  const flush = async () => {
    while (results.has(nextToWrite)) {
      const lines = results.get(nextToWrite)!;
      results.delete(nextToWrite++);
      if (!out.write(`${lines.join("\n")}\n`)) await new Promise<void>((r) => out.once("drain", () => r()));
    }
  };
  const worker = async () => {
    const w = new Worker(new URL(import.meta.url), { workerData: { role: "bench-signer" } });
    try {
      while (nextTask < tasks.length) {
        const i = nextTask++;
        const lines = await new Promise<string[]>((resolve, reject) => {
          w.once("message", resolve);
          w.once("error", reject);
          w.postMessage(tasks[i]!);
        });
        w.removeAllListeners("error");
        results.set(i, lines);
        done += (tasks[i]!.to - tasks[i]!.from) * shape.perConversation;
        await flush();
        const now = performance.now();
        if (now - lastReport > 10_000) {
          lastReport = now;
          const rate = done / ((now - started) / 1000);
          progress(`signing ${shape.name}: ${done}/${total} events, ${Math.round(rate)} ev/s, ~${Math.round((total - done) / rate)} s left`);
        }
      }
    } finally {
      await w.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), tasks.length) }, worker));
  await flush();
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

// Tails are indexed by conversation number inside a task: give the task the whole prefix it needs.
function sliceTails(tails: Tail[], from: number, to: number): Tail[] {
  const slice: Tail[] = new Array<Tail>(to);
  for (let c = from; c < to; c++) slice[c] = tails[c]!;
  return slice;
}

