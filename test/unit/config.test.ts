import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { npubEncode } from "nostr-tools/nip19";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, loadProject } from "../../daemon/config/index.js";
import { generateProjectKeys } from "../../daemon/config/keys.js";
import { newKey } from "../helpers/events.js";

const EXAMPLE = join(import.meta.dirname, "../../.tenex.example");
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A project directory holding a copy of the example with freshly generated keys. */
async function exampleProject(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-config-"));
  dirs.push(dir);
  cpSync(EXAMPLE, join(dir, ".tenex"), { recursive: true, filter: (f) => extname(f) !== ".nsec" });
  await generateProjectKeys(dir);
  return dir;
}

type Json = Record<string, any>;
function edit(dir: string, file: "config.json" | "agents.json", change: (j: Json) => void): void {
  const path = join(dir, ".tenex", file);
  const json = JSON.parse(readFileSync(path, "utf8")) as Json;
  change(json);
  writeFileSync(path, JSON.stringify(json));
}

async function loadError(dir: string, env: Record<string, string> = {}): Promise<ConfigError> {
  const err = await loadProject(dir, env).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe("loadProject: the example project", () => {
  it("loads, with the coordinate, agents, keys and defaults resolved", async () => {
    const dir = await exampleProject();
    const p = await loadProject(dir, {});
    const ownerKey = readFileSync(join(dir, ".tenex/keys/owner.nsec"), "utf8");
    expect(ownerKey).toMatch(/^nsec1[a-z0-9]+\n$/);
    expect(p.coordinate).toBe(`31933:${p.owner.pubkey}:tenexd-demo`);
    expect(p.owner.secretKey).toBeInstanceOf(Uint8Array);
    expect(p.agents.map((a) => a.slug)).toEqual(["orchestrator", "planner", "coder", "reviewer"]);
    expect(p.orchestrator.slug).toBe("orchestrator");
    expect(new Set(p.agents.map((a) => a.pubkey)).size).toBe(4);
    expect(p.agents[1]!.backend).toEqual({ type: "command", command: ["node", join(dir, ".tenex/agents/planner.mjs")], timeoutSeconds: 120 });
    expect(p.config.relays).toEqual([]);
    expect(p.config.api).toEqual({ port: 0, host: "127.0.0.1" });
    expect(p.info.coordinate).toBe(p.coordinate);
    expect(p.info.whitelist).toEqual([p.owner.pubkey]);
    expect(p.info.agents.filter((a) => a.isOrchestrator).map((a) => a.slug)).toEqual(["orchestrator"]);
  });

  it("fills every default when config.json holds only the project", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { for (const k of Object.keys(j)) if (k !== "project") delete j[k]; });
    const c = (await loadProject(dir, {})).config;
    expect(c.limits).toEqual({
      maxContentBytes: 65536, maxTags: 200, maxTagValueBytes: 1024, maxEventBytes: 131072, unreadThreshold: 50,
      turnTimeoutSeconds: 600, repeatRoutingThreshold: 3, stallThreshold: 3, maxConcurrentConversations: 8,
      cacheBytes: 32 * 1024 * 1024,
    });
    expect(c.embeddedRelay).toEqual({
      port: 0, host: "127.0.0.1", inProcess: false, auth: "reads", allowedOrigins: [], maxConnections: 128, maxConnectionsPerAddress: 64,
      newConnectionsPerSecond: 50, maxSubscriptionsPerClient: 64, messagesPerSecond: 100, bytesPerSecond: 1_048_576,
      maxBufferedBytes: 16_777_216, inboundBytesPerSecond: 4_194_304,
    });
    expect(c.relayAuth).toEqual({});
    expect([c.catchup.overlapSeconds, c.heartbeatSeconds, c.logLevel, c.whitelist, c.dialect]).toEqual([300, 15, "info", [], "auto"]);
  });

  it("normalises npub keys to hex (owner pubkey and whitelist)", async () => {
    const dir = await exampleProject();
    const [owner, user] = [newKey(), newKey()];
    edit(dir, "config.json", (j) => {
      j.project.owner = { pubkey: npubEncode(owner.pubkey) };
      j.whitelist = [npubEncode(user.pubkey), user.pubkey.toUpperCase()];
    });
    const p = await loadProject(dir, {});
    expect(p.coordinate).toBe(`31933:${owner.pubkey}:tenexd-demo`);
    expect(p.owner.secretKey).toBeUndefined();
    expect(p.config.whitelist).toEqual([user.pubkey, user.pubkey]);
    expect(p.info.whitelist).toEqual([owner.pubkey, user.pubkey]);
  });

  it("takes a key from an environment variable (nsec or hex)", async () => {
    const dir = await exampleProject();
    const k = newKey();
    edit(dir, "agents.json", (j) => { j.agents[2].key = { env: "CODER_KEY" }; });
    const p = await loadProject(dir, { CODER_KEY: Buffer.from(k.sk).toString("hex") });
    expect(p.agents[2]!.pubkey).toBe(k.pubkey);
    expect(p.agents[2]!.keySource).toEqual({ env: "CODER_KEY" });
    const err = await loadError(dir);
    expect(err.message).toContain("agents.json: agents[2].key.env: environment variable CODER_KEY is not set: export CODER_KEY=");
  });
});

describe("loadProject: the key that answers relays' AUTH", () => {
  it("is the orchestrator's by default, or the agent or owner relayAuth.signer names", async () => {
    const dir = await exampleProject();
    const p = await loadProject(dir, {});
    expect([p.relayAuth.signer, p.relayAuth.pubkey]).toEqual(["orchestrator", p.orchestrator.pubkey]);
    edit(dir, "config.json", (j) => { j.relayAuth = { signer: "coder" }; });
    const coder = await loadProject(dir, {});
    expect(coder.relayAuth.pubkey).toBe(coder.agents.find((a) => a.slug === "coder")!.pubkey);
    edit(dir, "config.json", (j) => { j.relayAuth = { signer: "owner" }; });
    const owner = await loadProject(dir, {});
    expect([owner.relayAuth.signer, owner.relayAuth.pubkey]).toEqual(["owner", owner.owner.pubkey]);
  });
});

describe("loadProject: bad configuration names the file, the field and a fix", () => {
  it("a relay that is not a ws(s) URL", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { j.relays = ["wss://relay.example", "http://relay.example"]; });
    const err = await loadError(dir);
    expect(err.message).toBe('config.json: relays[1]: must be a ws:// or wss:// URL, e.g. "wss://relay.example" (got "http://relay.example")');
    expect(err.issues).toEqual([{ file: "config.json", path: "relays[1]", problem: expect.any(String) }]);
  });

  it("an embedded relay origin that is not an origin, an unknown auth mode", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { j.embeddedRelay = { allowedOrigins: ["https://tenex.chat/app"], auth: "sometimes" }; });
    const err = await loadError(dir);
    expect(err.issues.map((i) => i.path).sort()).toEqual(["embeddedRelay.allowedOrigins[0]", "embeddedRelay.auth"]);
    expect(err.message).toContain('must be an origin such as "https://tenex.chat"');
    expect(err.message).toContain('must be one of "reads", "all", "off"');
  });

  it("a relayAuth.signer that names no agent, or the owner without the owner's key", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { j.relayAuth = { signer: "nobody" }; });
    expect((await loadError(dir)).message).toBe(
      'config.json: relayAuth.signer: must be an agent\'s slug from agents.json ("orchestrator", "planner", "coder", "reviewer") or "owner" (got "nobody")');
    edit(dir, "config.json", (j) => { j.relayAuth = { signer: "owner" }; j.project.owner = { pubkey: newKey().pubkey }; });
    expect((await loadError(dir)).message).toContain("relayAuth.signer: \"owner\" needs the owner's key: set project.owner.keyFile");
  });

  it("two orchestrators, or none", async () => {
    const dir = await exampleProject();
    edit(dir, "agents.json", (j) => { j.agents[2].orchestrator = true; });
    expect((await loadError(dir)).message).toBe(
      'agents.json: agents[2].orchestrator: agents[0] is already the orchestrator: exactly one agent may have "orchestrator": true');
    edit(dir, "agents.json", (j) => { for (const a of j.agents) delete a.orchestrator; });
    expect((await loadError(dir)).message).toContain('agents.json: agents: no agent is the orchestrator: set "orchestrator": true on exactly one agent');
  });

  it("a malformed pubkey, and a pubkey that does not match the agent's key", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { j.whitelist = ["abc123"]; });
    const bad = await loadError(dir);
    expect(bad.message).toContain('config.json: whitelist[0]: must be a 64-character hex public key or an npub1… key');
    expect(bad.message).toContain('(got "abc123")');

    edit(dir, "config.json", (j) => { j.whitelist = []; });
    edit(dir, "agents.json", (j) => { j.agents[1].pubkey = newKey().pubkey; });
    const mismatch = await loadError(dir);
    expect(mismatch.message).toMatch(/^agents\.json: agents\[1\]\.pubkey: does not match the agent's key \(whose public key is npub1\w+\): correct "pubkey"/);
  });

  it("an unknown field (a typo) at the top level and nested", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => { j.relay = j.relays; delete j.relays; });
    const top = await loadError(dir);
    expect(top.message).toMatch(/^config\.json: unknown field "relay" \(did you mean "relays"\?\): allowed fields are "project", "whitelist", "relays"/);

    edit(dir, "config.json", (j) => { j.relays = j.relay; delete j.relay; j.limits.maxTag = 5; });
    expect((await loadError(dir)).message).toContain('config.json: limits: unknown field "maxTag" (did you mean "maxTags"?)');

    edit(dir, "config.json", (j) => { delete j.limits.maxTag; });
    edit(dir, "agents.json", (j) => { j.agents[3].backend.timeout = 5; });
    expect((await loadError(dir)).message).toContain('agents.json: agents[3].backend: unknown field "timeout"');
  });

  it("a key file readable by others is refused with the chmod that fixes it", async () => {
    const dir = await exampleProject();
    const file = join(dir, ".tenex/keys/planner.nsec");
    chmodSync(file, 0o644);
    expect((await loadError(dir)).message).toBe(
      `agents.json: agents[1].key.file: key file is accessible to other users (mode 0644): run \`chmod 600 ${file}\``);
    chmodSync(file, 0o600);
    await expect(loadProject(dir, {})).resolves.toBeDefined();
  });

  it("a missing key file points to `tenexd keys`", async () => {
    const dir = await exampleProject();
    rmSync(join(dir, ".tenex/keys/owner.nsec"));
    expect((await loadError(dir)).message).toContain("config.json: project.owner.keyFile: key file is missing: run `tenexd keys`");
  });

  it("paths that leave .tenex/ (key files, owner key, command arguments)", async () => {
    const dir = await exampleProject();
    edit(dir, "agents.json", (j) => {
      j.agents[0].key = { file: "../outside.nsec" };
      j.agents[1].key = { file: "keys/../../x.nsec" };
      j.agents[2].backend.command = ["node", "../agents/coder.mjs"];
    });
    edit(dir, "config.json", (j) => { j.project.owner = { keyFile: "/etc/owner.nsec" }; });
    const err = await loadError(dir);
    expect(err.issues.map((i) => `${i.file}: ${i.path}`)).toEqual([
      "config.json: project.owner.keyFile", "agents.json: agents[0].key.file", "agents.json: agents[1].key.file", "agents.json: agents[2].backend.command[1]",
    ]);
    expect(err.message).toMatch(/^4 problems in .*\.tenex:\n {2}config\.json: project\.owner\.keyFile: must be a path relative to \.tenex\/ that stays inside it, e\.g\. "keys\/agent\.nsec" \(got "\/etc\/owner\.nsec"\)\n/);
    expect(err.message).toContain('agents.json: agents[0].key.file: must be a path relative to .tenex/ that stays inside it, e.g. "keys/agent.nsec" (got "../outside.nsec")');
    expect(err.message).toContain("agents.json: agents[2].backend.command[1]: a relative path must stay inside .tenex/");
  });

  it("other shapes: api host, both owner forms, wrong types, invalid JSON, no .tenex", async () => {
    const dir = await exampleProject();
    edit(dir, "config.json", (j) => {
      j.api.host = "0.0.0.0";
      j.heartbeatSeconds = "15";
      j.dialect = "kind11";
      j.project.owner.pubkey = newKey().pubkey;
      delete j.project.title;
    });
    const err = await loadError(dir);
    expect(err.message).toContain('config.json: project.title: is required: add "title"');
    expect(err.message).toContain('config.json: project.owner: set exactly one of "pubkey" or "keyFile"');
    expect(err.message).toContain('config.json: api.host: must be "127.0.0.1"');
    expect(err.message).toContain('config.json: heartbeatSeconds: must be a number (got string "15")');
    expect(err.message).toContain('config.json: dialect: must be one of "auto", "nip22", "kind1"');

    writeFileSync(join(dir, ".tenex/config.json"), "{ \"project\": ");
    expect((await loadError(dir)).message).toMatch(/^config\.json: is not valid JSON: /);

    rmSync(join(dir, ".tenex/agents.json"));
    expect((await loadError(dir)).message).toMatch(/\n {2}agents\.json: not found in .*\.tenex: create it/);

    rmSync(join(dir, ".tenex"), { recursive: true });
    expect((await loadError(dir)).message).toBe(`.tenex: not found in ${dir}: run \`tenexd init\` there, or pass --project DIR`);
  });

  it("two agents sharing one key, and a duplicate slug", async () => {
    const dir = await exampleProject();
    edit(dir, "agents.json", (j) => { j.agents[3].key = { file: "keys/coder.nsec" }; });
    expect((await loadError(dir)).message).toBe("agents.json: agents[3].key: is the same key as agents[2]'s: every agent needs its own key");
    edit(dir, "agents.json", (j) => { j.agents[3].slug = "coder"; });
    expect((await loadError(dir)).message).toBe('agents.json: agents[3].slug: "coder" is already used by agents[2]: slugs must be unique');
  });
});
