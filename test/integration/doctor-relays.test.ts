// `tenexd doctor` on the relays config.json names (daemon/cli/commands/doctor.ts,
// src/relay-probe.ts), against real relays on loopback: one that requires AUTH for everything
// and admits the daemon's key, one that requires it and does not, an open one, and a port where
// nothing listens. Each is a row: reachable and whether AUTH was required and accepted, or a
// failing row that says what to do.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChecks } from "../../daemon/cli/commands/doctor.js";
import { makeProject, projectKeys, type TestProject } from "../helpers/daemon.js";
import { startTestRelay, type TestRelay } from "../helpers/relay.js";

let tmp: string;
let project: TestProject;
const relays: TestRelay[] = [];
let deadPort: number;

/** A port nothing listens on (taken, then released). */
const freePort = () => new Promise<number>((done) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address() as { port: number };
    s.close(() => done(port));
  });
});

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "tenexd-doctor-relays-"));
  deadPort = await freePort();
  // The project's keys first (the relays admit by pubkey), then the relays, then the config naming them.
  project = makeProject(join(tmp, "p"));
  const keys = projectKeys(project);
  const admits = (members: string[]) => startTestRelay({ guard: { maxEventBytes: 131_072, access: { auth: "all", members: new Set(members) } } });
  relays.push(await admits([keys.owner.pubkey, keys.orchestrator.pubkey]), await admits([keys.owner.pubkey]), await startTestRelay());
  const file = join(project.tenexDir, "config.json");
  const config = JSON.parse(readFileSync(file, "utf8"));
  config.relays = [...relays.map((r) => r.url), `ws://127.0.0.1:${deadPort}`];
  writeFileSync(file, JSON.stringify(config, null, 2));
}, 30_000);

afterAll(async () => {
  for (const r of relays) await r.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe("doctor: each configured relay", () => {
  it("says whether AUTH is required and accepted, and fails a refused AUTH or an unreachable relay with the fix", async () => {
    const checks = await runChecks(project.dir);
    const row = (url: string) => checks.find((c) => c.check === `relay ${url}`);
    const [admitting, refusing, open] = relays.map((r) => r.url);
    expect(row(admitting!)).toEqual({ check: `relay ${admitting}`, ok: true, detail: expect.stringMatching(/^reachable; AUTH required, accepted as orchestrator \(/) });
    expect(row(refusing!)).toEqual({ check: `relay ${refusing}`, ok: false, detail: expect.stringMatching(/^requires AUTH and refused ours as orchestrator .*: restricted: .*set relayAuth\.signer/) });
    expect(row(open!)).toEqual({ check: `relay ${open}`, ok: true, detail: "reachable; no AUTH asked" });
    expect(row(`ws://127.0.0.1:${deadPort}`)).toEqual({ check: `relay ws://127.0.0.1:${deadPort}`, ok: false, detail: expect.stringMatching(/^unreachable \(connect: .*ECONNREFUSED.*\): check the URL in config\.json relays/) });
  });
});
