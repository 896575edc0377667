// The dashboard's pages on the daemon's HTTP server (docs/dashboard.md): everything that is not
// /api/. The login page and the static files are served to anyone on loopback (they hold no
// data); the app's pages only with a session, else the login page (401). POST /session
// exchanges a login code for the session cookie; GET /session gives a logged-in page its CSRF
// token and whether the dashboard is read-only; POST /session/logout ends it.

import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { readJsonBody } from "../api/body.js";
import { ApiError } from "../api/errors.js";
import { csrfMatches, type Session, type Sessions } from "./sessions.js";
import type { StaticFile, StaticFiles } from "./static-files.js";
import { clearedCookie, sessionCookie, sessionIdOf } from "./web-headers.js";

/** The app's own paths (the page routes them itself); each serves the same shell. */
const APP_PATHS = [/^\/$/, /^\/conversations$/, /^\/conversations\/[^/]+$/, /^\/agents$/, /^\/agents\/[^/]+$/, /^\/stats$/];

const loginBody = z.strictObject({ code: z.string().min(1).max(200) });

export interface WebPagesDeps {
  sessions: Sessions;
  files: StaticFiles;
  port: () => number;
  readOnly: boolean;
  projectTitle: string;
}

export class WebPages {
  constructor(private readonly d: WebPagesDeps) {}

  /** The request's session, from its cookie. */
  session(req: IncomingMessage): Session | undefined {
    return this.d.sessions.get(sessionIdOf(req, this.d.port()));
  }

  /** Throws 403 unless a cookie-carried change shows the session's CSRF token. */
  checkCsrf(req: IncomingMessage, session: Session): void {
    const presented = req.headers["x-csrf-token"];
    if (!csrfMatches(session, typeof presented === "string" ? presented : undefined)) {
      throw new ApiError(403, "csrf", "missing or wrong X-CSRF-Token header (the page gets it from GET /session)");
    }
  }

  /** Answers a request outside /api/; false when no page has that path. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const method = req.method ?? "GET";
    if (path === "/session") {
      if (method === "POST") return this.login(req, res);
      if (method === "GET") return this.sessionInfo(req, res);
      throw new ApiError(405, "method_not_allowed", `${method} is not allowed on ${path}`);
    }
    if (path === "/session/logout" && method === "POST") {
      const s = this.session(req);
      if (s) this.checkCsrf(req, s);
      this.d.sessions.end(sessionIdOf(req, this.d.port()));
      res.writeHead(204, { "set-cookie": clearedCookie(this.d.port()), "cache-control": "no-store" }).end();
      return true;
    }
    if (method !== "GET" && method !== "HEAD") return false;
    const file = this.d.files.get(path);
    if (file) {
      if (req.headers["if-none-match"] === file.etag) {
        res.writeHead(304, { etag: file.etag, "cache-control": "no-cache" }).end();
        return true;
      }
      res.writeHead(200, { "content-type": file.type, "content-length": file.body.length, "cache-control": "no-cache", etag: file.etag });
      res.end(method === "HEAD" ? undefined : file.body);
      return true;
    }
    if (path === "/login") return this.html(res, 200, this.d.files.page("login.html"));
    if (!APP_PATHS.some((p) => p.test(path))) return false;
    if (!this.session(req)) return this.html(res, 401, this.d.files.page("login.html"));
    return this.html(res, 200, path === "/" ? this.d.files.overviewPage() : this.d.files.page("index.html"));
  }

  private html(res: ServerResponse, status: number, page: StaticFile): true {
    res.writeHead(status, { "content-type": page.type, "content-length": page.body.length, "cache-control": "no-store" });
    res.end(page.body);
    return true;
  }

  private async login(req: IncomingMessage, res: ServerResponse): Promise<true> {
    const { code } = loginBody.parse(await readJsonBody(req, 4096));
    const made = this.d.sessions.exchange(code);
    if (!made) throw new ApiError(401, "bad_login_code", "this login code is not valid (each works once, for 2 minutes): run `tenexd dashboard` for a new one");
    const maxAge = Math.floor((made.session.expiresAt - Date.now()) / 1000);
    const body = JSON.stringify({ ok: true });
    res.writeHead(200, {
      "set-cookie": sessionCookie(this.d.port(), made.id, maxAge), "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body), "cache-control": "no-store",
    });
    res.end(body);
    return true;
  }

  private sessionInfo(req: IncomingMessage, res: ServerResponse): true {
    const s = this.session(req);
    if (!s) throw new ApiError(401, "unauthorized", "not logged in: run `tenexd dashboard` for a login link");
    const body = JSON.stringify({ csrf: s.csrf, readOnly: this.d.readOnly, project: this.d.projectTitle });
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "cache-control": "no-store" });
    res.end(body);
    return true;
  }
}
