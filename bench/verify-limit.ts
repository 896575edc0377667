// How fast events can be verified (id hash + Schnorr signature): the machine limit behind every
// ingest figure. Real signed events shaped like NIP-22 replies with ~0.8 KB of content.
//   verify_limit_evps        the verifier the daemon chooses (bcrypto native, else nostr-wasm), one core
//   verify_wasm_evps         nostr-wasm, one core (the fallback)
//   verify_pool_evps         VerifierPool.verifyBatch on all cores, with the chosen verifier
//   verify_pool_stream_evps  VerifierPool.verify one event at a time (micro-batched)
//   verify_js_evps           nostr-tools pure JS, one core (reference)

import { availableParallelism } from "node:os";
import { initNostrWasm } from "nostr-wasm";
import { verifyEvent as jsVerifyEvent } from "nostr-tools/pure";
import { VerifierPool } from "../adapters/verify/verifier-pool.js";
import { chooseVerifier, loadCheck } from "../adapters/verify/verifier-choice.js";
import { wasmVerify } from "../adapters/verify/wasm-verify.js";
import type { NostrEvent } from "../src/types.js";
import type { Figure } from "./figure.js";

const EVENTS = 3000;
const JS_EVENTS = 300;
// Best of several rounds: other load on the machine only ever slows a round down.
const ROUNDS = 3;
const CONTENT = "lorem ipsum dolor sit amet, consectetur adipiscing elit ".repeat(15).slice(0, 800);

async function workload(n: number): Promise<NostrEvent[]> {
  const nw = await initNostrWasm();
  const keys = Array.from({ length: 20 }, () => nw.generateSecretKey());
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  const root = hex(nw.generateSecretKey());
  const owner = hex(nw.getPublicKey(keys[0]!));
  return Array.from({ length: n }, (_, i) => {
    const ev = {
      kind: 1111, created_at: 1_700_000_000 + i, content: `${i} ${CONTENT}`,
      tags: [["E", root, "", owner], ["K", "11"], ["P", owner], ["e", root, "", owner], ["k", "11"], ["a", `31933:${owner}:bench`], ["phase", "chat"]],
    } as NostrEvent;
    nw.finalizeEvent(ev, keys[i % keys.length]!);
    return ev;
  });
}

const evps = (n: number, ms: number) => Math.round(n / (ms / 1000));

/** Events per second of `run` over `n` events, best of ROUNDS; every event must verify. */
async function rate(n: number, run: () => boolean[] | Promise<boolean[]>): Promise<number> {
  let best = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const ok = await run();
    best = Math.max(best, evps(n, performance.now() - t0));
    if (ok.length !== n || ok.some((v) => !v)) throw new Error("benchmark events failed verification");
  }
  return best;
}

export async function benchVerifyLimit(): Promise<Figure[]> {
  const events = await workload(EVENTS);
  const cores = availableParallelism();

  const choice = chooseVerifier();
  const chosen = await loadCheck(choice.backend);
  const single = await rate(events.length, () => events.map((ev) => chosen(ev) === "ok"));
  const wasm = await rate(events.length, () => events.map(wasmVerify));
  // Fresh plain copies each round: nostr-tools caches its verdict on the event object itself.
  const js = await rate(JS_EVENTS, () => events.slice(0, JS_EVENTS).map((ev) => jsVerifyEvent({ ...ev })));

  const pool = new VerifierPool({ workers: cores, backend: choice.backend });
  try {
    await pool.verifyBatch(events.slice(0, 500));
    const batch = await rate(events.length, () => pool.verifyBatch(events));
    const stream = await rate(events.length, () => Promise.all(events.map((ev) => pool.verify(ev))));
    const note = `${cores} worker threads, ${choice.backend}`;
    return [
      { name: "verify_limit_evps", value: single, unit: "ev/s", note: `${choice.backend}${choice.fallback ? ` (fallback: ${choice.fallback})` : ""}, one core, ~0.8 KB content, best of ${ROUNDS} rounds of ${EVENTS}` },
      { name: "verify_wasm_evps", value: wasm, unit: "ev/s", note: "nostr-wasm (the fallback), one core, same events" },
      { name: "verify_pool_evps", value: batch, unit: "ev/s", goal: "≥ 5,000 (the 200×50 ingest goal verifies every event)", limit: single * cores, note },
      { name: "verify_pool_stream_evps", value: stream, unit: "ev/s", limit: single * cores, note: `${note}, one verify() per event, micro-batched` },
      { name: "verify_js_evps", value: js, unit: "ev/s", note: "nostr-tools pure JS, one core (reference)" },
    ];
  } finally {
    await pool.close();
  }
}
