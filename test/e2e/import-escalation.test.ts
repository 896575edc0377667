// After `tenexd import`, the daemon's first escalation check (30 s after start) tells the owner
// nothing about imported history: not the mail TENEX's agents had processed (read marks), not
// an agent's imported unread mail over the threshold, not a conversation whose orchestrator was
// already looping in TENEX (both named by the import instead). Waits for that check to run.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TenexClient } from "../../daemon/front-desk/client/client.js";
import { eventually, projectKeys, startDaemon, type TestProject } from "../helpers/daemon.js";
import { writeMultiFixture, type MultiFixture } from "../helpers/tenex-fixture.js";
import { cli, endpointOf, mailboxProject } from "./api-fixture.js";

let tmp: string;
let project: TestProject;
let fx: MultiFixture;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-import-esc-"));
  project = mailboxProject(join(tmp, "p"), { unreadThreshold: 2 });
  fx = writeMultiFixture(join(tmp, "tenex"), { keys: projectKeys(project), stuck: true });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("an imported project", () => {
  it("names what it brought over the limits, and the daemon escalates none of it", async () => {
    const imported = await cli(project, "import", "--from", join(tmp, "tenex"));
    expect(imported.code, imported.stderr).toBe(0);
    // stuck: three owner messages to planner that TENEX stored and never ran it on.
    expect(imported.stdout).toMatch(/^over threshold +planner: imported mail no TENEX agent had processed/m);
    expect(imported.stdout).toMatch(new RegExp(`^looping +${fx.stuck!.id.slice(0, 12)}: `, "m"));
    expect((await cli(project, "inbox", "--json", "-a", "planner")).json().total).toBe(3);
    expect((await cli(project, "inbox", "--json", "-a", "orchestrator")).json().total).toBe(0);

    const daemon = await startDaemon(project.dir);
    let stopped: number | null = null;
    try {
      const api = new TenexClient(endpointOf(project));
      // The escalation loop first runs 30 s after start: wait for it to begin; stopping the
      // daemon then waits for that check to end (escalations are logged before they go out).
      const loop = await eventually(async () => {
        const l = (await api.status()).loops.find((x) => x.name === "escalation");
        return l && l.runs >= 1 ? l : undefined;
      }, 60_000, "the first escalation check");
      expect(loop.failures).toBe(0);
    } finally {
      stopped = await daemon.stop();
    }
    expect(stopped).toBe(0);
    const titles = (await cli(project, "conversations", "--json", "--limit", "20")).json().items.map((c: { title: string }) => c.title);
    expect(titles.sort()).toEqual(["Ship the export feature", "Why is the build red?"]);
    const stuck = (await cli(project, "show", "--json", "-c", fx.stuck!.id)).json();
    expect(stuck.timeline.filter((e: { kind: string }) => e.kind === "message")).toHaveLength(fx.stuck!.events.length);
  }, 90_000);
});
