// Configuration errors: every problem names its file, the field and how to fix it, so the
// CLI can print it verbatim (no stack trace) and exit 2.

/** One problem in one configuration file. */
export interface ConfigIssue {
  /** File name inside .tenex/ ("config.json", "agents.json"). */
  file: string;
  /** Field path, e.g. `relays[1]` or `agents[0].key.file`; "" for the file as a whole. */
  path: string;
  /** What is wrong and how to fix it. */
  problem: string;
}

export const formatIssue = (i: ConfigIssue): string =>
  `${i.file}: ${i.path === "" ? "" : `${i.path}: `}${i.problem}`;

export class ConfigError extends Error {
  override name = "ConfigError";
  readonly code = "config_invalid";

  constructor(readonly tenexDir: string, readonly issues: readonly ConfigIssue[]) {
    const lines = issues.map(formatIssue);
    super(issues.length === 1 ? lines[0] : `${issues.length} problems in ${tenexDir}:\n  ${lines.join("\n  ")}`);
  }
}

/** Field paths as people write them: `agents[0].key.file`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out;
}
