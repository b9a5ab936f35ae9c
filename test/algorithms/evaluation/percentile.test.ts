import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { percentile, summarizePercentiles } from "../../../algorithms/evaluation/percentile.ts";

describe("percentile (nearest rank)", () => {
  // Classic example: 15 20 35 40 50 (given unsorted).
  const v = [40, 15, 50, 35, 20];

  it("hand-computed ranks ⌈p·N/100⌉", () => {
    expect(percentile(v, 30)).toBe(20); // ⌈1.5⌉ = 2
    expect(percentile(v, 40)).toBe(20); // ⌈2⌉ = 2
    expect(percentile(v, 50)).toBe(35); // ⌈2.5⌉ = 3
    expect(percentile(v, 100)).toBe(50);
    expect(percentile(v, 0)).toBe(15); // minimum by convention
  });

  it("no floating-point off-by-one (p = 7 of 1..100 is 7)", () => {
    const r = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(r, 7)).toBe(7);
    expect(percentile(r, 95)).toBe(95);
    expect(percentile(r, 99)).toBe(99);
  });

  it("even count: p50 is the lower middle value", () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
  });

  it("single value", () => {
    expect(percentile([7], 99)).toBe(7);
  });

  it("empty input gives null", () => {
    expect(percentile([], 50)).toBeNull();
    expect(summarizePercentiles([])).toEqual({
      count: 0,
      min: null,
      p50: null,
      p95: null,
      p99: null,
      max: null,
      mean: null,
    });
  });

  it("throws on p outside [0, 100] or NaN values", () => {
    expect(() => percentile(v, 101)).toThrow(expect.objectContaining({ code: "bad-p" }));
    expect(() => percentile([1, Number.NaN], 50)).toThrow(expect.objectContaining({ code: "bad-value" }));
  });

  it("summary of 1..20", () => {
    const r = Array.from({ length: 20 }, (_, i) => i + 1);
    // p50 ⌈10⌉ = 10, p95 ⌈19⌉ = 19, p99 ⌈19.8⌉ = 20, mean 10.5
    expect(summarizePercentiles(r)).toEqual({ count: 20, min: 1, p50: 10, p95: 19, p99: 20, max: 20, mean: 10.5 });
  });

  it("property: the result is an observed value and monotone in p", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 99 }),
        (xs, p) => {
          const a = percentile(xs, p)!;
          expect(xs).toContain(a);
          expect(a).toBeLessThanOrEqual(percentile(xs, p + 1)!);
        },
      ),
    );
  });
});
