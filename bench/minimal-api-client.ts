// The least a Node program can do to ask the daemon for its status: read the port and token the
// daemon wrote into .tenex/, make one GET on loopback, print the body. `cli-wall.ts` times it
// beside `tenexd status`: it is the floor for any CLI in Node asking the daemon anything
// (`node -e 0` alone does no I/O and loads no module).
// Usage: node dist/bench/minimal-api-client.js <tenexDir> <path>

import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { PORT_FILE, TOKEN_FILE } from "../daemon/front-desk/api/token.js";

const [tenexDir = ".tenex", path = "/api/v1/status"] = process.argv.slice(2);
const port = Number(readFileSync(join(tenexDir, PORT_FILE), "utf8").trim());
const token = readFileSync(join(tenexDir, TOKEN_FILE), "utf8").trim();
request({ host: "127.0.0.1", port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.on("end", () => {
    process.stdout.write(Buffer.concat(chunks));
    process.exitCode = res.statusCode === 200 ? 0 : 1;
  });
}).end();
