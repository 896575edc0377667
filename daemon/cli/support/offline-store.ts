// The project's log and index opened for writing by a CLI command (reindex, import) while no
// daemon runs: the command takes the daemon's pid lock, so a daemon cannot start meanwhile and
// the command cannot run beside one.

import { join } from "node:path";
import { FileConversationLog } from "../../../adapters/fs-log/index.js";
import type { SqliteIndex } from "../../../adapters/sqlite-index/index.js";
import type { LoadedProject } from "../../config/index.js";
import { openIndex } from "../../engine/recovery/index-open.js";
import { acquirePidLock, ProjectLockedError } from "../../pid-lock.js";
import { projectRecipients, type RecipientsOf } from "../../../src/messaging/recipients.js";
import { CliError, EXIT } from "../errors.js";

export interface OfflineStore {
  log: FileConversationLog;
  index: SqliteIndex;
  /** Who a message is for, as the project's index stores it. */
  recipientsOf: RecipientsOf;
  /** Problems the log reported (quarantined files, strays). */
  problems: string[];
  close(): Promise<void>;
}

export function openOfflineStore(project: LoadedProject, what: string): OfflineStore {
  let release: () => void;
  try {
    release = acquirePidLock(join(project.tenexDir, "daemon.pid"));
  } catch (err) {
    if (err instanceof ProjectLockedError) {
      throw new CliError(`a tenexd (pid ${err.pid}) is running on this project: stop it before ${what} (\`tenexd stop\`, or \`kill ${err.pid}\`)`, "project_locked", EXIT.LOCKED);
    }
    throw err;
  }
  const problems: string[] = [];
  try {
    const log = new FileConversationLog(project.tenexDir, { onProblem: (p) => problems.push(`${p.kind} ${p.id}: ${p.detail}`) });
    const { index } = openIndex({ path: join(project.tenexDir, "index.sqlite") }, Date.now());
    return {
      log, index, recipientsOf: projectRecipients(project.info), problems,
      close: async () => {
        await log.close();
        index.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
