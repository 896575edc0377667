// One request to the daemon's loopback API over node:http. Not fetch: a CLI command makes one
// request and exits, and loading fetch's engine (undici, with its WebAssembly HTTP parser) took
// ~160 ms of a `tenexd status` that took ~370 (cli_status_wall_ms; `node -e 0` takes ~110 here).

import { request } from "node:http";

export interface HttpAnswer {
  status: number;
  text: string;
}

export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** Rejects with the socket's error (its `code`: ECONNREFUSED…), or ETIMEDOUT when no answer came in time. */
export function httpRequest(url: string, r: HttpRequest): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: r.method, headers: r.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", fail);
    });
    // The whole exchange, not only the wait for the first byte: a daemon that stalls mid-answer
    // must not hold the command forever.
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${r.timeoutMs} ms`), { code: "ETIMEDOUT" })), r.timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      reject(err);
    }
    req.on("error", fail);
    req.end(r.body);
  });
}
