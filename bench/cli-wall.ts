// How long the Director waits for `tenexd status --json` and `tenexd conversations` against a
// running daemon (10,000 events in 200 conversations), from spawn to exit, beside the floor
// measured in the same rounds, all taking turns: a minimal Node client that reads the port and
// token and makes one GET (minimal-api-client.ts, the limit), and `node -e 0` (Node's start-up).
//   cli_status_wall_ms         median wall of `tenexd status --json`
//   cli_conversations_wall_ms  median wall of `tenexd conversations`
// When the environment sets NODE_EXTRA_CA_CERTS (this machine's does), Node 20 reads and parses
// that CA bundle at every start, before any of our code runs: `node -e 0` took ~35 ms without it
// and ~95-120 with it here. The same rounds are then also run without it (the `_no_extra_ca`
// figures), so the CLI's own cost is not hidden behind a variable most machines do not set.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, round, type BenchContext } from "./bench-context.js";
import { fillStore, writeBenchProject } from "./bench-project.js";
import { BIN, startDaemon } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { startReplayRelay } from "./replay-relay.js";
import { benchKeys, ensureDataset, readDataset, SHAPES } from "./workload.js";

const ROUNDS = 9;
const MINIMAL_CLIENT = join(import.meta.dirname, "minimal-api-client.js");

function wallMs(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 30_000, env });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const list = (xs: number[]) => xs.map((x) => Math.round(x)).join(", ");

/** The four commands' walls, round by round, in one environment. */
class Rounds {
  private readonly node: number[] = [];
  private readonly minimal: number[] = [];
  private readonly status: number[] = [];
  private readonly convs: number[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  run(project: { dir: string; tenexDir: string }): void {
    this.node.push(wallMs(["-e", "0"], this.env));
    this.minimal.push(wallMs([MINIMAL_CLIENT, project.tenexDir, "/api/v1/status"], this.env));
    this.status.push(wallMs([BIN, "status", "--json", "--project", project.dir], this.env));
    this.convs.push(wallMs([BIN, "conversations", "--project", project.dir], this.env));
  }

  figures(suffix: string, envNote: string): Figure[] {
    const floor = round(median(this.minimal), 1);
    const note = `against a running daemon with 10,000 events in 200 conversations, spawn to exit, ${envNote}; median of ${ROUNDS}, taking turns with a minimal Node client (bench/minimal-api-client.ts: reads the port and token, one GET of the status, prints it; limit: its median, ${floor} ms; ${list(this.minimal)}) and \`node -e 0\` (median ${round(median(this.node), 1)} ms; ${list(this.node)})`;
    return [
      { name: `cli_status_wall${suffix}_ms`, value: round(median(this.status), 1), unit: "ms", limit: floor, note: `\`tenexd status --json\` ${note}; runs: ${list(this.status)}` },
      { name: `cli_conversations_wall${suffix}_ms`, value: round(median(this.convs), 1), unit: "ms", limit: floor, note: `\`tenexd conversations\` ${note}; runs: ${list(this.convs)}` },
    ];
  }
}

export async function benchCliWall(ctx: BenchContext): Promise<Figure[]> {
  await ensureDataset(SHAPES.c200x50, ctx.progress);
  const relay = await startReplayRelay([]);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-cli-bench-"));
  try {
    const project = writeBenchProject(join(dir, "project"), benchKeys(), [relay.url]);
    await fillStore(project.tenexDir, benchKeys(), readDataset(SHAPES.c200x50), relay.url);
    const daemon = await startDaemon(project.dir);
    try {
      const asGiven = new Rounds(process.env);
      const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutCa } = process.env;
      const plain = extraCa === undefined ? undefined : new Rounds(withoutCa);
      for (let i = 0; i < ROUNDS; i++) {
        asGiven.run(project);
        plain?.run(project);
      }
      const envNote = extraCa === undefined
        ? "NODE_EXTRA_CA_CERTS not set"
        : "with this environment's NODE_EXTRA_CA_CERTS, which Node reads and parses at every start (the _no_extra_ca figures: the same rounds, taking turns, without it)";
      return [
        ...asGiven.figures("", envNote),
        ...(plain ? plain.figures("_no_extra_ca", "NODE_EXTRA_CA_CERTS removed from the environment") : []),
      ];
    } finally {
      await daemon.stop();
    }
  } finally {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
