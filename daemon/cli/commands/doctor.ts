// `tenexd doctor`: validate the configuration and keys and show each check's result.

import { access, constants } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { listDamage } from "../../../adapters/fs-log/damage-records.js";
import { entriesOpenToOthers } from "../../../adapters/state-file/private-file.js";
import { chooseVerifier, choiceText, VerifierChoiceError } from "../../../adapters/verify/verifier-choice.js";
import { chooseSpawner, spawnerText, SpawnerChoiceError } from "../../../adapters/spawn/spawner-choice.js";
import { findProgram } from "../../../adapters/spawn/find-program.js";
import { loadMemoryTrim, memoryTrimText } from "../../../adapters/malloc/memory-trim.js";
import {
  ConfigError, formatIssue, loadProject, readProjectFiles, resolveAgentKey, resolveOwnerKey, shellQuote, TENEX_DIR,
  type ConfigIssue, type KeyResult, type LoadedProject, type ProjectFiles,
} from "../../config/index.js";
import { probeRelay } from "../support/relay-probe.js";
import type { Command } from "../command.js";
import { EXIT } from "../errors.js";
import { formatTable } from "../table.js";

export interface Check {
  check: string;
  ok: boolean;
  detail: string;
}

const MIN_NODE = [20, 19] as const;

export const doctor: Command = {
  name: "doctor",
  usage: `Usage: tenexd doctor [--project DIR] [--json]

Runs every check tenexd start would, without starting: Node version, the signature verifier (bcrypto
native after its self-test, else nostr-wasm, and why), how agents' programs are started (posix-spawn
when its native module built at install, else child-process, and why), whether freed memory is
handed back (malloc_trim when its native module built, else none, and why), config.json and
agents.json against their schemas, .tenex/ and everything in it private to its owner (no group or
other access; the row gives the chmod that fixes it), each key (present, mode 0600, valid, matching
a declared pubkey), each command backend's program and ./ paths, then each relay in config.json
relays (connected with a 4 s timeout, asked for the project's event with the key relayAuth.signer
names): reachable, whether it requires NIP-42 AUTH and accepted ours; an unreachable relay or a
refused AUTH is a failing row with the fix. Then the damage recorded in the logs (lines set aside,
logs moved aside whole): each open record fails until it is cleared with
\`tenexd damage --clear ID\`. Prints one row per check.
Exits 0 when all pass, 2 otherwise.`,
  options: {},
  async run(ctx) {
    const checks = await runChecks(ctx.projectDir);
    const ok = checks.every((c) => c.ok);
    if (ctx.json) ctx.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
    else ctx.stdout.write(formatTable(["RESULT", "CHECK", "DETAIL"], checks.map((c) => [c.ok ? "ok" : "FAIL", c.check, c.detail])));
    return ok ? EXIT.OK : EXIT.INVALID;
  },
};

export async function runChecks(projectDir: string, env = process.env): Promise<Check[]> {
  const checks = await configChecks(projectDir, env);
  return [...checks, ...damageChecks(join(projectDir, TENEX_DIR))];
}

async function configChecks(projectDir: string, env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [
    nodeCheck(),
    choiceCheck("verifier", () => choiceText(chooseVerifier(env)), VerifierChoiceError),
    choiceCheck("spawner", () => spawnerText(chooseSpawner(env)), SpawnerChoiceError),
    // Passes either way: without it the daemon runs the same, a few MB larger.
    { check: "memory trim", ok: true, detail: memoryTrimText(loadMemoryTrim()) },
  ];
  let files: ProjectFiles;
  try {
    files = await readProjectFiles(projectDir);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return [...checks, ...err.issues.map((i) => issueCheck(i.file, i))];
  }
  checks.push({ check: "config", ok: true, detail: `${files.tenexDir}: config.json and agents.json are valid` });
  checks.push(permissionsCheck(files.tenexDir));
  const owner = files.config.project.owner;
  if ("keyFile" in owner) checks.push(keyCheck("owner key", await resolveOwnerKey(files)));
  for (const [i, a] of files.agents.entries()) {
    checks.push(keyCheck(`key ${a.slug}`, await resolveAgentKey(files, i, env)));
    if (a.backend.type === "command") checks.push(await commandCheck(a.slug, a.backend.command, env));
  }
  const relays = files.config.relays;
  checks.push({ check: "relays", ok: true, detail: relays.length > 0 ? relays.join(", ") : "none configured: the embedded relay will run" });
  if (!checks.every((c) => c.ok)) return checks;
  const loaded = await loadCheck(projectDir, env);
  checks.push(loaded.check);
  // Each configured relay, at once: reachable, and whether it requires AUTH and took ours.
  if (loaded.project) {
    const project = loaded.project;
    checks.push(...(await Promise.all(relays.map(async (url) => ({ check: `relay ${url}`, ...(await probeRelay(url, project)) })))));
  }
  return checks;
}

/** .tenex/ and everything in it private to its owner (every entry walked). */
function permissionsCheck(tenexDir: string): Check {
  const open = entriesOpenToOthers(tenexDir);
  if (open.length === 0) return { check: "permissions", ok: true, detail: `${tenexDir} and everything in it are private to their owner` };
  const named = open.slice(0, 3).map((e) => `${relative(dirname(tenexDir), e.path) === TENEX_DIR ? TENEX_DIR : relative(tenexDir, e.path)} ${e.mode.toString(8).padStart(4, "0")}`);
  const more = open.length > named.length ? ", …" : "";
  return {
    check: "permissions", ok: false,
    detail: `${open.length} entr${open.length === 1 ? "y" : "ies"} under ${tenexDir} ${open.length === 1 ? "is" : "are"} open to other users (${named.join(", ")}${more}): run \`chmod -R go-rwx ${shellQuote(tenexDir)}\``,
  };
}

/** Damage recorded in the logs and not cleared: one failing row each, saying what to do. */
function damageChecks(tenexDir: string): Check[] {
  const open = listDamage(tenexDir);
  if (open.length === 0) return [{ check: "damage", ok: true, detail: "no damage recorded in the logs" }];
  return open.map((r) => ({
    check: `damage ${r.id}`, ok: false,
    detail: `${r.conversationId}: ${r.detail}; the bytes are in ${r.savedTo}. Once handled: tenexd damage --clear ${r.id}`,
  }));
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return { check: "node", ok, detail: ok ? `v${process.versions.node}` : `v${process.versions.node}: tenexd needs Node ${MIN_NODE.join(".")} or newer` };
}

/**
 * What tenexd start would choose, in one row: the signature verifier (its fallback, nostr-wasm,
 * passes: it verifies every event too, ~4.7× slower than bcrypto's native one) and how agents'
 * programs are started (the fallback, child-process, passes: a fork, ~2 ms a program instead of
 * ~0.5). The row says why the native one was passed over; an environment variable naming no
 * choice fails it, as it stops tenexd start.
 */
function choiceCheck(check: string, choose: () => string, refused: typeof VerifierChoiceError | typeof SpawnerChoiceError): Check {
  try {
    return { check, ok: true, detail: choose() };
  } catch (err) {
    if (err instanceof refused) return { check, ok: false, detail: err.message };
    throw err;
  }
}

const issueCheck = (check: string, i: ConfigIssue): Check => ({ check, ok: false, detail: formatIssue(i) });

function keyCheck(check: string, r: KeyResult<unknown>): Check {
  return r.ok ? { check, ok: true, detail: `pubkey ${r.pubkey}` } : issueCheck(check, r.issue);
}

/** The program can be found and every path argument exists (paths are absolute once loaded). */
async function commandCheck(slug: string, command: readonly string[], env: NodeJS.ProcessEnv): Promise<Check> {
  const check = `command ${slug}`;
  const [program = "", ...args] = command;
  const found = program.includes("/") ? await isExecutable(program) : typeof findProgram(program, process.cwd(), env.PATH) === "string";
  if (!found) return { check, ok: false, detail: `program "${program}" not found or not executable: install it or fix backend.command in agents.json` };
  for (const arg of args.filter((a) => a.startsWith("/"))) {
    if (!(await exists(arg))) return { check, ok: false, detail: `${arg} does not exist: create it or fix backend.command in agents.json` };
  }
  return { check, ok: true, detail: command.join(" ") };
}

const isExecutable = (file: string) => access(file, constants.X_OK).then(() => true, () => false);
const exists = (file: string) => access(file).then(() => true, () => false);

/** Cross-agent rules (distinct keys) only show once everything loads together. */
async function loadCheck(projectDir: string, env: NodeJS.ProcessEnv): Promise<{ check: Check; project?: LoadedProject }> {
  try {
    const p = await loadProject(projectDir, env);
    return { check: { check: "project", ok: true, detail: `${p.coordinate} (${p.agents.length} agent${p.agents.length === 1 ? "" : "s"})` }, project: p };
  } catch (err) {
    if (err instanceof ConfigError) return { check: { check: "project", ok: false, detail: err.message } };
    throw err;
  }
}
