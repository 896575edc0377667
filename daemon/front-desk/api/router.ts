// A small router: `GET /api/v1/conversations/:id` style patterns, matched segment by segment.
// A path that matches no route is 404; a path that matches with another method is 405. A query
// parameter the route does not take, or one given twice, is 400: a typo is never ignored.

import type { z } from "zod";
import { ApiError } from "./errors.js";

export interface Request {
  params: Record<string, string>;
  /** The query parameters, each given once and each one the route takes. */
  query: Record<string, string>;
  /** The parsed JSON body (POST), {} when empty. */
  body: unknown;
}

export type Handler = (req: Request) => Promise<unknown>;

export interface Route {
  method: "GET" | "POST";
  path: string;
  handler: Handler;
  /** The query parameters it takes (none when absent). */
  query?: z.ZodObject;
  /** Only the owner's token may use it; what it does, for the refusal ("close conversations"). */
  ownerOnly?: string;
  /** The agent (slug or pubkey) the request acts as: an agent's token may act as itself only. */
  actor?: (req: Request) => unknown;
  /** Answer 201 (a message was published) instead of 200. */
  created?: boolean;
  /** Called once its answer has been handed to the socket (not after an error). */
  afterAnswer?: () => void;
}

/** A route whose handler gets its query parsed by `schema`. */
export function withQuery<S extends z.ZodObject>(
  method: Route["method"], path: string, schema: S, handle: (q: z.output<S>, req: Request) => Promise<unknown>,
  access: Pick<Route, "actor" | "ownerOnly"> = {},
): Route {
  return { method, path, query: schema, handler: (req) => handle(schema.parse(req.query) as z.output<S>, req), ...access };
}

/** The agent a request acts as: a path parameter, or a field of its JSON body. */
export const byParam = (name: string) => (req: Request): unknown => req.params[name];
export const byField = (name: string) => (req: Request): unknown =>
  typeof req.body === "object" && req.body !== null ? (req.body as Record<string, unknown>)[name] : undefined;

/** The query as a plain object; 400 `unknown_parameter` for one the route does not take or one repeated. */
export function routeQuery(route: Route, search: URLSearchParams): Record<string, string> {
  const takes = Object.keys(route.query?.shape ?? {});
  const query: Record<string, string> = {};
  for (const [name, value] of search) {
    const where = `${route.method} ${route.path}`;
    if (!takes.includes(name)) {
      const known = takes.length > 0 ? `takes ${takes.join(", ")}` : "takes none";
      throw new ApiError(400, "unknown_parameter", `unknown query parameter ${JSON.stringify(name)}: ${where} ${known}`);
    }
    if (name in query) throw new ApiError(400, "unknown_parameter", `query parameter ${JSON.stringify(name)} is given twice: ${where} takes it once`);
    query[name] = value;
  }
  return query;
}

interface Compiled extends Route {
  segments: string[];
}

export class Router {
  private readonly routes: Compiled[];

  constructor(routes: readonly Route[]) {
    this.routes = routes.map((r) => ({ ...r, segments: split(r.path) }));
  }

  /** The handler and the path's parameters; ApiError 404/405 when there is none. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } {
    const parts = split(path);
    let pathMatched = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      pathMatched = true;
      if (route.method === method) return { route, params };
    }
    if (pathMatched) throw new ApiError(405, "method_not_allowed", `${method} is not allowed on ${path}`);
    throw new ApiError(404, "not_found", `no such endpoint: ${method} ${path} (see docs/api.md)`);
  }
}

const split = (path: string) => path.split("/").filter((s) => s !== "");

function matchSegments(pattern: readonly string[], parts: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const part = parts[i]!;
    if (p.startsWith(":")) {
      try {
        params[p.slice(1)] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    } else if (p !== part) return undefined;
  }
  return params;
}
