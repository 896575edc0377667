// The real file calls (nodeFileOps), each fdatasync first handed to `beforeSync` with the path of
// the file it syncs: a test holds one file's sync, slows every sync or fails one, and the rest of
// the disk stays real.

import { nodeFileOps, type FileOps } from "../../adapters/fs-log/index.js";

export function syncHookOps(beforeSync: (path: string | undefined) => Promise<void> | void): FileOps {
  const paths = new Map<number, string>();
  return {
    ...nodeFileOps,
    open: async (path, create) => {
      const fd = await nodeFileOps.open(path, create);
      paths.set(fd, path);
      return fd;
    },
    fdatasync: async (fd) => {
      await beforeSync(paths.get(fd));
      return nodeFileOps.fdatasync(fd);
    },
  };
}
