// The relay as a child process: READY on stdout, survives SIGKILL with its data, stops on SIGTERM;
// open by default, guarded with flags.

import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { newKey, sign } from "../helpers/events.js";
import { parseRelayArgs, UsageError } from "../../adapters/relay/relay-main-args.js";
import { publishRaw, queryRaw, spawnRelay } from "../helpers/relay.js";

const RELAY_MAIN = resolve(import.meta.dirname, "../../dist/adapters/relay/relay-main.js");

describe("relay-main child process", () => {
  it("prints READY, is SIGKILLed and restarts on the same port with its data", async () => {
    const relay = await spawnRelay();
    try {
      expect(relay.url).toBe(`ws://127.0.0.1:${relay.port}`);
      const key = newKey();
      const before = sign(key, 11, "stored before the crash");
      expect((await publishRaw(relay.url, before)).accepted).toBe(true);

      const firstPid = relay.pid();
      await relay.kill("SIGKILL");
      await expect(publishRaw(relay.url, sign(key, 1, "nobody home"))).rejects.toThrow();

      await relay.restart();
      expect(relay.pid()).not.toBe(firstPid);
      const after = sign(key, 1111, "stored after the restart");
      expect((await publishRaw(relay.url, after)).accepted).toBe(true);
      const ids = (await queryRaw(relay.url, { authors: [key.pubkey] })).map((e) => e.id);
      expect(ids.sort()).toEqual([before.id, after.id].sort());
    } finally {
      await relay.close();
      rmSync(dirname(relay.dbPath), { recursive: true, force: true });
    }
  });

  it("exits 0 on SIGTERM", async () => {
    const relay = await spawnRelay();
    const pid = relay.pid()!;
    expect(await relay.kill("SIGTERM")).toEqual({ code: 0, signal: null });
    // The process is gone: signalling it now fails.
    expect(() => process.kill(pid, 0)).toThrow();
    rmSync(dirname(relay.dbPath), { recursive: true, force: true });
  });

  it("refuses to start without a database path, saying which flag is missing", async () => {
    const child = spawn(process.execPath, [RELAY_MAIN, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--db/);
  });
});

describe("relay-main's protection flags", () => {
  it("turn on the daemon's protections: members only, AUTH before reads, limits", async () => {
    const member = newKey();
    const relay = await spawnRelay({ flags: ["--members", member.pubkey, "--max-event-bytes", "8192", "--allowed-origins", ""] });
    try {
      const theirs = sign(newKey(), 11, "a stranger");
      expect(await publishRaw(relay.url, theirs)).toEqual({ accepted: false, message: expect.stringMatching(/^restricted:/) });
      const mine = sign(member, 11, "a member");
      expect((await publishRaw(relay.url, mine)).accepted).toBe(true);
      await expect(queryRaw(relay.url, { ids: [mine.id] })).rejects.toThrow(/auth-required:/);
      expect((await queryRaw(relay.url, { ids: [mine.id] }, { auth: member.sk })).map((e) => e.id)).toEqual([mine.id]);
    } finally {
      await relay.close();
      rmSync(dirname(relay.dbPath), { recursive: true, force: true });
    }
  });

  it("refuse a bad value naming the flag", () => {
    expect(() => parseRelayArgs(["--db", "x", "--members", "npub1nope"], {})).toThrow(/--members takes 64-hex public keys/);
    expect(() => parseRelayArgs(["--db", "x", "--auth", "sometimes"], {})).toThrow(/--auth must be one of reads, all, off/);
    expect(() => parseRelayArgs(["--db", "x", "--max-event-bytes", "0"], {})).toThrow(/--max-event-bytes must be a positive integer/);
    expect(() => parseRelayArgs(["--db", "x", "--no-such-flag"], {})).toThrow(UsageError);
    expect(parseRelayArgs(["--db", "x"], {}).guard).toEqual({});
    expect(parseRelayArgs(["--db", "x", "--max-event-bytes", "1000"], {}).guard).toMatchObject({
      maxEventBytes: 1000, connections: { maxConnections: 128 }, client: { maxSubscriptions: 64 }, inboundBytesPerSecond: 4 * 1024 * 1024,
    });
  });
});
