import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Store suites open PGlite (≈250 MB, ≈2.6 s initdb each); two workers fit 2 cores.
    maxWorkers: 2,
  },
});
