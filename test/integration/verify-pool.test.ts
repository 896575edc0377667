// The verifier pool on real worker threads and real signatures: verdicts are exact and in order,
// a killed worker is replaced without losing its batch, a worker is never ended inside its load, and
// nothing ever hangs.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { initNostrWasm } from "nostr-wasm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VerifierClosedError, VerifierError, VerifierUnavailableError, VerifyFailedError } from "../../adapters/verify/errors.js";
import { VerifiedEventJson } from "../../adapters/verify/event-json.js";
import { chooseVerifier } from "../../adapters/verify/verifier-choice.js";
import { poolWorkers, VerifierPool } from "../../adapters/verify/verifier-pool.js";
import { wasmCheck, wasmVerify } from "../../adapters/verify/wasm-verify.js";
import { readEnvelope } from "../../src/edge/envelope.js";
import type { NostrEvent } from "../../src/types.js";
import { filler, newKey, sign, testProject } from "../helpers/events.js";

const TOTAL = 2000;
const DIST = (module: string) => pathToFileURL(join(import.meta.dirname, "../../dist", module)).href;
const project = testProject();

// 2,000 real events. Most are signed with nostr-wasm (signing 2,000 in pure JS takes ~10 s
// here); every 40th with nostr-tools' pure JS (test/helpers), so the pool is also checked
// against a second implementation.
async function signedEvents(): Promise<NostrEvent[]> {
  const nw = await initNostrWasm();
  const keys = Array.from({ length: 10 }, () => nw.generateSecretKey());
  const root = project.root(project.owner, "the root");
  return Array.from({ length: TOTAL }, (_, i) => {
    if (i % 40 === 0) return project.reply(project.agents.coder!, root, filler(i));
    const ev = { kind: 1111, created_at: 1_700_000_000 + i, content: filler(i), tags: [["E", root.id], ["a", project.coordinate]] };
    nw.finalizeEvent(ev as NostrEvent, keys[i % keys.length]!);
    return ev as NostrEvent;
  });
}

const flipSigByte = (ev: NostrEvent): NostrEvent => {
  const b = (parseInt(ev.sig.slice(0, 2), 16) ^ 0x80).toString(16).padStart(2, "0");
  return { ...ev, sig: b + ev.sig.slice(2) };
};

let events: NostrEvent[] = [];
/** Index → what was done to it: half get an edited content (bad id), half a flipped sig byte. */
const corrupted = new Map<number, "bad_id" | "bad_signature">();

beforeAll(async () => {
  events = await signedEvents();
  // 100 indices spread over the whole range: a stride coprime with 2,000 never repeats one.
  for (let k = 0; k < 100; k++) {
    const i = (k * 259 + 11) % TOTAL;
    corrupted.set(i, k % 2 === 0 ? "bad_id" : "bad_signature");
    events[i] = k % 2 === 0 ? { ...events[i]!, content: `${events[i]!.content}!` } : flipSigByte(events[i]!);
  }
  expect(corrupted.size).toBe(100);
});

// Pools closed at random moments of their workers' start (between 0.3 and 1 times the time a pool
// takes to answer its first event here), for `budgetMs`. While the pool terminated its workers,
// 2 of 6 such runs of 6 s aborted on bcrypto's assertion (exit 134).
const stormScript = (poolModule: string, budgetMs: number) => `
  import { VerifierPool } from ${JSON.stringify(poolModule)};
  const busy = (ms) => { const t = performance.now(); while (performance.now() - t < ms) {} };
  const anyEvent = { id: "0".repeat(64), pubkey: "0".repeat(64), sig: "0".repeat(128), kind: 1, tags: [], content: "", created_at: 0 };
  const probe = new VerifierPool({ workers: 2, backend: "bcrypto-native" });
  const t = performance.now();
  await probe.check(anyEvent);
  const load = performance.now() - t;
  await probe.close();
  let pools = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ${budgetMs}) {
    const pool = new VerifierPool({ workers: 2, backend: "bcrypto-native" });
    busy(load * (0.3 + 0.7 * Math.random()));
    await pool.close();
    pools++;
  }
  console.log("closed " + pools + " pools");
`;

/** The event as the edge hands it on (its seven fields in the envelope's order). */
function edgeCopy(ev: NostrEvent): NostrEvent {
  const env = readEnvelope(ev);
  if (!env.ok) throw new Error(env.detail);
  return env.event;
}

const falseIndices = (verdicts: boolean[]) => verdicts.flatMap((ok, i) => (ok ? [] : [i]));
const expectedFalse = () => [...corrupted.keys()].sort((a, b) => a - b);

describe("VerifierPool", () => {
  const pools: VerifierPool[] = [];
  const open = (...args: ConstructorParameters<typeof VerifierPool>) => {
    const p = new VerifierPool(...args);
    pools.push(p);
    return p;
  };
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it("finds exactly the 100 corrupted events among 2,000, in order, with the right verdict", async () => {
    const pool = open({ workers: 2 });
    const ok = await pool.verifyBatch(events);
    expect(ok).toHaveLength(TOTAL);
    expect(falseIndices(ok)).toEqual(expectedFalse());
    const bad = [...corrupted.keys()];
    expect(await pool.checkBatch(bad.map((i) => events[i]!))).toEqual(bad.map((i) => corrupted.get(i)));
    expect(pool.stats()).toMatchObject({ workers: 2, crashes: 0, inflight: 0, queued: 0 });
  });

  it("with eventJson, hands over the JSON of exactly the events it passes, each JSON.stringify's text", async () => {
    const table = new VerifiedEventJson();
    const pool = open({ workers: 2, backend: "bcrypto-native", eventJson: table });
    // Half as the edge makes them (its key order: the worker writes their JSON from the id's
    // serialization), half as signed; single checks too, which go by the pool's micro-batches.
    const edged = events.map((ev, i) => (i % 2 === 0 ? edgeCopy(ev) : ev));
    const verdicts = [...await pool.checkBatch(edged.slice(0, 1500)), ...await Promise.all(edged.slice(1500).map((ev) => pool.check(ev)))];
    expect(falseIndices(verdicts.map((v) => v === "ok"))).toEqual(expectedFalse());
    edged.forEach((ev, i) => {
      const json = table.take(ev);
      if (corrupted.has(i)) expect(json).toBeUndefined();
      else expect(Buffer.from(json!).toString()).toBe(JSON.stringify(ev));
    });
    // With nostr-wasm the workers' checks are the cap: no JSON is made there.
    const wasm = new VerifiedEventJson();
    const wasmPool = open({ workers: 1, backend: "nostr-wasm", eventJson: wasm });
    expect(await wasmPool.checkBatch(edged.slice(1, 3))).toEqual(["ok", "ok"]);
    expect(wasm.take(edged[1]!)).toBeUndefined();
  });

  it("runs the verifier the daemon would choose when none is given, not the fallback", async () => {
    // The in-process ingest benchmark built its pool without a backend and measured nostr-wasm
    // (~2,000 ev/s against ~5,000) while its notes and ceiling assumed the native verifier.
    expect(chooseVerifier().backend).toBe("bcrypto-native");
    const pool = open({ workers: 1 });
    expect(pool.backend).toBe("bcrypto-native");
    expect(open({ workers: 1, backend: "nostr-wasm" }).backend).toBe("nostr-wasm");
    expect(await pool.verifyBatch(events.slice(0, 50))).toEqual(events.slice(0, 50).map((_, i) => !corrupted.has(i)));
  });

  it("leaves the main thread a core with the native verifier, and takes every core with nostr-wasm", async () => {
    expect(poolWorkers("bcrypto-native", 2)).toBe(1);
    expect(poolWorkers("bcrypto-native", 16)).toBe(15);
    expect(poolWorkers("bcrypto-native", 1)).toBe(1);
    expect(poolWorkers("nostr-wasm", 2)).toBe(2);
    expect(poolWorkers("nostr-wasm", 1)).toBe(1);
    // The default is that size on this machine, and a pool of one worker answers like any other.
    const pool = open({ backend: "bcrypto-native" });
    expect(await pool.verifyBatch(events.slice(0, 50))).toEqual(events.slice(0, 50).map((_, i) => !corrupted.has(i)));
    expect(pool.stats().workers).toBe(poolWorkers("bcrypto-native"));
    expect(open({ backend: "nostr-wasm" }).stats().workers).toBe(availableParallelism());
  });

  it("micro-batches single verify() calls and answers each one", async () => {
    const pool = open({ workers: 2, maxBatch: 64 });
    const some = events.slice(0, 400);
    const ok = await Promise.all(some.map((ev) => pool.verify(ev)));
    expect(falseIndices(ok)).toEqual(expectedFalse().filter((i) => i < 400));
    // One straggler alone still gets its answer (the 1 ms linger, not a full batch).
    expect(await pool.verify(events[1]!)).toBe(true);
  });

  it("says when it falls idle: once every check and batch asked is answered, not before", async () => {
    let idle = 0;
    const pool = open({ workers: 2, maxBatch: 64, onIdle: () => void idle++ });
    const singles = Promise.all(events.slice(0, 300).map((ev) => pool.check(ev)));
    const batch = pool.checkBatch(events.slice(300, 600));
    expect(pool.busy).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(idle).toBe(0);
    await Promise.all([singles, batch]);
    expect(pool.busy).toBe(false);
    expect(idle).toBeGreaterThanOrEqual(1);
    const before = idle;
    await pool.checkBatch(events.slice(0, 10));
    expect(idle).toBe(before + 1);
  });

  // A worker is killed here by a poison input: an event that is not an object makes the worker's
  // check throw outside its guard, and the thread dies at once (the edge never lets one through;
  // here it stands for any input that kills the verifier). Terminating a worker from outside
  // would stand for nothing real, and can abort the process (see the close tests below).
  const poison = null as unknown as NostrEvent;

  it("replaces a dead worker and retries the batches it held on the others", async () => {
    const pool = open({ workers: 2 });
    // The poison is first in line on one worker; the big batch's parts queue behind it on both.
    const poisoned = pool.checkBatch([poison]).catch((err: unknown) => err);
    const some = events.slice(0, 1000);
    const pending = pool.verifyBatch(some);
    expect(pool.stats().inflight).toBe(some.length + 1);
    const ok = await pending;
    expect(falseIndices(ok)).toEqual(expectedFalse().filter((i) => i < 1000));
    // The poison had one retry, which killed a second worker: it fails, and nothing else did.
    expect(await poisoned).toBeInstanceOf(VerifyFailedError);
    expect(pool.stats()).toMatchObject({ workers: 2, crashes: 2, inflight: 0 });
    // The replacements do real work.
    expect(falseIndices(await pool.verifyBatch(events.slice(0, 100)))).toEqual(expectedFalse().filter((i) => i < 100));
  });

  it("fails, never hangs, when a poison input kills every worker it reaches, and gives the slot up", async () => {
    const pool = open({ workers: 1 });
    // First try and one retry, on the slot's first worker and its replacement.
    await expect(pool.verify(poison)).rejects.toBeInstanceOf(VerifyFailedError);
    expect(pool.stats()).toMatchObject({ workers: 1, crashes: 2 });
    // A third death in a row: the slot is given up, and what it held has nowhere to go.
    await expect(pool.verifyBatch([poison])).rejects.toBeInstanceOf(VerifierError);
    expect(pool.stats()).toMatchObject({ workers: 0, crashes: 3 });
    await expect(pool.verify(events[1]!)).rejects.toBeInstanceOf(VerifierUnavailableError);
  });

  it("closed at once, its workers still finish loading and end themselves (exit 0, not terminated)", async () => {
    // bcrypto's native code asserts that each N-API call succeeds; a worker terminated inside it
    // (its load, a check) aborts the whole process. CI lost a test file that way.
    const ready: number[] = [];
    const exits: number[] = [];
    const pool = new VerifierPool({
      workers: 2,
      backend: "bcrypto-native",
      onWorkerReady: (worker, slot) => {
        ready.push(slot);
        worker.once("exit", (code) => exits.push(code));
      },
    });
    await pool.close();
    expect(ready.sort()).toEqual([0, 1]);
    // terminate() gives exit code 1; a worker that closed its port ends with 0.
    expect(exits).toEqual([0, 0]);
  });

  it("a process that closes pools at every moment of their start ends cleanly (no abort)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-pool-storm-"));
    const file = join(dir, "storm.mjs");
    writeFileSync(file, stormScript(DIST("adapters/verify/verifier-pool.js"), 5_000));
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
    rmSync(dir, { recursive: true, force: true });
    expect(run.stderr).toBe("");
    expect(run.signal).toBe(null);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^closed \d+ pools/);
  });

  it("close() is idempotent, rejects what is waiting and refuses new work", async () => {
    const pool = open({ workers: 1 });
    const waiting = pool.verifyBatch(events.slice(0, 500));
    const first = pool.close();
    expect(pool.close()).toBe(first);
    await expect(waiting).rejects.toBeInstanceOf(VerifierClosedError);
    await first;
    await expect(pool.verify(events[1]!)).rejects.toBeInstanceOf(VerifierClosedError);
  });
});

describe("wasmVerify (in-process)", () => {
  it("agrees with the pool and refuses hex that nostr-wasm would parse leniently", () => {
    const good = events[1]!;
    expect(wasmVerify(good)).toBe(true);
    expect(wasmVerify({ ...good, id: good.id.toUpperCase() })).toBe(false);
    expect(wasmVerify({ ...good, pubkey: good.pubkey.toUpperCase() })).toBe(false);
    expect(wasmCheck(events[[...corrupted.keys()][0]!]!)).toBe("bad_id");
  });

  it("verifies events too big for the wasm heap through the pure-JS path", () => {
    const big = sign(newKey(), 1111, filler(0, 1_200_000));
    expect(wasmCheck(big)).toBe("ok");
    expect(wasmCheck({ ...big, content: `${big.content}.` })).toBe("bad_id");
    expect(wasmCheck(flipSigByte(big))).toBe("bad_signature");
  });
});
