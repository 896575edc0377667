// The embedded relay in a process of its own (relay-main.ts --ipc), started by the daemon. The
// daemon binds the listening socket itself, so the relay's url is known at once and connections
// made while the relay boots wait in the socket's backlog, then hands the socket over. The relay
// process holds no secret key; what strangers send is parsed there, not next to the agents' keys,
// and its memory is not the daemon's. It exits with the daemon (its IPC channel closes); if it
// dies on its own it is started again on the same port, with a growing delay.

import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import type { EmbeddedRelay, RelayGuardOptions } from "./embedded-relay.js";
import { guardToWire, type FromRelay, type ToRelay } from "./relay-wire.js";
import type { EmbeddedRelayStats } from "../../src/daemon-status.js";

const RELAY_MAIN = fileURLToPath(new URL("./relay-main.js", import.meta.url));
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;
const RESTART_DELAYS_MS = [250, 1_000, 5_000, 30_000];

export interface RelayProcessOptions {
  host: string;
  port: number;
  dbPath: string;
  guard: RelayGuardOptions;
  /** A line the relay process wrote on stderr. */
  onLog?(line: string): void;
  /** The relay process ended without being asked to; it is started again. */
  onExit?(detail: string): void;
}

export interface RelayProcess extends EmbeddedRelay {
  pid(): number | undefined;
}

/** Resolves once the relay process is serving; rejects if it cannot start. */
export async function startRelayProcess(o: RelayProcessOptions): Promise<RelayProcess> {
  const p = new RelayChild(o);
  await p.start(o.port);
  return p;
}

class RelayChild implements RelayProcess {
  url = "";
  port = 0;
  private child: ChildProcess | undefined;
  private last: EmbeddedRelayStats | undefined;
  private restartCount = 0;
  private stopping: Promise<void> | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: RelayProcessOptions) {}

  pid(): number | undefined {
    return this.child?.pid;
  }

  /** The figures the relay process last sent (every 500 ms when they change). */
  stats(): EmbeddedRelayStats {
    const last = this.last ?? { connections: 0, authenticated: 0, accepted: 0, refused: {} as EmbeddedRelayStats["refused"], limits: null, auth: null };
    return { ...last, process: { pid: this.child?.pid ?? null, restarts: this.restartCount } };
  }

  close(): Promise<void> {
    this.stopping ??= this.stop();
    return this.stopping;
  }

  async start(port: number): Promise<void> {
    const server = await bind(this.o.host, port);
    this.port = (server.address() as AddressInfo).port;
    this.url = `ws://${this.o.host}:${this.port}`;
    const child = spawn(process.execPath, [RELAY_MAIN, "--ipc"], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
    this.child = child;
    let err = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      err = (err + chunk).slice(-4_000);
      for (const line of chunk.split("\n")) if (line.trim()) this.o.onLog?.(line);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the relay process was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
        const settle = (fail?: Error) => {
          clearTimeout(timer);
          if (fail) reject(fail);
          else resolve();
        };
        child.on("message", (m: FromRelay) => {
          if (m.type === "ready") settle();
          else if (m.type === "failed") settle(new Error(`the relay process could not start: ${m.error}`));
          else if (m.type === "stats") this.last = m.stats as EmbeddedRelayStats;
        });
        child.once("exit", (code, signal) => settle(new Error(`the relay process exited (${code ?? signal}) before it was ready: ${err.trim()}`)));
        child.once("error", (e) => settle(e));
        // Once handed over, the daemon's copy of the socket is closed: the relay process's copy
        // keeps listening, and connections made while it boots wait in the backlog.
        child.send({ type: "start", dbPath: this.o.dbPath, guard: guardToWire(this.o.guard) } satisfies ToRelay, server, (e) => {
          server.close();
          if (e) settle(e);
        });
      });
    } catch (e) {
      if (server.listening) server.close();
      child.kill("SIGKILL");
      throw e;
    }
    child.once("exit", (code, signal) => this.exited(child, `exit ${code ?? signal}: ${err.trim().slice(-500)}`));
  }

  private exited(child: ChildProcess, detail: string): void {
    if (this.stopping || child !== this.child) return;
    this.o.onExit?.(detail);
    this.restartLater();
  }

  /** Starts the relay process again after a delay that grows with each attempt. */
  private restartLater(): void {
    const delay = RESTART_DELAYS_MS[Math.min(this.restartCount, RESTART_DELAYS_MS.length - 1)]!;
    this.restartCount++;
    this.restartTimer = setTimeout(() => {
      this.start(this.port).catch((e: unknown) => {
        if (this.stopping) return;
        this.o.onExit?.(`could not start it again: ${e instanceof Error ? e.message : String(e)}`);
        this.restartLater();
      });
    }, delay);
  }

  private async stop(): Promise<void> {
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    if (child.connected) child.send({ type: "stop" } satisfies ToRelay);
    else child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await gone;
    clearTimeout(timer);
  }
}

// A relay process of a daemon that was just SIGKILLed can hold a fixed port a moment longer (it
// exits when it notices its channel closed).
const BIND_RETRY_MS = 5_000;

/** A socket listening on host:port (0: any free port); connections it would accept itself are dropped. */
async function bind(host: string, port: number): Promise<Server> {
  const until = Date.now() + BIND_RETRY_MS;
  for (;;) {
    try {
      return await listenOnce(host, port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE" || port === 0 || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function listenOnce(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy());
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}
