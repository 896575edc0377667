// agents.json: the project's agents, their keys and how the daemon reaches each of them.

import { z } from "zod";
import { AGENT_SLUG } from "../../src/agent-slug.js";
import { exactlyOne, positiveInt, pubkey, relativePath, staysInside, strict } from "./primitives.js";

export { AGENT_SLUG };
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const key = strict({
  file: relativePath.optional(),
  env: z.string().regex(ENV_NAME, { error: 'must be an environment variable name, e.g. "TENEX_CODER_KEY"' }).optional(),
}).superRefine(exactlyOne("file", "env", '{ "file": "keys/coder.nsec" } or { "env": "TENEX_CODER_KEY" }'));

const isRelativePath = (arg: string) => arg.startsWith("./") || arg.startsWith("../");

// `./x` arguments are resolved against .tenex/ (see read-project-files.ts); they may not leave it.
const commandArg = z.string().min(1, { error: "must not be empty" }).refine((arg) => !isRelativePath(arg) || staysInside(arg), {
  error: (iss) => `a relative path must stay inside .tenex/, e.g. "./agents/coder.mjs" (got ${JSON.stringify(iss.input)})`,
});

const backend = z.discriminatedUnion("type", [
  strict({ type: z.literal("mailbox") }),
  strict({
    type: z.literal("command"),
    command: z.array(commandArg).min(1, { error: 'must list the program and its arguments, e.g. ["node", "./agents/coder.mjs"]' }),
    timeoutSeconds: positiveInt.default(120),
  }),
], { error: 'must be "mailbox" or "command"' });

const agent = strict({
  slug: z.string().regex(AGENT_SLUG, { error: 'must be 1-64 lowercase letters, digits or "-", e.g. "code-reviewer"' }),
  name: z.string().min(1, { error: 'must not be empty, e.g. "Code Reviewer"' }),
  role: z.string().min(1, { error: 'must not be empty, e.g. "reviewer"' }),
  orchestrator: z.boolean().default(false),
  pubkey: pubkey.optional(),
  key,
  backend,
});

export const agentsSchema = strict({
  agents: z.array(agent).min(1, { error: "must list at least one agent (the orchestrator)" }),
}).superRefine((v, ctx) => {
  checkUniqueSlugs(v.agents, ctx);
  checkOneOrchestrator(v.agents, ctx);
});

type ParsedAgentRaw = { slug: string; orchestrator: boolean };

function checkUniqueSlugs(agents: readonly ParsedAgentRaw[], ctx: z.RefinementCtx) {
  const seen = new Map<string, number>();
  agents.forEach((a, i) => {
    const first = seen.get(a.slug);
    if (first === undefined) seen.set(a.slug, i);
    else ctx.addIssue({ code: "custom", path: ["agents", i, "slug"], message: `"${a.slug}" is already used by agents[${first}]: slugs must be unique` });
  });
}

function checkOneOrchestrator(agents: readonly ParsedAgentRaw[], ctx: z.RefinementCtx) {
  const idx = agents.flatMap((a, i) => (a.orchestrator ? [i] : []));
  if (idx.length === 0) {
    ctx.addIssue({ code: "custom", path: ["agents"], message: 'no agent is the orchestrator: set "orchestrator": true on exactly one agent' });
  }
  for (const i of idx.slice(1)) {
    ctx.addIssue({
      code: "custom",
      path: ["agents", i, "orchestrator"],
      message: `agents[${idx[0]}] is already the orchestrator: exactly one agent may have "orchestrator": true`,
    });
  }
}

/** agents.json after parsing: defaults filled in, pubkeys as hex, paths still relative. */
export type ParsedAgents = z.output<typeof agentsSchema>;
export type ParsedAgent = ParsedAgents["agents"][number];
