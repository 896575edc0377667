// `POST /api/v1/stop` (tenexd stop): the owner asks the daemon to stop, as SIGTERM would. The
// answer goes first; the stop starts once it is on the socket, since stopping closes the API's
// connections. Asking through the API, not with a signal: the caller holds the owner's token, so
// it reaches this daemon and no other process (a pid read from a lock left by a crash may be
// anybody's by now).

import type { Route } from "./router.js";

export interface StopAnswer {
  stopping: true;
  /** The daemon's process, which the caller may wait for. */
  pid: number;
}

export function stopRoute(requestStop: () => void): Route {
  return {
    method: "POST", path: "/api/v1/stop", ownerOnly: "stop the daemon",
    handler: async (): Promise<StopAnswer> => ({ stopping: true, pid: process.pid }),
    afterAnswer: requestStop,
  };
}
