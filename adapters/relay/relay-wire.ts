// The embedded relay's options and figures as they cross the IPC channel to its own process
// (structured-clone-free JSON: sets travel as arrays).

import type { RelayGuardOptions } from "./embedded-relay.js";

export type GuardWire = Omit<RelayGuardOptions, "access" | "trusted"> & {
  access?: { auth: NonNullable<RelayGuardOptions["access"]>["auth"]; members?: string[] };
  trusted?: string[];
};

export function guardToWire(g: RelayGuardOptions): GuardWire {
  const { access, trusted, ...rest } = g;
  return {
    ...rest,
    ...(access ? { access: { auth: access.auth, ...(access.members ? { members: [...access.members] } : {}) } } : {}),
    ...(trusted ? { trusted: [...trusted] } : {}),
  };
}

export function guardFromWire(w: GuardWire): RelayGuardOptions {
  const { access, trusted, ...rest } = w;
  return {
    ...rest,
    ...(access ? { access: { auth: access.auth, ...(access.members ? { members: new Set(access.members) } : {}) } } : {}),
    ...(trusted ? { trusted: new Set(trusted) } : {}),
  };
}

/** Parent → relay process. The first carries the listening socket. */
export type ToRelay = { type: "start"; dbPath: string; guard: GuardWire } | { type: "stop" };
/** Relay process → parent. */
export type FromRelay = { type: "ready"; url: string; port: number } | { type: "stats"; stats: unknown } | { type: "failed"; error: string };
