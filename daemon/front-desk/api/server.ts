// The local HTTP API (docs/api.md): node:http on the loopback address only, every request
// carrying a bearer token: the owner's from `.tenex/daemon.token`, or a mailbox agent's from
// `.tenex/tokens/<slug>.token` (which acts as that agent only), or the session cookie of the
// Director's dashboard (docs/dashboard.md: its pages are served here too; Host and Origin are
// checked on every request, the CSRF token on every change the cookie carries). JSON in and out, errors as
// `{ "error": { "code", "message" } }`. After listening it writes the tokens and the actual port
// into .tenex/ for the CLI and the agents; stopping removes them.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../../logger.js";
import { readJsonBody } from "./body.js";
import { ApiError, toApiError, type ErrorBody } from "./errors.js";
import { readRoutes } from "./routes-read.js";
import { routeQuery, Router } from "./router.js";
import { stopRoute } from "./route-stop.js";
import { writeRoutes } from "./routes-write.js";
import { apiServices, type ApiServices } from "./services.js";
import type { EnginePorts } from "../../../src/ports.js";
import type { LoadedProject } from "../../config/index.js";
import type { AgentDirectory } from "../reads/agent-directory.js";
import { authorise, Credentials } from "./access.js";
import { apiFiles, bearerToken, newToken, removeFile, writeAgentTokens, writePrivateFile } from "./token.js";
import type { Principal } from "../../../src/api-access.js";
import { checkHost, checkOrigin, type WebCheck } from "../../../src/dashboard/web-access.js";
import { dashboardRoutes } from "../dashboard/dashboard-routes.js";
import { LiveStream } from "../dashboard/live-stream.js";
import { Sessions } from "../dashboard/sessions.js";
import { StaticFiles } from "../dashboard/static-files.js";
import { securityHeaders } from "../dashboard/web-headers.js";
import { WebPages } from "../dashboard/web-pages.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export interface ApiServerOptions {
  /**
   * Serving the read-only dashboard with no daemon (tenexd dashboard): listen on this port, write
   * no token or port file (no CLI may take this process for the daemon).
   */
  offline?: { port: number };
  /** Asked by `POST /api/v1/stop` (tenexd stop), once its answer is sent: the daemon stops as on SIGTERM. */
  requestStop?: () => void;
}

export class ApiServer {
  private constructor(
    private readonly server: Server,
    private readonly services: ApiServices,
    private readonly live: LiveStream,
    private readonly files: { token: string; port: string; agents: string[] } | undefined,
    readonly port: number,
    /** The dashboard's logins (login codes for `tenexd dashboard`, sessions). */
    readonly sessions: Sessions,
  ) {}

  /** Listens beside the running engine, on its ports. */
  static async start(ports: EnginePorts, project: LoadedProject, logger: Logger, opts: ApiServerOptions = {}): Promise<ApiServer> {
    const host = project.config.api.host;
    const port = opts.offline ? opts.offline.port : project.config.api.port;
    const services = apiServices(ports, project);
    const sessions = new Sessions();
    let actual = 0;
    const router = new Router([
      ...readRoutes(services), ...writeRoutes(services), ...dashboardRoutes(services, project, sessions, () => actual),
      ...(opts.requestStop ? [stopRoute(opts.requestStop)] : []),
    ]);
    const token = newToken();
    // One token per mailbox agent (command agents never call the API: the daemon runs them).
    const agentTokens = new Map(project.agents.filter((a) => a.backend.type === "mailbox").map((a) => [a.slug, newToken()]));
    const agents = services.actions.reads.agents;
    const credentials = new Credentials(token, opts.offline ? new Map() : agentTokens, agents);
    const readOnly = opts.offline !== undefined;
    const live = new LiveStream(readOnly ? {} : { changes: (l) => ports.reads.changes(l), status: () => ports.reads.status() }, readOnly);
    const web = new WebPages({ sessions, files: new StaticFiles(), port: () => actual, readOnly, projectTitle: project.config.project.title });
    const handling: Handling = { router, credentials, agents, logger, web, live, port: () => actual };
    const server = createServer((req, res) => void handle(req, res, handling));
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
      live.close();
      if ((err as NodeJS.ErrnoException).code === "EADDRINUSE") {
        const fix = readOnly ? "choose another with --port, or 0 for any" : "set api.port in config.json to a free port, or 0 for any";
        throw new Error(`the API cannot listen on ${host}:${port}: the port is in use (${fix})`);
      }
      throw err;
    }
    actual = (server.address() as AddressInfo).port;
    if (readOnly) {
      logger.info("read-only dashboard listening", { url: `http://${host}:${actual}` });
      return new ApiServer(server, services, live, undefined, actual, sessions);
    }
    const files = apiFiles(project.tenexDir);
    // Tokens first: a client that finds the port file can read the matching token.
    writePrivateFile(files.token, `${token}\n`);
    const agentFiles = writeAgentTokens(project.tenexDir, agentTokens);
    writePrivateFile(files.port, `${actual}\n`);
    logger.info("api listening", { url: `http://${host}:${actual}`, agentTokens: agentTokens.size });
    return new ApiServer(server, services, live, { token: files.token, port: files.port, agents: agentFiles }, actual, sessions);
  }

  /** Stops listening, drops open connections, removes the port and token files. Idempotent. */
  async stop(): Promise<void> {
    if (this.files) {
      removeFile(this.files.port);
      removeFile(this.files.token);
      for (const file of this.files.agents) removeFile(file);
    }
    this.live.close();
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
  web: WebPages;
  live: LiveStream;
  port: () => number;
}

async function handle(req: IncomingMessage, res: ServerResponse, h: Handling): Promise<void> {
  securityHeaders(res);
  try {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? "")) throw new ApiError(403, "forbidden", "the API answers on loopback only");
    // Bound to loopback already; this also refuses a browser page that reaches 127.0.0.1
    // through a hostile DNS name (DNS rebinding): its Host header names that domain.
    refuseUnless(checkHost(req.headers.host, h.port()));
    const method = req.method ?? "GET";
    const changes = method !== "GET" && method !== "HEAD";
    const presented = bearerToken(req.headers.authorization);
    // Another site's page may send requests here; the browser then says where from. A change
    // not carried by a bearer token (the cookie is sent by the browser itself) must say it.
    refuseUnless(checkOrigin(header(req, "origin"), req.headers.host!, changes && presented === undefined));
    const url = new URL(req.url ?? "/", "http://localhost");
    if (!url.pathname.startsWith("/api/")) {
      if (await h.web.handle(req, res, url.pathname)) return;
      throw new ApiError(404, "not_found", `no such page: ${url.pathname}`);
    }
    const who = principal(req, h, presented, changes);
    if (url.pathname === "/api/v1/events") {
      if (method !== "GET") throw new ApiError(405, "method_not_allowed", `${method} is not allowed on ${url.pathname}`);
      if (who.kind !== "owner") throw new ApiError(403, "owner_only", "only the owner may follow the live stream");
      h.live.attach(req, res, header(req, "last-event-id") ?? url.searchParams.get("lastEventId") ?? undefined);
      return;
    }
    const { route, params } = h.router.match(method, url.pathname);
    const query = routeQuery(route, url.searchParams);
    const body = method === "POST" ? await readJsonBody(req) : {};
    authorise(route, who, { params, query, body }, h.agents);
    const result = await route.handler({ params, query, body });
    if (route.afterAnswer) res.once("finish", route.afterAnswer);
    send(res, route.created ? 201 : 200, result);
  } catch (err) {
    const e = toApiError(err);
    if (e.code === "internal") h.logger.error("api request failed", { method: req.method, url: req.url, err });
    else if (e.status >= 500) h.logger.warn("api request refused", { method: req.method, url: req.url, code: e.code, detail: e.message });
    const body: ErrorBody = { error: { code: e.code, message: e.message } };
    // A refused upload: answer, then close, rather than read the rest of a huge body.
    if (e.status === 413) res.setHeader("connection", "close");
    if (res.headersSent) res.end();
    else send(res, e.status, body);
  }
}

/** Who asks: a bearer token's owner, or the owner through a dashboard session (its CSRF token checked on a change). */
function principal(req: IncomingMessage, h: Handling, presented: string | undefined, changes: boolean): Principal {
  if (presented !== undefined) {
    const who = h.credentials.principal(presented);
    if (!who) {
      throw new ApiError(401, "unauthorized", "wrong bearer token (new ones are written at every start: the owner's to .tenex/daemon.token, each mailbox agent's to .tenex/tokens/<slug>.token)");
    }
    return who;
  }
  const session = h.web.session(req);
  if (!session) {
    throw new ApiError(401, "unauthorized", "missing bearer token: send Authorization: Bearer <the token in .tenex/daemon.token> (or log in to the dashboard: tenexd dashboard)");
  }
  if (changes) h.web.checkCsrf(req, session);
  return { kind: "owner" };
}

function refuseUnless(check: WebCheck): void {
  if (!check.ok) throw new ApiError(check.status, check.code, check.message);
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
};

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}
