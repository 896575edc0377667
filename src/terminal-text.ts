// Text from the wire made safe to print on a terminal. Titles and content are written by anyone
// the project lets in; a terminal acts on some characters instead of showing them: ESC starts
// sequences that set the window title (OSC), clear the screen or move the cursor (CSI); C1
// controls do the same in one byte (0x9b is CSI); BEL, BS and CR rewrite what is shown; bidi
// overrides reorder it (a line reads other than it is). Each such character is shown as a visible
// escape (`\x1b`, `\u202e`): the sequence it started is inert text, and what was sent stays
// readable. Only human output goes through here; JSON output is exact.

// C0 controls but \t and \n, DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates.
const UNSAFE_MULTILINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every character a terminal would act on shown as an escape. `multiline`: keep line
 * ends (CRLF read as one) and tabs, for text meant to span lines; otherwise they are escaped too
 * (a table cell, a field). Idempotent: what it returns holds nothing it would change.
 */
export function terminalSafe(text: string, multiline = true): string {
  return multiline ? text.replace(/\r\n/g, "\n").replace(UNSAFE_MULTILINE, escape) : text.replace(UNSAFE_LINE, escape);
}
