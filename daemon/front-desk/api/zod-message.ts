// zod's issues as one line, for the API's 400 answers and the CLI's usage errors. Apart from the
// schemas, and with zod only as a type: a CLI command that checks no option never loads zod
// (~110 ms of start-up here, cli_conversations_wall_ms).

import type { z } from "zod";

/** `limit: must be at most 500; to: required`. */
export function formatZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "body"}: ${i.message}`).join("; ");
}
