// The words of the Director's search (docs/api.md, "Conversations"): what a message must hold
// for the search to find it. A word is a run of letters, digits and marks, as SQLite FTS5's
// unicode61 tokenizer cuts the messages (everything else separates words and is otherwise
// ignored), so a query's quotes, stars, dashes and parentheses are never search syntax.

/** More words than this add nothing a reader types; the rest are ignored. */
export const MAX_SEARCH_WORDS = 16;

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The query's words, lower-cased, each once, at most MAX_SEARCH_WORDS. */
export function searchWords(q: string): string[] {
  const words = new Set<string>();
  for (const [word] of q.toLowerCase().matchAll(WORD)) {
    if (words.size === MAX_SEARCH_WORDS) break;
    words.add(word);
  }
  return [...words];
}
