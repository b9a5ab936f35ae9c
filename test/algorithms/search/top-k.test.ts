import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareScoredIds, TopK, topKOfArray } from "../../../algorithms/search/top-k.ts";

describe("TopK", () => {
  it("keeps the k best, ties by smaller id", () => {
    // scores by id: 0→0.5, 1→0.9, 2→0.5, 3→0.1, 4→0.9; top-3 = (1,0.9), (4,0.9), (0,0.5)
    expect(topKOfArray([0.5, 0.9, 0.5, 0.1, 0.9], 3)).toEqual([
      { id: 1, score: 0.9 },
      { id: 4, score: 0.9 },
      { id: 0, score: 0.5 },
    ]);
  });

  it("k = 0 and empty input give []", () => {
    expect(topKOfArray([1, 2], 0)).toEqual([]);
    expect(topKOfArray([], 5)).toEqual([]);
  });

  it("never keeps NaN", () => {
    expect(topKOfArray([Number.NaN, 1], 2)).toEqual([{ id: 1, score: 1 }]);
  });

  it("threshold is −∞ until full, then the weakest kept score", () => {
    const h = new TopK(2);
    expect(h.threshold).toBe(Number.NEGATIVE_INFINITY);
    h.offer(0, 3);
    h.offer(1, 5);
    expect(h.threshold).toBe(3);
  });

  it("property: equals a full sort truncated to k", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 60 }), fc.nat(70), (xs, k) => {
        const expected = xs
          .map((score, id) => ({ id, score }))
          .sort(compareScoredIds)
          .slice(0, k);
        expect(topKOfArray(xs, k)).toEqual(expected);
      }),
    );
  });
});
