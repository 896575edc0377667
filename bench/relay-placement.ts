// Where the embedded relay runs (issue 13): in a process of its own (the default) or inside the
// daemon (`embeddedRelay.inProcess`). For each, on a fresh project with the embedded relay:
//   relay_ready_ms / relay_in_process_ready_ms            the daemon's ready time, median of starts
//   relay_ready_rss_mb / relay_in_process_ready_rss_mb    the daemon's VmRSS at ready (+ the relay process's, in the note)
//   relay_hostile_rss_mb / relay_in_process_hostile_rss_mb
//       the daemon's peak VmRSS while 100 clients on loopback send, for 8 s, frames at the relay's
//       limits, 1 MB frames and frames claiming 95 MB (bench/hostile-clients.ts); the relay process's in the note
//   relay_hostile_relay_rss_mb                             the relay process's peak in that attack

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finalizeEvent } from "nostr-tools/pure";
import { transportLimits } from "../src/relay-guard/transport-limits.js";
import { median, round } from "./bench-context.js";
import { writeBenchProject } from "./bench-project.js";
import { startDaemon, type DaemonChild } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { goalText } from "./goals.js";
import { flood, rssMb, textFrame } from "./hostile-clients.js";
import { benchCoordinate, benchKeys, type BenchKeys } from "./workload.js";

const STARTS = 5;
const CLIENTS = 100;
const ATTACK_MS = 8_000;
const MAX_EVENT_BYTES = 131_072;

interface Placement {
  readyMs: number[];
  readyRss: number[];
  relayReadyRss: number[];
  hostileRss: number;
  hostileRelayRss: number;
}

export async function benchRelayPlacement(progress: (msg: string) => void): Promise<Figure[]> {
  const keys = benchKeys();
  const own = await measure(keys, false, progress);
  const inside = await measure(keys, true, progress);
  const startsNote = (p: Placement) => `median of ${STARTS} starts (${p.readyMs.join(", ")} ms)`;
  return [
    { name: "relay_ready_ms", value: median(own.readyMs), unit: "ms", note: `relay in its own process: ${startsNote(own)}` },
    { name: "relay_in_process_ready_ms", value: median(inside.readyMs), unit: "ms", note: `relay inside the daemon: ${startsNote(inside)}` },
    {
      name: "relay_ready_rss_mb", value: round(median(own.readyRss), 1), unit: "MB",
      note: `the daemon's VmRSS at ready, relay in its own process (which held ${round(median(own.relayReadyRss), 1)} MB more)`,
    },
    { name: "relay_in_process_ready_rss_mb", value: round(median(inside.readyRss), 1), unit: "MB", note: "the daemon's VmRSS at ready, relay inside it" },
    {
      name: "relay_hostile_rss_mb", value: round(own.hostileRss, 1), unit: "MB", goal: goalText("relay_hostile_rss_mb"),
      note: `the daemon's peak VmRSS under ${CLIENTS} hostile clients for ${ATTACK_MS / 1000} s, relay in its own process`,
    },
    { name: "relay_hostile_relay_rss_mb", value: round(own.hostileRelayRss, 1), unit: "MB", note: "the relay process's peak VmRSS in the same attack" },
    {
      name: "relay_in_process_hostile_rss_mb", value: round(inside.hostileRss, 1), unit: "MB", goal: goalText("relay_hostile_rss_mb"),
      note: `the daemon's peak VmRSS under ${CLIENTS} hostile clients for ${ATTACK_MS / 1000} s, relay inside it`,
    },
  ];
}

async function measure(keys: BenchKeys, inProcess: boolean, progress: (msg: string) => void): Promise<Placement> {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-bench-relay-"));
  try {
    const project = writeBenchProject(dir, keys, []);
    const configFile = join(project.tenexDir, "config.json");
    const config = JSON.parse(readFileSync(configFile, "utf8"));
    config.embeddedRelay = { inProcess };
    config.limits = { maxEventBytes: MAX_EVENT_BYTES };
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    const p: Placement = { readyMs: [], readyRss: [], relayReadyRss: [], hostileRss: 0, hostileRelayRss: 0 };
    for (let i = 0; i < STARTS; i++) {
      const d = await startDaemon(dir);
      p.readyMs.push(d.ready.ms);
      p.readyRss.push(d.rssMb().rss);
      const relay = relayChildOf(d.pid);
      p.relayReadyRss.push(relay !== undefined ? (rssMb(relay) ?? 0) : 0);
      if (i < STARTS - 1) await d.stop();
      else {
        progress(`${inProcess ? "relay inside the daemon" : "relay in its own process"}: ${CLIENTS} hostile clients for ${ATTACK_MS / 1000} s`);
        await attack(d, keys, relay, p);
        await d.stop();
      }
    }
    return p;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function attack(d: DaemonChild, keys: BenchKeys, relay: number | undefined, p: Placement): Promise<void> {
  const url = (d.ready as unknown as { relays: string[] }).relays[0]!;
  const limits = transportLimits(MAX_EVENT_BYTES);
  const stranger = new Uint8Array(32).fill(7);
  const limitFrames = [limits.maxUnauthenticatedFrameBytes, limits.maxFrameBytes].map((size) => {
    const tags = [["a", benchCoordinate(keys)]];
    const probe = finalizeEvent({ kind: 11, created_at: Math.floor(Date.now() / 1000), tags, content: "" }, stranger);
    const content = "x".repeat(size - Buffer.byteLength(JSON.stringify(["EVENT", probe])));
    return textFrame(JSON.stringify(["EVENT", finalizeEvent({ kind: 11, created_at: probe.created_at, tags, content }, stranger)]));
  });
  const sampler = setInterval(() => {
    p.hostileRss = Math.max(p.hostileRss, rssMb(d.pid) ?? 0);
    if (relay !== undefined) p.hostileRelayRss = Math.max(p.hostileRelayRss, rssMb(relay) ?? 0);
  }, 100);
  try {
    await flood({ url, clients: CLIENTS, durationMs: ATTACK_MS, limitFrames, localAddresses: Array.from({ length: 50 }, (_, i) => `127.0.0.${i + 2}`) });
    await new Promise((r) => setTimeout(r, 2_000));
  } finally {
    clearInterval(sampler);
  }
}

/** The daemon's child process (the relay), from /proc: none when the relay runs inside it. */
function relayChildOf(pid: number): number | undefined {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const children = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
    if (children) return Number(children.split(" ")[0]);
  }
  return undefined;
}
