// loadProject: config + agents + keys, validated and normalised, ready for the daemon.

import { formatCoordinate } from "../../src/coordinate.js";
import type { ProjectInfo } from "../../src/types.js";
import { ConfigError, type ConfigIssue } from "./errors.js";
import { readProjectFiles, AGENTS_FILE, CONFIG_FILE } from "./read-project-files.js";
import { type Env, resolveAgentKey, resolveOwnerKey } from "./resolve-keys.js";
import type { LoadedAgent, LoadedProject, ProjectFiles, RelayAuthKey } from "./types.js";

/** Loads `<projectDir>/.tenex/`; throws ConfigError listing every problem found. */
export async function loadProject(projectDir: string, env: Env = process.env): Promise<LoadedProject> {
  const files = await readProjectFiles(projectDir);
  const issues: ConfigIssue[] = [];
  const owner = await resolveOwnerKey(files);
  if (!owner.ok) issues.push(owner.issue);
  const agents = await loadAgents(files, env, issues);
  if (!owner.ok || issues.length > 0) throw new ConfigError(files.tenexDir, issues);

  const coordinate = formatCoordinate(owner.pubkey, files.config.project.d);
  const orchestrator = agents.find((a) => a.isOrchestrator)!; // the schema guarantees exactly one
  const relayAuth = relayAuthKey(files, agents, orchestrator, owner);
  if (!relayAuth.ok) throw new ConfigError(files.tenexDir, [relayAuth.issue]);
  return {
    projectDir: files.projectDir,
    tenexDir: files.tenexDir,
    config: files.config,
    coordinate,
    owner: { pubkey: owner.pubkey, secretKey: owner.secretKey },
    agents,
    orchestrator,
    relayAuth: relayAuth.key,
    info: { ...projectInfo(coordinate, owner.pubkey, files.config.whitelist, agents), dialect: files.config.dialect },
  };
}

async function loadAgents(files: ProjectFiles, env: Env, issues: ConfigIssue[]): Promise<LoadedAgent[]> {
  const agents: LoadedAgent[] = [];
  const byPubkey = new Map<string, number>();
  for (const [i, a] of files.agents.entries()) {
    const key = await resolveAgentKey(files, i, env);
    if (!key.ok) {
      issues.push(key.issue);
      continue;
    }
    const first = byPubkey.get(key.pubkey);
    if (first === undefined) byPubkey.set(key.pubkey, i);
    else issues.push({ file: AGENTS_FILE, path: `agents[${i}].key`, problem: `is the same key as agents[${first}]'s: every agent needs its own key` });
    agents.push({
      slug: a.slug, name: a.name, role: a.role, isOrchestrator: a.orchestrator,
      pubkey: key.pubkey, secretKey: key.secretKey, keySource: a.key, backend: a.backend,
    });
  }
  return agents;
}

/** The key named by `relayAuth.signer` (an agent's slug or "owner"; default the orchestrator). */
function relayAuthKey(
  files: ProjectFiles, agents: readonly LoadedAgent[], orchestrator: LoadedAgent, owner: { pubkey: string; secretKey?: Uint8Array | undefined },
): { ok: true; key: RelayAuthKey } | { ok: false; issue: ConfigIssue } {
  const name = files.config.relayAuth.signer;
  if (name === undefined) return { ok: true, key: { signer: orchestrator.slug, pubkey: orchestrator.pubkey, secretKey: orchestrator.secretKey } };
  if (name === "owner") {
    if (owner.secretKey) return { ok: true, key: { signer: "owner", pubkey: owner.pubkey, secretKey: owner.secretKey } };
    return { ok: false, issue: { file: CONFIG_FILE, path: "relayAuth.signer", problem: '"owner" needs the owner\'s key: set project.owner.keyFile, or name an agent\'s slug' } };
  }
  const agent = agents.find((a) => a.slug === name);
  if (agent) return { ok: true, key: { signer: agent.slug, pubkey: agent.pubkey, secretKey: agent.secretKey } };
  return {
    ok: false,
    issue: { file: CONFIG_FILE, path: "relayAuth.signer", problem: `must be an agent's slug from agents.json (${agents.map((a) => `"${a.slug}"`).join(", ")}) or "owner" (got ${JSON.stringify(name)})` },
  };
}

function projectInfo(coordinate: string, ownerPubkey: string, whitelist: readonly string[], agents: readonly LoadedAgent[]): ProjectInfo {
  return {
    coordinate,
    ownerPubkey,
    // The owner is always allowed; listing it here spares every check a special case.
    whitelist: [...new Set([ownerPubkey, ...whitelist])],
    agents: agents.map(({ slug, name, pubkey, role, isOrchestrator }) => ({ slug, name, pubkey, role, isOrchestrator })),
  };
}
