// A small structured logger: JSON lines for machines (not a TTY, or --log-json), readable
// lines for people. Always to stderr by default, so stdout stays the command's output.

import { terminalSafe } from "../src/terminal-text.js";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` (e.g. `{ component: "relay" }`) to every line. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** JSON lines; default: when the stream is not a TTY. */
  json?: boolean;
  stream?: { write(s: string): unknown; isTTY?: boolean };
  now?: () => Date;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const stream = opts.stream ?? process.stderr;
  const sink: Sink = {
    min: LOG_LEVELS.indexOf(opts.level ?? "info"),
    json: opts.json ?? stream.isTTY !== true,
    write: (s) => stream.write(s),
    now: opts.now ?? (() => new Date()),
  };
  return make(sink, {});
}

interface Sink {
  min: number;
  json: boolean;
  write(s: string): void;
  now(): Date;
}

function make(sink: Sink, base: LogFields): Logger {
  const at = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    if (LOG_LEVELS.indexOf(level) < sink.min) return;
    const all = fields === undefined ? base : { ...base, ...fields };
    sink.write(sink.json ? jsonLine(sink.now(), level, msg, all) : textLine(sink.now(), level, msg, all));
  };
  return {
    debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"),
    child: (fields) => make(sink, { ...base, ...fields }),
  };
}

function jsonLine(t: Date, level: LogLevel, msg: string, fields: LogFields): string {
  return `${JSON.stringify({ t: t.toISOString(), level, msg, ...fields }, replacer)}\n`;
}

function textLine(t: Date, level: LogLevel, msg: string, fields: LogFields): string {
  const { component, ...rest } = fields;
  const where = component === undefined ? "" : `[${String(component)}] `;
  const extra = Object.entries(rest).map(([k, v]) => ` ${k}=${formatValue(v)}`).join("");
  // A stack reads best as it is printed by Node: on its own indented lines.
  const stacks = Object.values(rest).flatMap((v) => (v instanceof Error && v.stack !== undefined ? [`\n    ${v.stack}`] : []));
  // Messages and fields repeat what relays and clients sent: nothing in a line may drive the terminal.
  return terminalSafe(`${t.toISOString().slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${where}${msg}${extra}${stacks.join("")}\n`);
}

function formatValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(`${v.name}: ${v.message}`);
  if (typeof v === "string") return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v, replacer) ?? String(v);
}

// Errors carry their useful parts in non-enumerable properties that JSON.stringify drops.
function replacer(_key: string, v: unknown): unknown {
  if (v instanceof Error) return { name: v.name, message: v.message, stack: v.stack };
  if (typeof v === "bigint") return v.toString();
  return v;
}
