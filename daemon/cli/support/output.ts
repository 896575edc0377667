// What a command prints: with --json one JSON document on stdout (the answer plus "source");
// otherwise the human text.

import type { CommandContext } from "../command.js";
import type { Source } from "../../front-desk/cli/support/sources.js";

export function emit(ctx: CommandContext, source: Source, data: object, human: () => string): void {
  ctx.stdout.write(ctx.json ? `${JSON.stringify({ source, ...data })}\n` : human());
}
