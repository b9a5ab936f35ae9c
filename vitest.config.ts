import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    // Hooks open the databases: one PGlite open took 62 s (9.7 s CPU) at load 15 on 2 cores.
    hookTimeout: 300_000,
    pool: "forks",
    // Store suites open PGlite (≈250 MB, ≈2.6 s initdb each); two workers fit 2 cores.
    maxWorkers: 2,
  },
});
