// Stop requests (kind 24134) as an attacker or a careless client would send them, through the
// engine's handler with real signature checks (daemon/engine/agents/stop-requests.ts,
// src/stop-request.ts): only the owner or a whitelisted user stops an agent, only on a
// conversation held here, only the project's agents; a forged one is refused before anything;
// each refusal is counted with its reason and no run is touched.

import { describe, expect, it } from "vitest";
import { wasmCheck } from "../../adapters/verify/wasm-verify.js";
import { ActiveRuns } from "../../daemon/engine/agents/active-runs.js";
import { StopRequests } from "../../daemon/engine/agents/stop-requests.js";
import { IngestCounters } from "../../daemon/engine/ingest/counters.js";
import { DEFAULT_LIMITS } from "../../src/edge/validate-inbound.js";
import { newKey, sign, testProject } from "../helpers/events.js";
import { stopRequest } from "../helpers/tenex-client.js";

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function setup() {
  const p = testProject();
  const held = p.root(p.owner, "held here");
  const changes: string[][] = [];
  const runs: ActiveRuns = new ActiveRuns((id) => changes.push(runs.working(id)));
  const counters = new IngestCounters();
  const stops = new StopRequests({
    project: p.info, limits: DEFAULT_LIMITS, verifier: { check: async (ev) => wasmCheck(ev) }, holds: (id) => id === held.id,
    runs, counters, clock: { now: () => Date.now() }, logger: silent as never,
  });
  const coder = p.agents.coder!;
  const run = runs.open(held.id, coder.pubkey);
  return { p, held, runs, run, counters, stops, coder, changes };
}

describe("stop requests", () => {
  it("the owner's stop ends the named agent's run on that conversation, once, however many relays deliver it", async () => {
    const { p, held, run, stops, coder, runs, changes } = setup();
    const other = runs.open(held.id, p.agents.planner!.pubkey);
    const stop = stopRequest(p.owner, p.coordinate, held.id, [coder.pubkey]);
    expect(await stops.take(stop, "ws://a")).toBe(1);
    expect(await stops.take(stop, "ws://b")).toBe(0);
    expect(run.controller.signal.aborted).toBe(true);
    expect(run.stoppedBy).toEqual({ eventId: stop.id, by: p.owner.pubkey });
    expect(other.controller.signal.aborted).toBe(false);
    runs.close(run);
    expect(changes.at(-1)).toEqual([p.agents.planner!.pubkey]);
  });

  it("refuses and counts, touching no run: a stranger, an agent, a forgery, another project, an unknown conversation, no agent named", async () => {
    const { p, held, run, counters, stops, coder } = setup();
    const stranger = newKey();
    const forged = { ...stopRequest(p.owner, p.coordinate, held.id, [coder.pubkey]), sig: stopRequest(stranger, p.coordinate, held.id, [coder.pubkey]).sig };
    const attempts = [
      stopRequest(stranger, p.coordinate, held.id, [coder.pubkey]),
      stopRequest(p.agents.planner!, p.coordinate, held.id, [coder.pubkey]),
      forged,
      stopRequest(p.owner, `31933:${stranger.pubkey}:theirs`, held.id, [coder.pubkey]),
      stopRequest(p.owner, p.coordinate, p.root(p.owner, "not held").id, [coder.pubkey]),
      stopRequest(p.owner, p.coordinate, held.id, [stranger.pubkey]),
      sign(p.owner, 24134, "", [["p", coder.pubkey], ["a", p.coordinate]]),
    ];
    for (const ev of attempts) expect(await stops.take(ev)).toBe(0);
    expect(run.controller.signal.aborted).toBe(false);
    expect(counters.snapshot().rejected).toEqual({
      stop_not_authorised: 2, bad_signature: 1, stop_other_project: 1, stop_unknown_conversation: 2, stop_names_no_agent: 1,
    });
  });

  it("a stop replayed later (captured off a relay, sent again after a restart) ends nothing", async () => {
    const { p, held, run, counters, stops, coder } = setup();
    // Signed by the owner, for this conversation and agent: only its age gives it away.
    const old = Math.floor(Date.now() / 1000) - 10 * 60;
    const replayed = sign(p.owner, 24134, "", [["e", held.id], ["p", coder.pubkey], ["a", p.coordinate]], old);
    expect(await stops.take(replayed)).toBe(0);
    expect(run.controller.signal.aborted).toBe(false);
    expect(counters.snapshot().rejected).toEqual({ stop_stale: 1 });
  });
});
