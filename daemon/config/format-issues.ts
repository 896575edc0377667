// Turns zod issues into ConfigIssues that say what is wrong and how to fix it. Schemas carry
// their own messages for domain rules; this covers the generic cases (missing, wrong type).

import type { z } from "zod";
import { type ConfigIssue, formatPath } from "./errors.js";

export function toConfigIssues(file: string, error: z.ZodError): ConfigIssue[] {
  return error.issues.map((iss) => ({ file, path: formatPath(iss.path), problem: describe(iss) }));
}

function describe(iss: z.core.$ZodIssue): string {
  switch (iss.code) {
    case "invalid_type": {
      const field = iss.path.at(-1);
      if (iss.input === undefined) {
        return typeof field === "string" ? `is required: add "${field}" (${article(iss.expected)})` : `is required (${article(iss.expected)})`;
      }
      return `must be ${article(iss.expected)} (got ${typeOf(iss.input)})`;
    }
    case "too_small":
    case "too_big":
    case "invalid_value":
      return `${iss.message} (got ${JSON.stringify(iss.input)})`;
    default:
      return iss.message;
  }
}

const ARTICLES: Record<string, string> = {
  object: "an object { … }", array: "a list [ … ]", string: 'a string "…"',
  number: "a number", boolean: "true or false", int: "a whole number",
};

const article = (expected: string) => ARTICLES[expected] ?? expected;

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `${typeof v} ${JSON.stringify(v)}`;
