import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gatingCurve } from "../../../algorithms/evaluation/gating-curve.ts";

const pairs = [
  { score: 0.9, correct: true },
  { score: 0.8, correct: false },
  { score: 0.8, correct: true },
  { score: 0.5, correct: true },
  { score: 0.2, correct: false },
];

describe("gatingCurve", () => {
  it("default thresholds: distinct scores descending (hand-computed)", () => {
    // τ 0.9: kept 1, correct 1 → cov 0.2, prec 1
    // τ 0.8: kept 3, correct 2 → cov 0.6, prec 2/3
    // τ 0.5: kept 4, correct 3 → cov 0.8, prec 0.75
    // τ 0.2: kept 5, correct 3 → cov 1.0, prec 0.6
    const c = gatingCurve(pairs);
    expect(c.map((p) => [p.threshold, p.kept, p.correctKept])).toEqual([
      [0.9, 1, 1],
      [0.8, 3, 2],
      [0.5, 4, 3],
      [0.2, 5, 3],
    ]);
    expect(c.map((p) => p.coverage)).toEqual([0.2, 0.6, 0.8, 1]);
    expect(c[1]!.precision).toBeCloseTo(2 / 3, 12);
    expect(c[2]!.precision).toBe(0.75);
    expect(c[3]!.precision).toBe(0.6);
  });

  it("a threshold above every score keeps nothing: precision null", () => {
    expect(gatingCurve(pairs, [0.95])).toEqual([
      { threshold: 0.95, kept: 0, correctKept: 0, coverage: 0, precision: null },
    ]);
  });

  it("empty input gives an empty curve", () => {
    expect(gatingCurve([])).toEqual([]);
  });

  it("throws on a non-finite score", () => {
    expect(() => gatingCurve([{ score: Number.NaN, correct: true }])).toThrow(
      expect.objectContaining({ code: "bad-score" }),
    );
  });

  it("property: matches a brute-force count and coverage falls as τ rises", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ score: fc.double({ min: 0, max: 1, noNaN: true }), correct: fc.boolean() }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.array(fc.double({ min: -0.1, max: 1.1, noNaN: true }), { maxLength: 6 }),
        (ps, taus) => {
          const sorted = taus.slice().sort((a, b) => a - b);
          const curve = gatingCurve(ps, sorted);
          curve.forEach((pt, i) => {
            const kept = ps.filter((p) => p.score >= pt.threshold);
            expect(pt.kept).toBe(kept.length);
            expect(pt.correctKept).toBe(kept.filter((p) => p.correct).length);
            if (i > 0) expect(pt.coverage).toBeLessThanOrEqual(curve[i - 1]!.coverage);
          });
        },
      ),
    );
  });
});
