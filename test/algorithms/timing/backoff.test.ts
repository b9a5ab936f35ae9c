import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, nextBackoff } from "../../../algorithms/timing/backoff.ts";
import { coalescedDelay } from "../../../algorithms/timing/coalesce.ts";

describe("backoffDelay", () => {
  it("doubles from the first delay up to the cap (hand-computed)", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffDelay(n, 500, 30_000))).toEqual([
      500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it("stays finite for any number of failures (the exponent is capped)", () => {
    expect(backoffDelay(10_000, 1, Number.POSITIVE_INFINITY)).toBe(2 ** 20);
  });

  it("property: non-decreasing in the failures, never above the cap, and the stepwise form agrees", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 1e7 }),
        (n, min, max) => {
          fc.pre(min <= max);
          expect(backoffDelay(n + 1, min, max)).toBeGreaterThanOrEqual(backoffDelay(n, min, max));
          expect(backoffDelay(n, min, max)).toBeLessThanOrEqual(max);
          if (n <= 20) expect(nextBackoff(backoffDelay(n, min, max), max)).toBe(backoffDelay(n + 1, min, max));
        },
      ),
    );
  });
});

describe("coalescedDelay", () => {
  it("waits the debounce after a quiet spell, and the rest of the interval after a recent run (hand-computed)", () => {
    expect(coalescedDelay(10_000, Number.NEGATIVE_INFINITY, 250, 2000)).toBe(250);
    expect(coalescedDelay(10_000, 9_500, 250, 2000)).toBe(1500);
    expect(coalescedDelay(10_000, 7_000, 250, 2000)).toBe(250);
  });

  it("property: never below the debounce; a run starts no sooner than the interval after the last", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        (now, last, d, i) => {
          fc.pre(last <= now);
          const delay = coalescedDelay(now, last, d, i);
          expect(delay).toBeGreaterThanOrEqual(d);
          expect(now + delay).toBeGreaterThanOrEqual(last + i);
        },
      ),
    );
  });
});
