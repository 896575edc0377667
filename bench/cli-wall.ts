// How long the Director waits for `tenexd status --json` and `tenexd conversations` against a
// running daemon (10,000 events in 200 conversations), from spawn to exit, beside the floor
// measured in the same rounds, all taking turns: a minimal Node client that reads the port and
// token and makes one GET (minimal-api-client.ts, the limit), and `node -e 0` (Node's start-up).
//   cli_status_wall_ms         median wall of `tenexd status --json`
//   cli_conversations_wall_ms  median wall of `tenexd conversations`

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { round, type BenchContext } from "./bench-context.js";
import { fillStore, writeBenchProject } from "./bench-project.js";
import { BIN, startDaemon } from "./child-daemon.js";
import type { Figure } from "./figure.js";
import { startReplayRelay } from "./replay-relay.js";
import { benchKeys, ensureDataset, readDataset, SHAPES } from "./workload.js";

const ROUNDS = 9;
const MINIMAL_CLIENT = join(import.meta.dirname, "minimal-api-client.js");

function wallMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 30_000 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchCliWall(ctx: BenchContext): Promise<Figure[]> {
  await ensureDataset(SHAPES.c200x50, ctx.progress);
  const relay = await startReplayRelay([]);
  const dir = mkdtempSync(join(tmpdir(), "tenexd-cli-bench-"));
  try {
    const project = writeBenchProject(join(dir, "project"), benchKeys(), [relay.url]);
    await fillStore(project.tenexDir, benchKeys(), readDataset(SHAPES.c200x50), relay.url);
    const daemon = await startDaemon(project.dir);
    try {
      const node: number[] = [], minimal: number[] = [], status: number[] = [], convs: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        node.push(wallMs(["-e", "0"]));
        minimal.push(wallMs([MINIMAL_CLIENT, project.tenexDir, "/api/v1/status"]));
        status.push(wallMs([BIN, "status", "--json", "--project", project.dir]));
        convs.push(wallMs([BIN, "conversations", "--project", project.dir]));
      }
      const floor = round(median(minimal), 1);
      const list = (xs: number[]) => xs.map((x) => Math.round(x)).join(", ");
      const note = `against a running daemon with 10,000 events in 200 conversations, spawn to exit; median of ${ROUNDS}, taking turns with a minimal Node client (bench/minimal-api-client.ts: reads the port and token, one GET of the status, prints it; limit: its median, ${floor} ms; ${list(minimal)}) and \`node -e 0\` (median ${round(median(node), 1)} ms; ${list(node)})`;
      return [
        { name: "cli_status_wall_ms", value: round(median(status), 1), unit: "ms", limit: floor, note: `\`tenexd status --json\` ${note}; runs: ${list(status)}` },
        { name: "cli_conversations_wall_ms", value: round(median(convs), 1), unit: "ms", limit: floor, note: `\`tenexd conversations\` ${note}; runs: ${list(convs)}` },
      ];
    } finally {
      await daemon.stop();
    }
  } finally {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
