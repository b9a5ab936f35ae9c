import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  averagePrecisionAtK,
  completenessAtK,
  dedupeRanking,
  hitAtK,
  ndcgAtK,
  recallAtK,
  reciprocalRank,
  retrievalScores,
} from "../../../algorithms/evaluation/retrieval-metrics.ts";

// Fixture: ranking a x b y c, relevant {a, b, c, d} (|R| = 4); relevant ranks 1, 3, 5.
const ranked = ["a", "x", "b", "y", "c"];
const relevant = ["a", "b", "c", "d"];

describe("retrieval metrics (hand-computed)", () => {
  it("Recall@k", () => {
    expect(recallAtK(ranked, relevant, 1)).toBeCloseTo(1 / 4, 12); // a
    expect(recallAtK(ranked, relevant, 3)).toBeCloseTo(2 / 4, 12); // a, b
    expect(recallAtK(ranked, relevant, 5)).toBeCloseTo(3 / 4, 12); // a, b, c
  });

  it("NDCG@k with log2 discount", () => {
    // DCG@3 = 1/log2(2) + 1/log2(4) = 1 + 0.5 = 1.5; IDCG@3 = 1 + 1/log2(3) + 1/log2(4) = 2.1309298
    expect(ndcgAtK(ranked, relevant, 3)).toBeCloseTo(1.5 / (1 + 1 / Math.log2(3) + 0.5), 12);
    expect(ndcgAtK(ranked, relevant, 3)).toBeCloseTo(0.703918, 5);
    // DCG@5 = 1 + 0.5 + 1/log2(6) = 1.8868528; IDCG@5 (min(4,5) = 4 ones) = 1 + 0.6309298 + 0.5 + 0.4306766 = 2.5616064
    expect(ndcgAtK(ranked, relevant, 5)).toBeCloseTo(0.736591, 5);
  });

  it("AP@k divides by min(|R|, k)", () => {
    // hits at ranks 1 and 3: (1/1 + 2/3) / min(4, 3) = 1.6666667 / 3 = 0.5555556
    expect(averagePrecisionAtK(ranked, relevant, 3)).toBeCloseTo(5 / 9, 12);
    // hits at ranks 1, 3, 5: (1 + 2/3 + 3/5) / min(4, 5) = 2.2666667 / 4 = 0.5666667
    expect(averagePrecisionAtK(ranked, relevant, 5)).toBeCloseTo(2.2666667 / 4, 6);
  });

  it("AP@k is 1 for a perfect top-k even when |R| > k", () => {
    expect(averagePrecisionAtK(["a", "b"], relevant, 2)).toBe(1); // (1/1 + 2/2) / min(4, 2) = 1
  });

  it("COMP@k needs every relevant item", () => {
    expect(completenessAtK(ranked, relevant, 5)).toBe(0); // d is missing
    expect(completenessAtK(["d", "c", "b", "a"], relevant, 4)).toBe(1);
    expect(completenessAtK(["d", "c", "b", "a"], relevant, 3)).toBe(0);
  });

  it("Hit@k and reciprocal rank", () => {
    expect(hitAtK(["x", "y", "b"], ["b"], 2)).toBe(0);
    expect(hitAtK(["x", "y", "b"], ["b"], 3)).toBe(1);
    expect(reciprocalRank(["x", "y", "b"], ["b"])).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank(["x", "y"], ["b"])).toBe(0);
  });

  it("duplicates in the ranking count once (first occurrence)", () => {
    expect(dedupeRanking(["a", "a", "b", "a"])).toEqual(["a", "b"]);
    expect(reciprocalRank(["a", "a", "b"], ["b"])).toBe(0.5); // deduplicated: a, b
    expect(recallAtK(["b", "b", "c"], ["b", "c"], 2)).toBe(1);
  });

  it("retrievalScores bundles every metric per k", () => {
    const s = retrievalScores(ranked, relevant, [3]);
    expect(s.recall[3]).toBeCloseTo(0.5, 12);
    expect(s.ap[3]).toBeCloseTo(5 / 9, 12);
    expect(s.comp[3]).toBe(0);
    expect(s.hit[3]).toBe(1);
    expect(s.reciprocalRank).toBe(1);
  });

  it("empty ranking scores zero", () => {
    expect(recallAtK([], ["a"], 5)).toBe(0);
    expect(ndcgAtK([], ["a"], 5)).toBe(0);
    expect(averagePrecisionAtK([], ["a"], 5)).toBe(0);
  });

  it("throws on k < 1 and on an empty relevant set", () => {
    expect(() => recallAtK(ranked, relevant, 0)).toThrow(expect.objectContaining({ code: "bad-k" }));
    expect(() => ndcgAtK(ranked, relevant, 1.5)).toThrow(/retrieval-metrics/);
    expect(() => recallAtK(ranked, [], 3)).toThrow(expect.objectContaining({ code: "empty-relevant" }));
  });
});

describe("retrieval metrics (properties)", () => {
  const arb = fc.record({
    ranked: fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 15 }),
    relevant: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 6 }),
    k: fc.integer({ min: 1, max: 15 }),
  });

  it("every metric lies in [0, 1] and COMP ≤ Recall ≤ Hit", () => {
    fc.assert(
      fc.property(arb, ({ ranked, relevant, k }) => {
        const r = recallAtK(ranked, relevant, k);
        const vals = [
          r,
          ndcgAtK(ranked, relevant, k),
          averagePrecisionAtK(ranked, relevant, k),
          reciprocalRank(ranked, relevant),
        ];
        for (const v of vals) expect(v).toBeGreaterThanOrEqual(0);
        for (const v of vals) expect(v).toBeLessThanOrEqual(1 + 1e-12);
        expect(completenessAtK(ranked, relevant, k)).toBeLessThanOrEqual(r);
        expect(r).toBeLessThanOrEqual(hitAtK(ranked, relevant, k));
      }),
    );
  });

  it("a ranking that starts with all relevant items scores 1 on NDCG and AP", () => {
    fc.assert(
      fc.property(arb, ({ relevant, k }) => {
        const perfect = [...relevant, 99, 98];
        expect(ndcgAtK(perfect, relevant, k)).toBeCloseTo(1, 12);
        expect(averagePrecisionAtK(perfect, relevant, k)).toBeCloseTo(1, 12);
      }),
    );
  });

  it("recall is non-decreasing in k", () => {
    fc.assert(
      fc.property(arb, ({ ranked, relevant, k }) => {
        expect(recallAtK(ranked, relevant, k)).toBeLessThanOrEqual(recallAtK(ranked, relevant, k + 1));
      }),
    );
  });
});
