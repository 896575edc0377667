// A page of a list when the request names none. Apart from the schemas (schemas.ts uses these),
// so the CLI can ask for the first page without loading zod (cli/support/options.ts, parseQuery).

export const PAGE_DEFAULTS = { limit: 50, offset: 0 } as const;
