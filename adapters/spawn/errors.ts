// The error alone, so that the CLI's error mapping (daemon/cli/errors.ts) loads no spawner with it.

/** TENEXD_SPAWNER names no spawner (spawner-choice.ts); a configuration error (exit 2). */
export class SpawnerChoiceError extends Error {
  override name = "SpawnerChoiceError";
}
