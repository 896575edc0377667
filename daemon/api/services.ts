// What the routes work with: the reads (the same ones the CLI uses without a daemon), the
// daemon's parts for changes, and the status.

import type { Daemon } from "../daemon.js";
import { directorStatus, type DaemonStatus } from "../status.js";
import { AgentDirectory } from "../services/agent-directory.js";
import { openIndexReader } from "../services/index-reader.js";
import { KeyedMutex } from "../services/keyed-mutex.js";
import type { LiveDeps } from "../services/live-deps.js";
import { readContext } from "../services/read-context.js";
import { Reads } from "../services/reads.js";

export interface ApiServices {
  reads: Reads;
  live: LiveDeps;
  status(): Promise<DaemonStatus>;
  close(): void;
}

export function apiServices(d: Daemon): ApiServices {
  const reader = openIndexReader(d.index.path);
  const ctx = readContext({
    reader, agents: new AgentDirectory(d.project.info), limits: d.project.config.limits,
    load: (id) => d.store.get(id), now: () => d.clock.now(), entities: d.entities,
  });
  return {
    reads: new Reads(ctx),
    live: {
      project: d.project, store: d.store, queues: d.queues, route: d.route, clock: d.clock, cache: d.cache,
      reads: ctx, pairs: new KeyedMutex(),
    },
    status: () => directorStatus(d),
    close: () => reader.close(),
  };
}
