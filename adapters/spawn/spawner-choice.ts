// How agents' programs are started, chosen once at start: posix_spawn (native-spawn.ts) when its
// module built at install, else Node's child_process (fork-spawn.ts). Both give the same
// program the same pipes, environment, session and ends; the native one starts it without
// copying the daemon's address space. `tenexd status` and `tenexd doctor` show the choice and why
// the native one was passed over. TENEXD_SPAWNER=child-process forces the fallback (to compare
// them, or to rule the native module out); any other value is refused at start.

import type { SpawnProgram } from "./agent-process.js";
import { SpawnerChoiceError } from "./errors.js";
import { forkSpawn } from "./fork-spawn.js";
import { loadNativeSpawn } from "./native-spawn.js";

export const SPAWNER_BACKENDS = ["posix-spawn", "child-process"] as const;
export type SpawnerBackend = (typeof SPAWNER_BACKENDS)[number];

export interface SpawnerChoice {
  backend: SpawnerBackend;
  /** Why the native spawner is not the one running (absent when it is). */
  fallback?: string;
  spawn: SpawnProgram;
}

export const SPAWNER_ENV = "TENEXD_SPAWNER";

export { SpawnerChoiceError };

/** `loadNative` is the native module's loader (tests hand in a broken one). */
export function chooseSpawner(env: NodeJS.ProcessEnv = process.env, loadNative = loadNativeSpawn): SpawnerChoice {
  const asked = env[SPAWNER_ENV];
  if (asked !== undefined && asked !== "" && !(SPAWNER_BACKENDS as readonly string[]).includes(asked)) {
    throw new SpawnerChoiceError(`${SPAWNER_ENV}=${asked} is not a spawner: use ${SPAWNER_BACKENDS.join(" or ")}, or unset it`);
  }
  if (asked === "child-process") return { backend: "child-process", fallback: `${SPAWNER_ENV}=child-process`, spawn: forkSpawn };
  const native = loadNative();
  if ("reason" in native) return { backend: "child-process", fallback: native.reason, spawn: forkSpawn };
  return { backend: "posix-spawn", spawn: native.spawn };
}

/** One line for the status and doctor. */
export function spawnerText(c: Pick<SpawnerChoice, "backend" | "fallback">): string {
  return c.fallback === undefined ? c.backend : `${c.backend} (native spawner not used: ${c.fallback})`;
}

let chosen: SpawnerChoice | undefined;

/** This process's choice, made from its environment on first use (the engine's at start). */
export function defaultSpawner(): SpawnerChoice {
  return (chosen ??= chooseSpawner());
}
