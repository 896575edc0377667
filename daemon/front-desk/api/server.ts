// The local HTTP API (docs/api.md): node:http on the loopback address only, every request
// carrying a bearer token: the owner's from `.tenex/daemon.token`, or a mailbox agent's from
// `.tenex/tokens/<slug>.token` (which acts as that agent only). JSON in and out, errors as
// `{ "error": { "code", "message" } }`. After listening it writes the tokens and the actual port
// into .tenex/ for the CLI and the agents; stopping removes them.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../logger.js";
import { readJsonBody } from "./body.js";
import { ApiError, toApiError, type ErrorBody } from "./errors.js";
import { readRoutes } from "./routes-read.js";
import { routeQuery, Router } from "./router.js";
import { writeRoutes } from "./routes-write.js";
import { apiServices, type ApiServices } from "./services.js";
import type { EnginePorts } from "../../../src/ports.js";
import type { LoadedProject } from "../../config/index.js";
import type { AgentDirectory } from "../reads/agent-directory.js";
import { authorise, Credentials } from "./access.js";
import { apiFiles, bearerToken, newToken, removeFile, writeAgentTokens, writePrivateFile } from "./token.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export class ApiServer {
  private constructor(
    private readonly server: Server,
    private readonly services: ApiServices,
    private readonly files: { token: string; port: string; agents: string[] },
    readonly port: number,
  ) {}

  /** Listens beside the running engine, on its ports. */
  static async start(ports: EnginePorts, project: LoadedProject, logger: Logger): Promise<ApiServer> {
    const { host, port } = project.config.api;
    const services = apiServices(ports, project);
    const router = new Router([...readRoutes(services), ...writeRoutes(services)]);
    const token = newToken();
    // One token per mailbox agent (command agents never call the API: the daemon runs them).
    const agentTokens = new Map(project.agents.filter((a) => a.backend.type === "mailbox").map((a) => [a.slug, newToken()]));
    const agents = services.actions.reads.agents;
    const credentials = new Credentials(token, agentTokens, agents);
    const server = createServer((req, res) => void handle(req, res, { router, credentials, agents, logger }));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      services.close();
      if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
        throw new Error(`the API cannot listen on ${host}:${port}: the port is in use (set api.port in config.json to a free port, or 0 for any)`);
      }
      throw err;
    }
    const actual = (server.address() as AddressInfo).port;
    const files = apiFiles(project.tenexDir);
    // Tokens first: a client that finds the port file can read the matching token.
    writePrivateFile(files.token, `${token}\n`);
    const agentFiles = writeAgentTokens(project.tenexDir, agentTokens);
    writePrivateFile(files.port, `${actual}\n`);
    logger.info("api listening", { url: `http://${host}:${actual}`, agentTokens: agentTokens.size });
    return new ApiServer(server, services, { token: files.token, port: files.port, agents: agentFiles }, actual);
  }

  /** Stops listening, drops open connections, removes the port and token files. Idempotent. */
  async stop(): Promise<void> {
    removeFile(this.files.port);
    removeFile(this.files.token);
    for (const file of this.files.agents) removeFile(file);
    if (this.server.listening) {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeAllConnections();
      await closed;
    }
    this.services.close();
  }
}

interface Handling {
  router: Router;
  credentials: Credentials;
  agents: AgentDirectory;
  logger: Logger;
}

async function handle(req: IncomingMessage, res: ServerResponse, { router, credentials, agents, logger }: Handling): Promise<void> {
  try {
    // Bound to loopback already; this also refuses a browser page that reaches 127.0.0.1
    // through a hostile DNS name (DNS rebinding): its Host header names that domain.
    if (!LOOPBACK.has(req.socket.remoteAddress ?? "")) throw new ApiError(403, "forbidden", "the API answers on loopback only");
    if (!isLoopbackHost(req.headers.host)) throw new ApiError(403, "forbidden", `Host ${req.headers.host ?? "(none)"} is not a loopback address`);
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined) {
      throw new ApiError(401, "unauthorized", "missing bearer token: send Authorization: Bearer <the token in .tenex/daemon.token>");
    }
    const who = credentials.principal(presented);
    if (!who) {
      throw new ApiError(401, "unauthorized", "wrong bearer token (new ones are written at every start: the owner's to .tenex/daemon.token, each mailbox agent's to .tenex/tokens/<slug>.token)");
    }
    const url = new URL(req.url ?? "/", "http://localhost");
    const { route, params } = router.match(req.method ?? "GET", url.pathname);
    const query = routeQuery(route, url.searchParams);
    const body = req.method === "POST" ? await readJsonBody(req) : {};
    authorise(route, who, { params, query, body }, agents);
    const result = await route.handler({ params, query, body });
    send(res, route.created ? 201 : 200, result);
  } catch (err) {
    const e = toApiError(err);
    if (e.code === "internal") logger.error("api request failed", { method: req.method, url: req.url, err });
    else if (e.status >= 500) logger.warn("api request refused", { method: req.method, url: req.url, code: e.code, detail: e.message });
    const body: ErrorBody = { error: { code: e.code, message: e.message } };
    // A refused upload: answer, then close, rather than read the rest of a huge body.
    if (e.status === 413) res.setHeader("connection", "close");
    send(res, e.status, body);
  }
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.split(":")[0];
  return name === "127.0.0.1" || name === "localhost" || name === "::1";
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}
