import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileSnapshotStore, InvalidIdError } from "../../adapters/fs-log/index.js";
import { convId, tempDir } from "./fixtures/fs-log-fixtures.js";

describe("FileSnapshotStore", () => {
  it("writes a snapshot atomically and reads it back, the newest replacing the old", async () => {
    const dir = tempDir();
    const store = new FileSnapshotStore(dir);
    const id = convId("snap");
    expect(await store.readSnapshot(id)).toBeUndefined();
    await store.writeSnapshot(id, 10, { phase: "plan", agents: ["a", "b"] });
    await store.writeSnapshot(id, 25, { phase: "execute", agents: ["a"] });
    expect(await store.readSnapshot(id)).toEqual({ n: 25, data: { phase: "execute", agents: ["a"] } });
    expect(readdirSync(join(dir, "snapshots"))).toEqual([`${id}.json`]); // no temp files left
    expect(await new FileSnapshotStore(dir).readSnapshot(id)).toEqual({ n: 25, data: { phase: "execute", agents: ["a"] } });
  });

  it("ignores a snapshot that is torn, of another conversation, or of the wrong shape", async () => {
    const dir = tempDir();
    const store = new FileSnapshotStore(dir);
    const [a, b] = [convId("a"), convId("b")];
    await store.writeSnapshot(a, 3, { x: 1 });
    const path = join(dir, "snapshots", `${a}.json`);
    writeFileSync(path, '{"v":1,"id":"' + a + '","n":3,"da');
    expect(await store.readSnapshot(a)).toBeUndefined();
    writeFileSync(path, JSON.stringify({ v: 1, id: b, n: 3, data: {} }));
    expect(await store.readSnapshot(a)).toBeUndefined();
    writeFileSync(path, JSON.stringify({ v: 1, id: a, n: "3", data: {} }));
    expect(await store.readSnapshot(a)).toBeUndefined();
    writeFileSync(path, JSON.stringify({ v: 1, id: a, n: 3 }));
    expect(await store.readSnapshot(a)).toBeUndefined();
    await store.writeSnapshot(a, 4, null);
    expect(await store.readSnapshot(a)).toEqual({ n: 4, data: null });
  });

  it("refuses ids that are not 64 lowercase hex characters", async () => {
    const dir = tempDir();
    const store = new FileSnapshotStore(dir);
    await expect(store.writeSnapshot("../escape", 1, {})).rejects.toBeInstanceOf(InvalidIdError);
    await expect(store.readSnapshot("a/b")).rejects.toBeInstanceOf(InvalidIdError);
    expect(readdirSync(dir)).toEqual([]);
  });
});
