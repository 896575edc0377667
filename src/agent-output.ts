// What an agent program prints on stdout (docs/agent-protocol.md): one JSON object, checked
// strictly here at the edge so the daemon acts only on outputs it understands. Every problem is
// reported with the field it concerns, e.g. `route.agents[0]: unknown agent slug "x"`.

import { z } from "zod";
import { MESSAGE_TYPES, PHASES, PRIORITIES } from "./types.js";
import type { AgentInput } from "./agent-input.js";

const text = z.string().min(1, { error: "must not be empty" });
const slugList = z.array(text);
const phase = z.enum(PHASES, { error: `must be one of ${PHASES.join(", ")}` });

export const agentOutputSchema = z.strictObject({
  reply: text.optional(),
  complete: z.boolean().optional(),
  recipients: slugList.optional(),
  phase: z.strictObject({ to: phase, message: text }).optional(),
  route: z.strictObject({
    agents: slugList.min(1, { error: "must name at least one agent" }),
    phase,
    reason: text,
  }).optional(),
  session: text.optional(),
  priority: z.enum(PRIORITIES, { error: `must be one of ${PRIORITIES.join(", ")}` }).optional(),
  type: z.enum(MESSAGE_TYPES, { error: `must be one of ${MESSAGE_TYPES.join(", ")}` }).optional(),
});

export type AgentOutput = z.output<typeof agentOutputSchema>;

/** What an output is checked against beyond its shape. */
export interface OutputRules {
  /** Slugs the agent may route to or p-tag. */
  slugs: readonly string[];
  /** The orchestrator routes and never completes; other agents complete and never route. */
  orchestrator: boolean;
}

export type OutputCheck = { ok: true; output: AgentOutput } | { ok: false; message: string };

export const outputRulesFor = (input: AgentInput): OutputRules => ({
  slugs: input.agents.map((a) => a.slug),
  orchestrator: input.agent.orchestrator,
});

interface Issue {
  path: string;
  problem: string;
}

/** Parses a program's whole stdout: the last non-empty line that is JSON is the output. */
export function parseAgentOutput(stdout: string, rules: OutputRules): OutputCheck {
  const picked = pickJson(stdout);
  if (!picked.ok) return picked;
  return validateAgentOutput(picked.value, rules);
}

/** Checks an already-parsed output (also what the mailbox API receives). */
export function validateAgentOutput(value: unknown, rules: OutputRules): OutputCheck {
  const parsed = agentOutputSchema.safeParse(value, { reportInput: true });
  const issues = parsed.success ? ruleIssues(parsed.data, rules) : parsed.error.issues.flatMap(toIssues);
  if (parsed.success && issues.length === 0) return { ok: true, output: parsed.data };
  return { ok: false, message: issues.map((i) => `${i.path}: ${i.problem}`).join("; ") };
}

function pickJson(stdout: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const whole = stdout.trim();
  if (whole === "") return { ok: false, message: "stdout is empty: print one JSON object, e.g. {\"reply\":\"…\"}" };
  // The whole stdout first, so a pretty-printed object (and nothing else) is accepted too.
  const all = tryJson(whole);
  if (all.ok) return all;
  const lines = whole.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    const json = line === "" ? undefined : tryJson(line);
    if (json?.ok) return json;
  }
  return { ok: false, message: `no line of stdout is JSON (last line: ${JSON.stringify(clip(lines.at(-1)!.trim()))})` };
}

function tryJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch {
    return { ok: false };
  }
}

const clip = (s: string, max = 120) => (s.length > max ? `${s.slice(0, max)}…` : s);

function ruleIssues(out: AgentOutput, rules: OutputRules): Issue[] {
  const issues: Issue[] = [];
  if (out.reply === undefined && out.complete !== true && out.route === undefined && out.phase === undefined) {
    issues.push({ path: "output", problem: "does nothing: give at least one of reply, complete: true, route, phase" });
  }
  if (out.route && !rules.orchestrator) issues.push({ path: "route", problem: "only the orchestrator routes" });
  if (out.complete === true && rules.orchestrator) {
    issues.push({ path: "complete", problem: "the orchestrator does not complete (completions go to it): reply or route instead" });
  }
  if (out.complete === true && out.recipients) {
    issues.push({ path: "recipients", problem: "a completion (complete: true) goes to the orchestrator only: drop recipients or complete" });
  }
  if (out.route && out.phase && out.route.phase !== out.phase.to) {
    issues.push({ path: "phase.to", problem: `"${out.phase.to}" contradicts route.phase "${out.route.phase}"` });
  }
  if (out.route) issues.push(...slugIssues("route.agents", out.route.agents, rules.slugs));
  if (out.recipients) issues.push(...slugIssues("recipients", out.recipients, rules.slugs));
  return issues;
}

function slugIssues(path: string, given: readonly string[], known: readonly string[]): Issue[] {
  return given.flatMap((slug, i): Issue[] => {
    const at = `${path}[${i}]`;
    if (!known.includes(slug)) return [{ path: at, problem: `unknown agent slug ${JSON.stringify(slug)} (known: ${known.join(", ") || "none"})` }];
    if (given.indexOf(slug) !== i) return [{ path: at, problem: `${JSON.stringify(slug)} is listed twice` }];
    return [];
  });
}

function toIssues(iss: z.core.$ZodIssue): Issue[] {
  const path = formatPath(iss.path);
  switch (iss.code) {
    case "unrecognized_keys":
      return iss.keys.map((k) => ({ path: formatPath([...iss.path, k]), problem: "unknown field (see docs/agent-protocol.md)" }));
    case "invalid_type":
      if (iss.input === undefined) return [{ path, problem: `is required (${iss.expected})` }];
      return [{ path, problem: `must be ${article(iss.expected)} (got ${describe(iss.input)})` }];
    case "invalid_value":
      return [{ path, problem: `${iss.message} (got ${describe(iss.input)})` }];
    default:
      return [{ path, problem: iss.message }];
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "output";
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

const article = (expected: string) =>
  expected === "array" ? "a list" : /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;

const describe = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `${typeof v} ${clip(JSON.stringify(v))}`;
