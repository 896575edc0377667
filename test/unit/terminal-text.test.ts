import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../src/terminal-text.js";

const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("terminalSafe", () => {
  it("shows ESC sequences (OSC window title, CSI clear screen) as visible escapes", () => {
    expect(terminalSafe("a\x1b]0;pwned\x07b\x1b[2Jc")).toBe("a\\x1b]0;pwned\\x07b\\x1b[2Jc");
    expect(terminalSafe("\x1bP1;2|x\x1b\\")).toBe("\\x1bP1;2|x\\x1b\\");
  });

  it("escapes C1 controls (0x9b is a one-byte CSI), DEL, backspace and a lone CR", () => {
    expect(terminalSafe("\x9b2J\x9d0;t\x07\x7f\x08x\ry")).toBe("\\x9b2J\\x9d0;t\\x07\\x7f\\x08x\\x0dy");
  });

  it("escapes bidi overrides, embeddings, isolates and marks", () => {
    const s = "\u202eabc\u202c \u2066d\u2069 \u200f\u061c";
    expect(terminalSafe(s)).toBe("\\u202eabc\\u202c \\u2066d\\u2069 \\u200f\\u061c");
  });

  it("multi-line text keeps \\n and \\t (CRLF as \\n); a single line escapes them", () => {
    expect(terminalSafe("a\r\nb\tc\n")).toBe("a\nb\tc\n");
    expect(terminalSafe("a\nb\tc", false)).toBe("a\\x0ab\\x09c");
  });

  it("leaves ordinary text alone, including non-ASCII, and is idempotent", () => {
    const text = "Grüße, 東京 ↔ café — \\x1b is text";
    expect(terminalSafe(text)).toBe(text);
    const hostile = "\x1b]0;x\x07\u202e\x9b\x00\r";
    const once = terminalSafe(hostile);
    expect(once).not.toMatch(UNSAFE);
    expect(terminalSafe(once)).toBe(once);
    expect(terminalSafe(once, false)).toBe(once);
  });
});
