import { describe, expect, it } from "vitest";
import { storageFaultOf } from "../../src/storage-fault.js";

const fsError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("storageFaultOf", () => {
  it("read-only: EROFS, EACCES, EPERM and SQLite's SQLITE_READONLY*", () => {
    for (const code of ["EROFS", "EACCES", "EPERM", "SQLITE_READONLY", "SQLITE_READONLY_DIRECTORY"]) {
      expect(storageFaultOf(fsError(code, `${code}: nope`))).toEqual({ fault: "read_only", why: `${code}: nope` });
    }
  });

  it("full: ENOSPC, EDQUOT and SQLITE_FULL", () => {
    for (const code of ["ENOSPC", "EDQUOT", "SQLITE_FULL"]) expect(storageFaultOf(fsError(code, "x"))?.fault).toBe("full");
  });

  it("found anywhere in the chain of causes (the log wraps the fs error), with the cause's wording", () => {
    const inner = fsError("ENOSPC", "ENOSPC: no space left on device, write");
    const outer = Object.assign(new Error("append to abc failed: ENOSPC: no space left on device, write", { cause: inner }), { code: "write_failed" });
    expect(storageFaultOf(outer)).toEqual({ fault: "full", why: "ENOSPC: no space left on device, write" });
  });

  it("anything else is not the storage's fault", () => {
    expect(storageFaultOf(fsError("EIO", "i/o error"))).toBeUndefined();
    expect(storageFaultOf(fsError("SQLITE_CORRUPT", "malformed"))).toBeUndefined();
    expect(storageFaultOf(new Error("plain"))).toBeUndefined();
    expect(storageFaultOf("ENOSPC")).toBeUndefined();
  });
});
