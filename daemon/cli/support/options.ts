// Reading a command's options: required ones, numbers, durations, the message text.

import { readFileSync } from "node:fs";
import type { z } from "zod";
import { formatZodError } from "../../front-desk/api/zod-message.js";
import type { MessageOptions } from "../../front-desk/actions/posting.js";
import type { CommandContext } from "../command.js";
import { usageError } from "../errors.js";

export function need(ctx: CommandContext, name: string, what: string): string {
  const v = ctx.options[name];
  if (typeof v !== "string" || v.trim() === "") throw usageError(`--${name} is required: ${what}`);
  return v;
}

export const opt = (ctx: CommandContext, name: string): string | undefined => {
  const v = ctx.options[name];
  return typeof v === "string" ? v : undefined;
};

export const flag = (ctx: CommandContext, name: string): boolean => ctx.options[name] === true;

export function intOpt(ctx: CommandContext, name: string, fallback: number, min = 0): number {
  const v = opt(ctx, name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw usageError(`--${name} must be a whole number ≥ ${min} (got "${v}")`);
  return n;
}

export function listOpt(ctx: CommandContext, name: string): string[] | undefined {
  const v = ctx.options[name] as unknown;
  if (v === undefined) return undefined;
  const all = (Array.isArray(v) ? v : [v]) as string[];
  return all.flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== "");
}

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90`, `90s`, `30m`, `2h`, `7d` → seconds. */
export function parseDuration(text: string, name: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m || Number(m[1]) === 0) throw usageError(`--${name} must be a duration like 90s, 30m, 2h or 7d (got "${text}")`);
  return Number(m[1]) * UNITS[m[2] || "s"]!;
}

/** The text of `--message`: "-" reads it from stdin. */
export function messageText(ctx: CommandContext): string {
  const v = need(ctx, "message", 'the text to send (-m "…", or -m - to read it from stdin)');
  return v === "-" ? readFileSync(0, "utf8") : v;
}

export const MESSAGE_OPTIONS = {
  message: { type: "string", short: "m" },
  priority: { type: "string" },
  type: { type: "string" },
  expires: { type: "string" },
} as const;

/** priority, type and expiration of a message being sent; the API checks the values and names the allowed ones. */
export function messagingOptions(ctx: CommandContext, nowSecs = Math.floor(Date.now() / 1000)) {
  const expires = opt(ctx, "expires");
  const priority = opt(ctx, "priority");
  const type = opt(ctx, "type");
  return {
    ...(priority !== undefined ? { priority } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(expires !== undefined ? { expiresAt: nowSecs + parseDuration(expires, "expires") } : {}),
  } as MessageOptions;
}

/**
 * Checks options with the API's own query schema, so a bad value gets the same message with
 * or without a daemon. `values` are the options as query-string text (undefined: absent). The
 * schema (and zod with it, ~110 ms of start-up) is loaded only when an option is given: with
 * none, the query is `none`, what the schema makes of no options (a test holds them equal).
 */
export async function parseQuery<S extends z.ZodType>(
  schema: () => Promise<S>, values: Record<string, string | boolean | undefined>, none: z.output<S>,
): Promise<z.output<S>> {
  const text = Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined && v !== false).map(([k, v]) => [k, String(v)]),
  );
  if (Object.keys(text).length === 0) return Object.assign({}, none);
  const parsed = (await schema()).safeParse(text);
  if (!parsed.success) throw usageError(formatZodError(parsed.error));
  return parsed.data;
}
