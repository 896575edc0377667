// The configuration module's public face: the daemon and the CLI import from here.

export { loadProject } from "./load-project.js";
export { readProjectFiles, TENEX_DIR, CONFIG_FILE, AGENTS_FILE } from "./read-project-files.js";
export { resolveAgentKey, resolveOwnerKey, type Env, type KeyResult } from "./resolve-keys.js";
export { ConfigError, formatIssue, type ConfigIssue } from "./errors.js";
export { KeyFileError, type KeyFileFault, createKeyFile, readKeyFile, parseSecretKey, shellQuote } from "./key-file.js";
export type { Limits } from "./config-schema.js";
export type * from "./types.js";
