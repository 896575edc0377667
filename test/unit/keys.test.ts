import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { nsecEncode } from "nostr-tools/nip19";
import { afterEach, describe, expect, it } from "vitest";
import { createKeyFile, readKeyFile, KeyFileError } from "../../daemon/config/index.js";
import { generateProjectKeys } from "../../daemon/config/keys.js";
import { newKey } from "../helpers/events.js";

const EXAMPLE = join(import.meta.dirname, "../../.tenex.example");
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tenexd-keys-"));
  dirs.push(dir);
  return dir;
}

function exampleProject(): string {
  const dir = tempDir();
  cpSync(EXAMPLE, join(dir, ".tenex"), { recursive: true, filter: (f) => extname(f) !== ".nsec" });
  return dir;
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe("generateProjectKeys (tenexd keys)", () => {
  it("creates every missing key file as one nsec line, mode 0600, even with umask 000", async () => {
    const dir = exampleProject();
    const previous = process.umask(0);
    try {
      const rows = await generateProjectKeys(dir, {});
      expect(rows.map((r) => [r.who, r.status, r.source])).toEqual([
        ["owner", "created", "keys/owner.nsec"],
        ["orchestrator", "created", "keys/orchestrator.nsec"],
        ["planner", "created", "keys/planner.nsec"],
        ["coder", "created", "keys/coder.nsec"],
        ["reviewer", "created", "keys/reviewer.nsec"],
      ]);
    } finally {
      process.umask(previous);
    }
    const keysDir = join(dir, ".tenex/keys");
    expect(mode(keysDir)).toBe(0o700);
    for (const f of readdirSync(keysDir)) {
      expect(mode(join(keysDir, f))).toBe(0o600);
      expect(readFileSync(join(keysDir, f), "utf8")).toMatch(/^nsec1[02-9ac-hj-np-z]{58}\n$/);
    }
  });

  it("never overwrites an existing key: a second run reads and reports the same keys", async () => {
    const dir = exampleProject();
    const mine = newKey();
    mkdirSync(join(dir, ".tenex/keys"), { mode: 0o700 });
    const coderFile = join(dir, ".tenex/keys/coder.nsec");
    writeFileSync(coderFile, `${Buffer.from(mine.sk).toString("hex")}\n`, { mode: 0o600 });

    const first = await generateProjectKeys(dir, {});
    expect(first.find((r) => r.who === "coder")).toMatchObject({ status: "existing", pubkey: mine.pubkey });
    const before = readdirSync(join(dir, ".tenex/keys")).map((f) => readFileSync(join(dir, ".tenex/keys", f), "utf8"));

    const second = await generateProjectKeys(dir, {});
    expect(second.map((r) => r.status)).toEqual(["existing", "existing", "existing", "existing", "existing"]);
    expect(second.map((r) => r.pubkey)).toEqual(first.map((r) => r.pubkey));
    const after = readdirSync(join(dir, ".tenex/keys")).map((f) => readFileSync(join(dir, ".tenex/keys", f), "utf8"));
    expect(after).toEqual(before);
    expect(readFileSync(coderFile, "utf8")).toBe(`${Buffer.from(mine.sk).toString("hex")}\n`);
  });

  it("reports, without fixing, an existing key that others can read", async () => {
    const dir = exampleProject();
    await generateProjectKeys(dir, {});
    const file = join(dir, ".tenex/keys/reviewer.nsec");
    chmodSync(file, 0o644);
    const row = (await generateProjectKeys(dir, {})).find((r) => r.who === "reviewer");
    expect(row).toMatchObject({ status: "error", problem: `key file is accessible to other users (mode 0644): run \`chmod 600 ${file}\`` });
    expect(mode(file)).toBe(0o644);
  });

  it("does not invent a key for an agent whose pubkey is pinned, nor for an environment key", async () => {
    const dir = exampleProject();
    const pinned = newKey();
    const agentsFile = join(dir, ".tenex/agents.json");
    const json = JSON.parse(readFileSync(agentsFile, "utf8"));
    json.agents[1].pubkey = pinned.pubkey;
    json.agents[2].key = { env: "CODER_NSEC" };
    writeFileSync(agentsFile, JSON.stringify(json));

    const rows = await generateProjectKeys(dir, { CODER_NSEC: nsecEncode(pinned.sk) });
    expect(rows.find((r) => r.who === "planner")).toMatchObject({ status: "error", problem: expect.stringContaining("restore the key file") });
    expect(rows.find((r) => r.who === "coder")).toMatchObject({ status: "env", source: "env:CODER_NSEC", pubkey: pinned.pubkey });
    expect(readdirSync(join(dir, ".tenex/keys")).sort()).toEqual(["orchestrator.nsec", "owner.nsec", "reviewer.nsec"]);

    const unset = await generateProjectKeys(dir, {});
    expect(unset.find((r) => r.who === "coder")).toMatchObject({ status: "error", problem: expect.stringContaining("CODER_NSEC is not set") });
  });
});

describe("key files", () => {
  it("createKeyFile refuses to replace an existing file", async () => {
    const file = join(tempDir(), "keys/a.nsec");
    const sk = await createKeyFile(file);
    await expect(createKeyFile(file)).rejects.toMatchObject({ code: "EEXIST" });
    expect(await readKeyFile(file)).toEqual(sk);
  });

  it("readKeyFile accepts nsec or hex, and refuses garbage and loose permissions", async () => {
    const dir = tempDir();
    const k = newKey();
    const hexFile = join(dir, "hex.key");
    writeFileSync(hexFile, Buffer.from(k.sk).toString("hex").toUpperCase(), { mode: 0o600 });
    expect(await readKeyFile(hexFile)).toEqual(k.sk);

    const junk = join(dir, "junk.key");
    writeFileSync(junk, "nsec1notakey\n", { mode: 0o400 });
    await expect(readKeyFile(junk)).rejects.toMatchObject({ fault: "invalid" });

    const loose = join(dir, "loose.key");
    writeFileSync(loose, nsecEncode(k.sk), { mode: 0o600 });
    chmodSync(loose, 0o640);
    const err = await readKeyFile(loose).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeyFileError);
    expect(err).toMatchObject({ fault: "permissions", problem: expect.stringContaining(`chmod 600 ${loose}`) });

    await expect(readKeyFile(join(dir, "none.key"))).rejects.toMatchObject({ fault: "missing" });
  });
});
