// How authors are named, one rule for every reader: the daemon's agent contexts, the API and
// every CLI command. Agents by slug (labels) or name (contexts), the project owner as "owner" /
// "Owner", a whitelisted user as "user 1a2b3c4d", anyone else by a hex prefix.

import type { ProjectInfo } from "./types.js";

const short = (pubkey: string) => pubkey.slice(0, 8);

/** The short label tables and JSON use. */
export function authorLabel(project: ProjectInfo, pubkey: string): string {
  const agent = project.agents.find((a) => a.pubkey === pubkey);
  if (agent) return agent.slug;
  if (pubkey === project.ownerPubkey) return "owner";
  return project.whitelist.includes(pubkey) ? `user ${short(pubkey)}` : short(pubkey);
}

/** The name agents read in their context ("[Name]: …"). */
export function authorName(project: ProjectInfo, pubkey: string): string {
  const agent = project.agents.find((a) => a.pubkey === pubkey);
  if (agent) return agent.name;
  return pubkey === project.ownerPubkey ? "Owner" : `user ${short(pubkey)}`;
}
