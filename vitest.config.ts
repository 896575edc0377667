import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration and e2e tests start real relays and child processes; two cores here.
    maxWorkers: 2,
    pool: "forks",
  },
});
