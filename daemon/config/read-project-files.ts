// Reads and validates .tenex/config.json and .tenex/agents.json (no key material yet): the
// step `tenexd keys` needs before any key exists, and the first step of loadProject.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { type AgentBackend, type ProjectFiles, type ResolvedAgentEntry, type ResolvedOwner } from "./types.js";
import { agentsSchema, type ParsedAgent } from "./agents-schema.js";
import { configSchema } from "./config-schema.js";
import { ConfigError, type ConfigIssue } from "./errors.js";
import { toConfigIssues } from "./format-issues.js";
import { requireTenexDir } from "./tenex-dir.js";

export { TENEX_DIR } from "./tenex-dir.js";
export const CONFIG_FILE = "config.json";
export const AGENTS_FILE = "agents.json";

/** Reads both files; throws one ConfigError listing the problems of both. */
export async function readProjectFiles(projectDir: string): Promise<ProjectFiles> {
  const { absProject, tenexDir } = requireTenexDir(projectDir);
  const config = await parseFile(tenexDir, CONFIG_FILE, configSchema);
  const agents = await parseFile(tenexDir, AGENTS_FILE, agentsSchema);
  if (!config.ok || !agents.ok) {
    throw new ConfigError(tenexDir, [...(config.ok ? [] : config.issues), ...(agents.ok ? [] : agents.issues)]);
  }
  const o = config.data.project.owner;
  const owner: ResolvedOwner = o.pubkey !== undefined ? { pubkey: o.pubkey } : { keyFile: join(tenexDir, o.keyFile!) };
  return {
    projectDir: absProject,
    tenexDir,
    config: { ...config.data, project: { ...config.data.project, owner } },
    agents: agents.data.agents.map((a) => resolveAgentPaths(tenexDir, a)),
  };
}

type Parsed<T> = { ok: true; data: T } | { ok: false; issues: ConfigIssue[] };

async function parseFile<S extends z.ZodType>(tenexDir: string, file: string, schema: S): Promise<Parsed<z.output<S>>> {
  let text: string;
  try {
    text = await readFile(join(tenexDir, file), "utf8");
  } catch (err) {
    const problem = (err as NodeJS.ErrnoException).code === "ENOENT"
      ? `not found in ${tenexDir}: create it (see docs/config.md), or start over with \`tenexd init\` in a new directory`
      : `cannot be read: ${(err as Error).message}`;
    return { ok: false, issues: [{ file, path: "", problem }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, issues: [{ file, path: "", problem: `is not valid JSON: ${(err as Error).message}` }] };
  }
  const parsed = schema.safeParse(json, { reportInput: true });
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, issues: toConfigIssues(file, parsed.error) };
}

function resolveAgentPaths(tenexDir: string, a: ParsedAgent): ResolvedAgentEntry {
  const key = a.key.file !== undefined ? { file: join(tenexDir, a.key.file) } : { env: a.key.env! };
  return { ...a, key, backend: resolveBackend(tenexDir, a.backend) };
}

/**
 * Arguments written as `./…` are paths relative to .tenex/ and become absolute, so the agent
 * runs the same whatever the daemon's working directory; anything else (a program looked up on
 * PATH, a flag) passes verbatim. The schema has refused `../` paths that would leave .tenex/.
 */
function resolveBackend(tenexDir: string, b: ParsedAgent["backend"]): AgentBackend {
  if (b.type === "mailbox") return b;
  return { ...b, command: b.command.map((arg) => (arg.startsWith("./") ? join(tenexDir, arg) : arg)) };
}
