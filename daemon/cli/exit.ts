// How the CLI process ends. stdout and stderr are asynchronous when they are pipes: a pipe holds
// 64 KiB, and process.exit() with more queued drops the rest (a 650 KB `--json` document arrived
// as its first 65,536 bytes). So the process exits only once both streams have handed everything
// to the kernel; and a reader that goes away early (`| head`) ends the command quietly.

import { EXIT } from "./errors.js";

type Stream = NodeJS.WritableStream & { writableLength?: number };

/** Resolves once everything written to `stream` so far has been flushed (or cannot be). */
export function flushed(stream: Stream): Promise<void> {
  return new Promise((resolve) => {
    stream.once("error", () => resolve());
    // Writes complete in order: the callback of an empty write runs after every earlier one.
    stream.write("", () => resolve());
  });
}

/** Exits with `code` once stdout and stderr are flushed. */
export async function exitWhenFlushed(code: number): Promise<never> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

/**
 * A reader that closed the pipe early (`tenexd conversations | head -3`) wants no more: stop
 * quietly, rather than die of an unhandled EPIPE with a stack trace. The daemon (`start`) keeps
 * running: its stdout carries two lines, its work does not depend on anyone reading them.
 */
export function onReaderGone(keepRunning: boolean): void {
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE" && err.code !== "ERR_STREAM_DESTROYED") throw err;
    if (!keepRunning) process.exit(typeof process.exitCode === "number" ? process.exitCode : EXIT.OK);
  });
}
