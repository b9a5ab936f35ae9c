/** fixed2 (the DAG answer's number format) gives exactly `toFixed(2)`, ties and out-of-range values included. */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { fixed2 } from "../../src/services/recommend-dag.ts";

describe("fixed2", () => {
  it("equals toFixed(2) on ties, bounds and special values", () => {
    const xs = [0, -0, 0.005, 0.015, 0.025, 0.125, 0.375, 1.005, 0.995, 0.9949999999, 2.675, 1.45, 99.995, 999999.995, 999999.99, 1e6, 1e21, -1, -0.001, 5e-324, 0.49999999999999994, Number.NaN, Number.POSITIVE_INFINITY];
    for (const x of xs) expect(fixed2(x)).toBe(x.toFixed(2));
  });

  it("equals toFixed(2) on grids of cents, half cents and random values", () => {
    const rng = mulberry32(3);
    for (let i = 0; i < 200_000; i++) {
      for (const x of [i / 100, i / 200, i / 1000, i * 0.005, rng(), 100 * rng(), 2e6 * rng()]) {
        if (fixed2(x) !== x.toFixed(2)) expect(fixed2(x)).toBe(x.toFixed(2));
      }
    }
  });
});
