// The dashboard's live stream follows the engine's changes only while a page is open, and a
// while after the last one leaves; what happens after that is not in its ring, so a page that
// comes back with its Last-Event-ID is told to reload, never handed a resume with a hole in it.
// A real HTTP server on loopback, the engine's real LiveFeed.

import { createServer, get, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LiveFeed } from "../../daemon/engine/live-feed.js";
import { LiveStream } from "../../daemon/front-desk/dashboard/live-stream.js";
import { eventually } from "../helpers/daemon.js";

// Short for the test that waits it out; the others' pages come back well within theirs.
const SHORT_LINGER_MS = 150;
const LONG_LINGER_MS = 60_000;

interface Page {
  /** Everything the stream sent so far. */
  text(): string;
  close(): void;
}

let server: Server | undefined;
let stream: LiveStream | undefined;
afterEach(async () => {
  stream?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = stream = undefined;
});

async function start(feed: LiveFeed, lingerMs = LONG_LINGER_MS): Promise<{ open: (lastEventId?: number) => Promise<Page>; subscribed: () => number }> {
  let subscribed = 0;
  stream = new LiveStream({
    changes: (listener) => {
      subscribed++;
      const off = feed.listen(listener);
      return () => {
        subscribed--;
        off();
      };
    },
  }, false, lingerMs);
  const s = stream;
  server = createServer((req, res) => s.attach(req, res, req.headers["last-event-id"] as string | undefined));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;
  const open = (lastEventId?: number) => new Promise<Page>((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path: "/", headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) } }, (res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("error", () => undefined);
      const page = { text: () => body, close: () => req.destroy() };
      // Resolved once the hello is in: the page is attached.
      const ready = () => (body.includes("event: hello") ? resolve(page) : setTimeout(ready, 5));
      ready();
    });
    req.on("error", (err) => (err.message.includes("socket hang up") ? undefined : reject(err)));
  });
  return { open, subscribed: () => subscribed };
}

const waitFor = (cond: () => boolean, what: string) => eventually(() => (cond() ? true : undefined), 5_000, what);
const message = (feed: LiveFeed, id: string) => feed.emit({ kind: "message", conversationId: "c", id, n: 1, author: "a", eventKind: 1, createdAt: 1 });
const helloId = (p: Page) => Number(/id: (\d+)\nevent: hello/.exec(p.text())![1]);

describe("the live stream's following of the engine", () => {
  it("follows nothing until a page is open, and a page gets what happens while it is", async () => {
    const feed = new LiveFeed();
    const { open, subscribed } = await start(feed);
    message(feed, "before");
    expect(subscribed()).toBe(0);
    const page = await open();
    expect(subscribed()).toBe(1);
    message(feed, "during");
    await waitFor(() => page.text().includes('"id":"during"'), '"id":"during"');
    expect(page.text()).not.toContain('"id":"before"');
    page.close();
  });

  it("a page back within the linger resumes from its Last-Event-ID with what it missed", async () => {
    const feed = new LiveFeed();
    const { open, subscribed } = await start(feed);
    const page = await open();
    message(feed, "one");
    await waitFor(() => page.text().includes('"id":"one"'), '"id":"one"');
    const seen = Number(/id: (\d+)\nevent: message/.exec(page.text())![1]);
    page.close();
    await waitFor(() => stream!.connected === 0, "the page gone");
    message(feed, "missed");
    const back = await open(seen);
    expect(back.text()).toContain('"id":"missed"');
    expect(back.text()).not.toContain("event: reload");
    expect(subscribed()).toBe(1);
    back.close();
  });

  it("stops following once the last page has been gone the linger's length, and a page from before it must reload", async () => {
    const feed = new LiveFeed();
    const { open, subscribed } = await start(feed, SHORT_LINGER_MS);
    const page = await open();
    message(feed, "one");
    await waitFor(() => page.text().includes('"id":"one"'), '"id":"one"');
    const seen = Number(/id: (\d+)\nevent: message/.exec(page.text())![1]);
    page.close();
    await waitFor(() => subscribed() === 0, "no longer following");
    message(feed, "unseen");
    const back = await open(seen);
    expect(back.text()).toContain("event: reload");
    expect(subscribed()).toBe(1);
    // Followed again from its hello on: a resume from there holds everything after it.
    const from = helloId(back);
    message(feed, "after");
    await waitFor(() => back.text().includes('"id":"after"'), '"id":"after"');
    back.close();
    const again = await open(from);
    expect(again.text()).toContain('"id":"after"');
    expect(again.text()).not.toContain("event: reload");
    again.close();
  });
});
