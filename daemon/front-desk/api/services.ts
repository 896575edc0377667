// What the routes work with, from the engine's two ports (src/ports.ts): the reads (the same
// ones the CLI uses without a daemon), the actions that change things, and the status.

import type { EnginePorts } from "../../../src/ports.js";
import type { DaemonStatus } from "../../../src/daemon-status.js";
import type { LoadedProject } from "../../config/index.js";
import type { ActionDeps } from "../actions/action-deps.js";
import { AgentDirectory } from "../reads/agent-directory.js";
import { KeyedMutex } from "../actions/keyed-mutex.js";
import { readContext } from "../reads/read-context.js";
import { Reads } from "../reads/reads.js";

export interface ApiServices {
  reads: Reads;
  actions: ActionDeps;
  status(): Promise<DaemonStatus>;
  close(): void;
}

export function apiServices(ports: EnginePorts, project: LoadedProject): ApiServices {
  const ctx = readContext(ports.reads, new AgentDirectory(project.info), project.config.limits);
  return {
    reads: new Reads(ctx),
    actions: { project, commands: ports.commands, reads: ctx, pairs: new KeyedMutex() },
    status: () => ports.reads.status(),
    close: () => ports.reads.close(),
  };
}
