// How agents' programs are started: posix_spawn when the native module built, else
// child_process with the reason; TENEXD_SPAWNER forces the fallback; anything else is refused.

import { describe, expect, it } from "vitest";
import { findProgram } from "../../adapters/spawn/find-program.js";
import { forkSpawn } from "../../adapters/spawn/fork-spawn.js";
import { loadNativeSpawn } from "../../adapters/spawn/native-spawn.js";
import { chooseSpawner, SpawnerChoiceError, spawnerText } from "../../adapters/spawn/spawner-choice.js";

describe("chooseSpawner", () => {
  it("picks posix-spawn here (npm ci builds native/spawn), with no fallback reason", () => {
    // Not skipped when the module is missing: this project's install builds it, and a missing build is what this catches.
    const native = loadNativeSpawn();
    expect("reason" in native ? native.reason : "loaded").toBe("loaded");
    const c = chooseSpawner({});
    expect(c.backend).toBe("posix-spawn");
    expect(c.fallback).toBeUndefined();
    expect(c.spawn).not.toBe(forkSpawn);
    expect(spawnerText(c)).toBe("posix-spawn");
  });

  it("falls back to child-process when the module did not build, saying why", () => {
    const c = chooseSpawner({}, () => ({ reason: "native/spawn was not built at install" }));
    expect(c).toEqual({ backend: "child-process", fallback: "native/spawn was not built at install", spawn: forkSpawn });
    expect(spawnerText(c)).toBe("child-process (native spawner not used: native/spawn was not built at install)");
  });

  it("TENEXD_SPAWNER=child-process forces the fallback; an unknown value is refused naming the fix", () => {
    expect(chooseSpawner({ TENEXD_SPAWNER: "child-process" })).toEqual({ backend: "child-process", fallback: "TENEXD_SPAWNER=child-process", spawn: forkSpawn });
    expect(chooseSpawner({ TENEXD_SPAWNER: "posix-spawn" }).backend).toBe("posix-spawn");
    expect(() => chooseSpawner({ TENEXD_SPAWNER: "vfork" })).toThrow(SpawnerChoiceError);
    expect(() => chooseSpawner({ TENEXD_SPAWNER: "vfork" })).toThrow(/use posix-spawn or child-process, or unset it/);
  });
});

describe("findProgram", () => {
  it("finds a name as execvp does: the first executable file on PATH, skipping directories and missing entries", () => {
    expect(findProgram("sh", "/", "/no/such/dir:/usr:/bin")).toBe("/bin/sh");
    expect(findProgram("sh", "/", "/bin:/usr/bin")).toBe("/bin/sh");
  });

  it("takes a name with a slash as a path from the working directory, unchecked (exec reports it)", () => {
    expect(findProgram("./agent.sh", "/srv/agents", "/bin")).toBe("/srv/agents/agent.sh");
    expect(findProgram("/opt/x", "/srv", "/bin")).toBe("/opt/x");
  });

  it("says ENOENT when nothing is found, and an empty name finds nothing", () => {
    expect((findProgram("no-such-program-anywhere", "/", "/bin:/usr/bin") as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect((findProgram("", "/", "/bin") as NodeJS.ErrnoException).code).toBe("ENOENT");
  });
});
