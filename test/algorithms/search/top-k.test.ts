import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareScoredIds, kthLargestInPlace, TopK, topKIds, topKOfArray } from "../../../algorithms/search/top-k.ts";

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

describe("topKIds (selection instead of a heap)", () => {
  it("hand-computed: scores by id 0→0.5, 1→0.9, 2→0.5, 3→0.1, 4→0.9, k = 3 → ids {0, 1, 4} (the tie at 0.5 goes to id 0)", () => {
    expect(Array.from(topKIds(Float64Array.from([0.5, 0.9, 0.5, 0.1, 0.9]), 5, 3))).toEqual([0, 1, 4]);
    expect(Array.from(topKIds(Float64Array.from([0.5, 0.9, 0.5, 0.1, 0.9]), 5, 4))).toEqual([0, 1, 2, 4]);
    expect(Array.from(topKIds(Float64Array.from([1, 2]), 2, 0))).toEqual([]);
    expect(Array.from(topKIds(Float64Array.from([1, 2]), 2, 9))).toEqual([0, 1]);
  });

  it("kthLargestInPlace: 3rd largest of [4, 1, 7, 7, 2] is 4", () => {
    expect(kthLargestInPlace(Float64Array.from([4, 1, 7, 7, 2]), 5, 3)).toBe(4);
    expect(kthLargestInPlace(Float64Array.from([4, 1, 7, 7, 2]), 5, 1)).toBe(7);
    expect(kthLargestInPlace(Float64Array.from([4, 1, 7, 7, 2]), 5, 5)).toBe(1);
  });

  it("property: the same id set as TopK (many ties included), with or without a scratch buffer", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 300 }), fc.nat(320), (xs, k) => {
        const scores = Float64Array.from(xs, (x) => x / 2);
        const heap = topKOfArray(scores, k)
          .map((h) => h.id)
          .sort((a, b) => a - b);
        expect(Array.from(topKIds(scores, scores.length, k))).toEqual(heap);
        expect(Array.from(topKIds(scores, scores.length, k, new Float64Array(400)))).toEqual(heap);
      }),
    );
  });
});
