// A small router: `GET /api/v1/conversations/:id` style patterns, matched segment by segment.
// A path that matches no route is 404; a path that matches with another method is 405.

import { ApiError } from "./errors.js";

export interface Request {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (POST), {} when empty. */
  body: unknown;
}

export type Handler = (req: Request) => Promise<unknown>;

export interface Route {
  method: "GET" | "POST";
  path: string;
  handler: Handler;
  /** Answer 201 (a message was published) instead of 200. */
  created?: boolean;
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
