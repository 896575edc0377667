// The conversation store's cache against a real log and index: a conversation pinned while work
// on it runs outside its queue (an agent's command, with an execution-time session open) stays
// in memory however full the cache gets, and leaves it normally once unpinned.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileConversationLog } from "../../adapters/fs-log/index.js";
import { SqliteIndex } from "../../adapters/sqlite-index/index.js";
import { ConversationStore } from "../../daemon/store/conversation-store.js";
import { decideExecStart, recoverOpenSession } from "../../src/execution-time.js";
import { testProject } from "../helpers/events.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("ConversationStore: pinned conversations", () => {
  it("keeps a pinned conversation in memory while others push it out of the cache, and lets it go once unpinned", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tenexd-store-"));
    dirs.push(dir);
    const p = testProject();
    const log = new FileConversationLog(dir);
    const index = new SqliteIndex({ path: join(dir, "index.sqlite") });
    const loads: string[] = [];
    const read = log.read.bind(log);
    log.read = (id, afterN) => (loads.push(id), read(id, afterN));
    // At most 2 events in memory; loading closes a session left open, as the daemon's does.
    const store = new ConversationStore({ log, index, maxCachedEvents: 2, onLoad: (conv) => recoverOpenSession(conv.exec) });
    await store.init();

    const roots = Array.from({ length: 3 }, (_, i) => p.root(p.owner, `topic ${i}`));
    for (const root of roots) {
      const conv = await store.getOrCreate(root.id, p.info.coordinate);
      await store.commit(conv, [{ t: "event", at: 1, ev: root, origin: "relay" }]).durable;
    }
    const [a, b, c] = roots.map((r) => r.id) as [string, string, string];

    // A command starts on a: its session opens, and a is pinned for the run.
    const conv = (await store.get(a))!;
    await store.commit(conv, decideExecStart(conv.exec, 1_000)).durable;
    store.pin(a);
    loads.length = 0;
    await store.get(b);
    await store.get(c);
    expect(await store.get(a)).toBe(conv);
    expect(loads).not.toContain(a);
    expect(conv.exec.openSince).toBe(1_000); // not closed by a reload

    store.unpin(a);
    await store.get(b);
    await store.get(c);
    const again = await store.get(a);
    expect(loads).toContain(a);
    expect(again).not.toBe(conv);

    await store.indexed();
    await log.close();
    index.close();
  });
});
