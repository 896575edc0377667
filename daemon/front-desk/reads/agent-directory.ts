// The project's agents as the API and the CLI name them: by slug or pubkey in, slug out.

import { authorLabel, authorName } from "../../../src/author-names.js";
import { DomainError } from "../../../src/errors.js";
import type { AgentInfo, ProjectInfo } from "../../../src/types.js";

export class UnknownAgentError extends DomainError {
  override name = "UnknownAgentError";
  constructor(ref: string, known: readonly string[]) {
    super(`unknown agent "${ref}" (the agents are ${known.join(", ")})`, "unknown_agent");
  }
}

export class AgentDirectory {
  private readonly bySlug: Map<string, AgentInfo>;
  private readonly byPubkey: Map<string, AgentInfo>;

  constructor(readonly project: ProjectInfo) {
    this.bySlug = new Map(project.agents.map((a) => [a.slug, a]));
    this.byPubkey = new Map(project.agents.map((a) => [a.pubkey, a]));
  }

  get all(): readonly AgentInfo[] {
    return this.project.agents;
  }

  /** An agent by slug or hex pubkey; UnknownAgentError otherwise. */
  resolve(ref: string): AgentInfo {
    const text = ref.trim();
    const agent = this.bySlug.get(text) ?? this.byPubkey.get(text.toLowerCase());
    if (!agent) throw new UnknownAgentError(text, [...this.bySlug.keys()]);
    return agent;
  }

  isAgent(pubkey: string): boolean {
    return this.byPubkey.has(pubkey);
  }

  /** A short label for any author (src/author-names.ts): slug, "owner", "user 1a2b3c4d". */
  label(pubkey: string): string {
    return authorLabel(this.project, pubkey);
  }

  /** Display name, as agents see it in their context. */
  nameOf(pubkey: string): string {
    return authorName(this.project, pubkey);
  }
}
