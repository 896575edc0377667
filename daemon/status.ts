// The Director's view of a running daemon: one plain object, the same for the API, the CLI's
// `status` and the tests. Cheap to build: counters and in-memory state only, no log reads.

import type { Daemon } from "./daemon.js";

export function buildStatus(d: Daemon) {
  const now = d.clock.now();
  return {
    pid: process.pid,
    project: { coordinate: d.project.coordinate, title: d.project.config.project.title, dir: d.project.tenexDir },
    startedAt: d.startedAt,
    uptimeMs: now - d.startedAt,
    readyMs: d.readyAt !== undefined ? d.readyAt - d.startedAt : null,
    startup: d.startup,
    relays: d.gateway?.health() ?? [],
    embeddedRelay: d.embedded ? d.embedded.url : null,
    lastCatchup: d.sync?.lastCatchup ?? null,
    ingest: d.counters.snapshot(),
    queues: d.queues.depths(),
    store: d.store.stats(),
    agents: { ...d.runner.stats },
    outbox: d.outbox.status(),
    loops: d.loopStatus(),
    log: d.log.stats(),
    problems: [...d.problems],
  };
}

export type DaemonStatus = ReturnType<typeof buildStatus>;
