// Does the TENEX folder belong to this project? Looked at before anything is imported, because a
// project with another owner, `d` tag or agents keeps the events but loses what TENEX keyed by
// agent slug (turns, completions, cursors, sessions) and cannot be repaired by a later import.
//
// What the folder says about its project, from every conversation (decoded, not yet verified):
// - the coordinate: the `a` tags starting with `31933:` of its events;
// - the agents: every slug its turns, completions and agent states name ("END" is no agent), the
//   key each slug signed with (the `tool=complete` event a completion copied, see
//   convert-turns.ts), and the key and name of whoever changed phases.
// Each mismatch comes with the change to config.json or agents.json that makes them agree.

import { npubEncode } from "nostr-tools/nip19";
import { parseProjectCoordinate, projectOf } from "../../src/coordinate.js";
import { isCompletion } from "../../src/tags.js";
import type { NostrEvent } from "../../src/types.js";
import { END_AGENT } from "./convert-turns.js";
import type { ParsedConversation } from "./parse-conversation.js";
import { isSecondsStamp } from "./time.js";

export interface ProjectFacts {
  /** `31933:<owner>:<d>`. */
  coordinate: string;
  agents: readonly { slug: string; pubkey: string; name: string }[];
}

export interface Mismatch {
  what: "project" | "agent";
  message: string;
  /** The change that makes this project match the TENEX one. */
  fix: string;
}

const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);
const mostUsed = <K>(m: ReadonlyMap<K, number>): K | undefined => [...m].sort((a, b) => b[1] - a[1])[0]?.[0];

/** What the TENEX folder says about its project, conversation by conversation. */
export class SourceSurvey {
  readonly coordinates = new Map<string, number>();
  /** Slug → number of turns, completions and states naming it. */
  readonly slugs = new Map<string, number>();
  /** Slug → pubkeys its completion events were signed with. */
  readonly slugKeys = new Map<string, Map<string, number>>();
  /** Pubkeys that changed phases, with the name TENEX gave them. */
  readonly transitionKeys = new Map<string, string>();

  add(c: ParsedConversation, events: readonly NostrEvent[]): void {
    for (const ev of events) {
      const coordinate = projectOf(ev.tags);
      if (coordinate !== undefined) bump(this.coordinates, coordinate);
    }
    for (const [slug] of c.agentStates) bump(this.slugs, slug);
    const completions = events.filter((ev) => isCompletion(ev.tags));
    for (const turn of c.turns) {
      for (const slug of turn.agents) if (slug !== END_AGENT) bump(this.slugs, slug);
      for (const done of turn.completions) {
        bump(this.slugs, done.agent);
        const ts = done.timestamp;
        // Only a stamp copied from the event pins it down (created_at and content).
        if (ts === undefined || !isSecondsStamp(ts)) continue;
        const ev = completions.find((e) => e.created_at === ts && e.content === done.message);
        if (!ev) continue;
        const keys = this.slugKeys.get(done.agent) ?? new Map<string, number>();
        bump(keys, ev.pubkey);
        this.slugKeys.set(done.agent, keys);
      }
    }
    for (const t of c.transitions) if (!this.transitionKeys.has(t.agentPubkey)) this.transitionKeys.set(t.agentPubkey, t.agentName);
  }
}

const npub = (hex: string) => {
  try {
    return npubEncode(hex);
  } catch {
    return hex;
  }
};

function coordinateMismatch(survey: SourceSurvey, project: ProjectFacts): Mismatch[] {
  const theirs = mostUsed(survey.coordinates);
  if (theirs === undefined || survey.coordinates.has(project.coordinate)) return [];
  const t = parseProjectCoordinate(theirs);
  const ours = parseProjectCoordinate(project.coordinate);
  const fixes: string[] = [];
  if (t && ours && t.pubkey !== ours.pubkey) {
    fixes.push(`config.json: "project": { "owner": { "pubkey": "${npub(t.pubkey)}" } } (or the keyFile of that key)`);
  }
  if (t && ours && t.d !== ours.d) fixes.push(`config.json: "project": { "d": ${JSON.stringify(t.d)} }`);
  return [{
    what: "project",
    message: `TENEX's events belong to project ${theirs} (${survey.coordinates.get(theirs)} events); this project is ${project.coordinate}`,
    fix: fixes.join("; ") || "config.json: make project.owner and project.d name the TENEX project",
  }];
}

function agentMismatches(survey: SourceSurvey, project: ProjectFacts): Mismatch[] {
  const out: Mismatch[] = [];
  const bySlug = new Map(project.agents.map((a) => [a.slug, a]));
  const keys = new Set(project.agents.map((a) => a.pubkey));
  const keyHint = "TENEX keeps each agent's nsec in its .tenex/agents.json: put it in a 0600 key file";
  for (const [slug, refs] of survey.slugs) {
    const signedWith = mostUsed(survey.slugKeys.get(slug) ?? new Map<string, number>());
    const ours = bySlug.get(slug);
    if (!ours) {
      out.push({
        what: "agent",
        message: `agents.json has no agent "${slug}" (TENEX names it ${refs} times in turns, completions and agent states)`,
        fix: `agents.json: add { "slug": ${JSON.stringify(slug)}, … }${signedWith ? ` with the key of ${npub(signedWith)}` : ""} (${keyHint})`,
      });
    } else if (signedWith !== undefined && signedWith !== ours.pubkey) {
      out.push({
        what: "agent",
        message: `agent "${slug}" signed its TENEX completions as ${npub(signedWith)}; agents.json gives it ${npub(ours.pubkey)}`,
        fix: `agents.json: give "${slug}" the key of ${npub(signedWith)} (${keyHint})`,
      });
    }
  }
  for (const [pubkey, name] of survey.transitionKeys) {
    if (keys.has(pubkey)) continue;
    out.push({
      what: "agent",
      message: `phases were changed by "${name}" (${npub(pubkey)}), whose key no agent in agents.json has`,
      fix: `agents.json: give the agent that was "${name}" in TENEX (its orchestrator, usually) the key of ${npub(pubkey)} (${keyHint})`,
    });
  }
  return out;
}

/** Every way the TENEX folder does not match the project, with its fix; empty when it matches. */
export function checkProject(survey: SourceSurvey, project: ProjectFacts): Mismatch[] {
  return [...coordinateMismatch(survey, project), ...agentMismatches(survey, project)];
}
