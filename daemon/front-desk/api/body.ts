// Request bodies: JSON only, read up to a cap (a bigger body is refused with 413 as soon as it
// passes the cap, without reading the rest).

import type { IncomingMessage } from "node:http";
import { ApiError } from "./errors.js";

const MAX_BODY_BYTES = 1024 * 1024;

export async function readJsonBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return {};
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw new ApiError(400, "bad_json", `the body is not JSON: ${(err as Error).message}`);
  }
}

const tooLarge = (max: number) => new ApiError(413, "body_too_large", `the request body is over ${max} bytes`);
