// Titles and content come off the wire: anyone the project lets write can put terminal control
// sequences in them. Printed raw, a title can set the Director's window title (OSC 0), clear
// the screen (CSI 2J), or reorder what is shown (bidi overrides). The human output shows such
// characters as visible escapes; --json keeps every byte as it was.

import { beforeAll, describe, expect, it } from "vitest";
import type { TenexClient } from "../../daemon/front-desk/client/client.js";
import { createLogger } from "../../daemon/logger.js";
import type { PostResult } from "../../daemon/front-desk/shapes.js";
import type { TestProject } from "../helpers/daemon.js";
import { cli, useMailboxDaemon, type CliRun } from "./api-fixture.js";

let project: TestProject;
let api: TenexClient;
useMailboxDaemon("tenexd-tty-", {}, (d) => ({ project, api } = d));

const TITLE = "Deploy\x1b]0;pwned\x07\x1b[2J now";
const CONTENT = "line one\r\nline\ttwo \x1b[31mred\x1b[0m\x9b2J \u202eevil\u202c\x08\x7f end";
// Anything a terminal acts on: C0 controls but \n and \t, DEL, C1 controls, bidi overrides.
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let asked: PostResult;
let answer: PostResult;

beforeAll(async () => {
  asked = await api.ask({ title: TITLE, content: CONTENT, to: ["coder"] });
  answer = await api.reply({ from: "coder", conversation: asked.conversationId, content: `re: ${CONTENT}`, recipients: ["reviewer"] });
});

function safe(r: CliRun): string {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).not.toMatch(UNSAFE);
  expect(r.stderr).not.toMatch(UNSAFE);
  return r.stdout;
}

describe("human output shows control sequences as visible escapes", () => {
  it("conversations, show (timeline, thread, one message), inbox, context, routing", async () => {
    const conv = asked.conversationAlias!;
    expect(safe(await cli(project, "conversations"))).toContain("Deploy\\x1b]0;pwned\\x07\\x1b[2J now");
    expect(safe(await cli(project, "show", "-c", conv))).toContain("\\x1b[31mred\\x1b[0m\\x9b2J \\u202eevil\\u202c\\x08\\x7f end");
    safe(await cli(project, "show", "-c", conv, "--thread"));
    const message = safe(await cli(project, "show", "--msg", asked.alias!));
    // Multi-line text keeps its lines (CRLF read as a line end) and tabs.
    expect(message).toContain("line one\nline\ttwo \\x1b[31mred");
    expect(safe(await cli(project, "inbox", "-a", "coder"))).toContain("\\x1b]0;pwned");
    expect(safe(await cli(project, "context", "-a", "reviewer", "-c", conv, "--trigger", answer.alias!))).toContain("\\u202eevil");
    expect(safe(await cli(project, "routing", "-c", conv))).toContain("\\x1b[31mred");
  });

  it("an error that repeats what was typed", async () => {
    const r = await cli(project, "show", "-c", "\x1b]0;pwned\x07nope");
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(UNSAFE);
    expect(r.stderr).toContain("\\x1b]0;pwned\\x07nope");
  });

  it("log lines written for a person", () => {
    let text = "";
    const log = createLogger({ json: false, stream: { write: (s: string) => (text += s) } });
    log.warn(`relay said ${TITLE}`, { detail: "\x1b]0;x\x07", err: new Error("\x1b[2J") });
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain("relay said Deploy\\x1b]0;pwned");
  });
});

describe("--json stays exact", () => {
  it("titles and content byte for byte", async () => {
    const list = (await cli(project, "conversations", "--json")).json();
    expect(list.items.find((c: { id: string }) => c.id === asked.conversationId).title).toBe(TITLE);
    expect((await cli(project, "show", "--json", "--msg", asked.alias!)).json().content).toBe(CONTENT);
    const ctx = (await cli(project, "context", "--json", "-a", "reviewer", "-c", asked.conversationId, "--trigger", answer.alias!)).json();
    expect(ctx.trigger.content).toBe(`re: ${CONTENT}`);
  });
});

