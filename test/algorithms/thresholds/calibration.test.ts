import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  calibrate,
  calibrator,
  fitCalibration,
  highConfidenceCutoff,
  wilsonLowerBound,
} from "../../../algorithms/thresholds/calibration.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

const PLAIN = { z: 0 } as const;

describe("fitCalibration (pool-adjacent-violators, z = 0: plain isotonic fit)", () => {
  it("hand-computed: one violation pooled", () => {
    // sorted: 0.1→0, 0.2→1, 0.3→0, 0.4→1, 0.5→1, 0.6→1
    // 0.2 (1) then 0.3 (0) violate → pooled block [0.2, 0.3] with mean 1/2.
    const c = fitCalibration([0.5, 0.1, 0.3, 0.2, 0.6, 0.4], [1, 0, 0, 1, 1, 1], PLAIN);
    expect(c.blocks).toEqual([
      { lo: 0.1, hi: 0.1, p: 0, rate: 0, n: 1 },
      { lo: 0.2, hi: 0.3, p: 0.5, rate: 0.5, n: 2 },
      { lo: 0.4, hi: 0.4, p: 1, rate: 1, n: 1 },
      { lo: 0.5, hi: 0.5, p: 1, rate: 1, n: 1 },
      { lo: 0.6, hi: 0.6, p: 1, rate: 1, n: 1 },
    ]);
  });

  it("hand-computed: a cascade of merges", () => {
    // 0.1→1, 0.2→1, 0.3→0, 0.4→0: [1],[1],[0] → [1],[0.5] → [2/3]; then [0] → pool all: 2/4 = 0.5
    const c = fitCalibration([0.1, 0.2, 0.3, 0.4], [true, true, false, false], PLAIN);
    expect(c.blocks).toEqual([{ lo: 0.1, hi: 0.4, p: 0.5, rate: 0.5, n: 4 }]);
  });

  it("equal scores are pooled before fitting", () => {
    const c = fitCalibration([0.5, 0.5, 0.5, 0.9], [1, 0, 0, 1], PLAIN);
    expect(c.blocks).toEqual([
      { lo: 0.5, hi: 0.5, p: 1 / 3, rate: 1 / 3, n: 3 },
      { lo: 0.9, hi: 0.9, p: 1, rate: 1, n: 1 },
    ]);
  });

  it("empty input → no blocks with reason no-data, identity calibrator", () => {
    const c = fitCalibration([], []);
    expect(c).toEqual({ blocks: [], reason: "no-data" });
    expect(calibrate(c, 0.42)).toBe(0.42);
  });

  it("single observation → one block", () => {
    expect(fitCalibration([0.7], [false]).blocks).toEqual([{ lo: 0.7, hi: 0.7, p: 0, rate: 0, n: 1 }]);
  });

  it("misuse: length mismatch, non-finite score, outcome not 0/1", () => {
    expect(() => fitCalibration([0.1], [])).toThrow(ThresholdError);
    expect(() => fitCalibration([Number.NaN], [1])).toThrow(/score #0/);
    expect(() => fitCalibration([0.1], [0.5])).toThrow(/outcome #0/);
  });
});

describe("Wilson lower bound per block (conservative where data are thin)", () => {
  it("hand-computed wilsonLowerBound", () => {
    // k = n: L = n / (n + z²); n = 10 → 10 / 13.8416.
    expect(wilsonLowerBound(10, 10)).toBeCloseTo(10 / 13.8416, 12);
    // 1 of 1: 1 / (1 + 3.8416).
    expect(wilsonLowerBound(1, 1)).toBeCloseTo(1 / 4.8416, 12);
    // 9 of 10: (0.9 + 0.19208 − 1.96·√(0.009 + 0.009604)) / 1.38416 = 0.59584...
    expect(wilsonLowerBound(9, 10)).toBeCloseTo((0.9 + 0.19208 - 1.96 * Math.sqrt(0.018604)) / 1.38416, 12);
    expect(wilsonLowerBound(9, 10)).toBeCloseTo(0.5958, 4);
    // 90 of 100 → 0.8256; 900 of 1000 → 0.8798 (the header's examples).
    expect(wilsonLowerBound(90, 100)).toBeCloseTo(0.8256, 4);
    expect(wilsonLowerBound(900, 1000)).toBeCloseTo(0.8798, 4);
    expect(wilsonLowerBound(0, 5)).toBe(0);
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(3, 4, 0)).toBe(0.75);
  });

  it("misuse: k > n, negative z", () => {
    expect(() => wilsonLowerBound(3, 2)).toThrow(/k=3, n=2/);
    expect(() => wilsonLowerBound(1, 2, -1)).toThrow(/z must be/);
    expect(() => fitCalibration([0.1], [1], { z: Number.NaN })).toThrow(/options.z/);
  });

  it("hand-computed fit: each block valued at its lower bound", () => {
    // 0.3: 1 of 4 succeed; 0.9: 10 of 10. No violation (0.25 < 1), two blocks.
    // L(1, 4) = (0.25 + 0.4802 − 1.96·√(0.046875 + 0.060025)) / 1.9604 = 0.045586...; L(10, 10) = 10/13.8416.
    const c = fitCalibration([...Array(4).fill(0.3), ...Array(10).fill(0.9)], [1, 0, 0, 0, ...Array(10).fill(1)]);
    expect(c.blocks.map((b) => [b.lo, b.hi, b.rate, b.n])).toEqual([
      [0.3, 0.3, 0.25, 4],
      [0.9, 0.9, 1, 10],
    ]);
    expect(c.blocks[0]!.p).toBeCloseTo((0.25 + 0.4802 - 1.96 * Math.sqrt(0.1069)) / 1.9604, 12);
    expect(c.blocks[1]!.p).toBeCloseTo(10 / 13.8416, 12);
    // Ten successes out of ten are not yet evidence of P ≥ 0.85: no high-confidence cutoff.
    expect(highConfidenceCutoff(c, 0.85)).toBeUndefined();
    expect(calibrate(c, 0.95)).toBeCloseTo(0.7225, 4);
  });

  it("a thin block above a well-supported one is bounded by the pooled evidence at or below it", () => {
    // 0.5: 90 of 100 (L = 0.8256); 0.9: 1 of 1 (L = 0.2065 alone); pooled 91 of 101 → L(91, 101).
    const scores = [...Array(100).fill(0.5), 0.9];
    const outcomes = [...Array(90).fill(1), ...Array(10).fill(0), 1];
    const c = fitCalibration(scores, outcomes);
    expect(c.blocks).toHaveLength(2);
    expect(c.blocks[0]!.p).toBeCloseTo(wilsonLowerBound(90, 100), 12);
    expect(c.blocks[1]!.rate).toBe(1);
    expect(c.blocks[1]!.p).toBeCloseTo(wilsonLowerBound(91, 101), 12);
  });

  it("small adjacent high blocks add up their evidence (hand-computed)", () => {
    // 0.8: 18/20, 0.9: 19/20, 0.95: 20/20 (rates 0.9 < 0.95 < 1: three PAV blocks).
    // Alone L(20, 20) = 20/23.8416 = 0.8389 < 0.85; pooled with 0.9: L(39, 40) = 0.8712; with all: L(57, 60) = 0.8630.
    const scores = [...Array(20).fill(0.8), ...Array(20).fill(0.9), ...Array(20).fill(0.95)];
    const outcomes = [...Array(18).fill(1), 0, 0, ...Array(19).fill(1), 0, ...Array(20).fill(1)];
    const c = fitCalibration(scores, outcomes);
    expect(c.blocks.map((b) => b.rate)).toEqual([0.9, 0.95, 1]);
    expect(wilsonLowerBound(20, 20)).toBeCloseTo(0.8389, 4);
    expect(wilsonLowerBound(39, 40)).toBeCloseTo(0.8712, 4);
    expect(wilsonLowerBound(57, 60)).toBeCloseTo(0.863, 3);
    expect(c.blocks[2]!.p).toBeCloseTo(wilsonLowerBound(39, 40), 12);
    expect(c.blocks[1]!.p).toBeCloseTo(Math.max(wilsonLowerBound(19, 20), wilsonLowerBound(37, 40)), 12);
    expect(c.blocks[0]!.p).toBeCloseTo(wilsonLowerBound(18, 20), 12);
    expect(highConfidenceCutoff(c, 0.85)).toBe(0.95);
  });

  it("enough evidence reaches high confidence: 0.9 with 200 of 200 → 200/203.8416", () => {
    const c = fitCalibration([...Array(200).fill(0.9), 0.2], [...Array(200).fill(1), 0]);
    expect(calibrate(c, 0.9)).toBeCloseTo(200 / 203.8416, 12);
    expect(highConfidenceCutoff(c, 0.85)).toBe(0.9);
  });
});

describe("calibrate", () => {
  const c = fitCalibration([0.1, 0.2, 0.3, 0.6, 0.9], [0, 1, 0, 1, 1], PLAIN);
  // blocks: [0.1]→0, [0.2,0.3]→0.5, [0.6]→1, [0.9]→1

  it("inside a block → the block's rate", () => {
    expect(calibrate(c, 0.25)).toBe(0.5);
  });

  it("between blocks → the lower block's rate (conservative)", () => {
    expect(calibrate(c, 0.5)).toBe(0.5);
  });

  it("below the first and above the last block", () => {
    expect(calibrate(c, 0)).toBe(0);
    expect(calibrate(c, 1)).toBe(1);
  });

  it("calibrator(c) is the same function", () => {
    expect(calibrator(c)(0.25)).toBe(0.5);
  });

  it("highConfidenceCutoff: the lowest score with P ≥ 0.8", () => {
    expect(highConfidenceCutoff(c, 0.8)).toBe(0.6);
    expect(highConfidenceCutoff(c, 1.01)).toBeUndefined();
  });
});

describe("calibration properties", () => {
  const data = fc
    .array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.boolean()), { minLength: 1, maxLength: 80 })
    .map((xs) => ({ scores: xs.map(([s]) => s / 100), outcomes: xs.map(([, y]) => y) }));

  it("the map is monotone non-decreasing and within [0, 1]", () => {
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const c = fitCalibration(scores, outcomes);
        let prev = -1;
        for (let s = 0; s <= 100; s++) {
          const p = calibrate(c, s / 100);
          if (p < prev || p < 0 || p > 1) return false;
          prev = p;
        }
        return c.blocks.reduce((a, b) => a + b.n, 0) === scores.length;
      }),
    );
  });

  it("on the fitting data, answers with calibrated P ≥ 0.80 succeed at a rate ≥ 0.80", () => {
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const c = fitCalibration(scores, outcomes);
        let n = 0;
        let ok = 0;
        scores.forEach((s, i) => {
          if (calibrate(c, s) >= 0.8) {
            n++;
            if (outcomes[i]) ok++;
          }
        });
        return n === 0 || ok / n >= 0.8 - 1e-12;
      }),
    );
  });

  it("the Wilson map is monotone, never above the block's empirical rate, and equals it with z = 0", () => {
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const c = fitCalibration(scores, outcomes);
        const plain = fitCalibration(scores, outcomes, PLAIN);
        if (c.blocks.length !== plain.blocks.length) return false;
        let prev = 0;
        return c.blocks.every((b, k) => {
          const ok =
            b.p >= prev && b.p <= b.rate + 1e-12 && b.rate === plain.blocks[k]!.rate && plain.blocks[k]!.p === b.rate;
          prev = b.p;
          return ok;
        });
      }),
    );
  });

  it("an answer reaches 0.85 only with at least 22 observations at or below its score (z = 1.96: n/(n + z²) < 0.85 for n ≤ 21)", () => {
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const c = fitCalibration(scores, outcomes);
        return c.blocks.every((b, k) => b.p < 0.85 || c.blocks.slice(0, k + 1).reduce((t, x) => t + x.n, 0) >= 22);
      }),
    );
  });

  it("each block's value is the best pooled-window Wilson bound (independent brute force)", () => {
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const c = fitCalibration(scores, outcomes);
        const plain = fitCalibration(scores, outcomes, PLAIN).blocks;
        return c.blocks.every((b, j) => {
          let best = 0;
          for (let i = 0; i <= j; i++) {
            for (let jj = i; jj <= j; jj++) {
              const w = plain.slice(i, jj + 1);
              best = Math.max(
                best,
                wilsonLowerBound(
                  Math.round(w.reduce((t, x) => t + x.rate * x.n, 0)),
                  w.reduce((t, x) => t + x.n, 0),
                ),
              );
            }
          }
          return Math.abs(b.p - best) < 1e-12;
        });
      }),
      { numRuns: 60 },
    );
  });

  it("matches the independent max–min formula of isotonic regression", () => {
    // For sorted distinct scores with pooled means, the fit at i is max_{j ≤ i} min_{k ≥ i} mean(y_j..y_k)
    // (weighted by counts) — Barlow et al., "Statistical Inference under Order Restrictions" (1972).
    fc.assert(
      fc.property(data, ({ scores, outcomes }) => {
        const groups = new Map<number, { s: number; n: number }>();
        scores.forEach((x, i) => {
          const g = groups.get(x) ?? { s: 0, n: 0 };
          g.s += outcomes[i] ? 1 : 0;
          g.n += 1;
          groups.set(x, g);
        });
        const xs = [...groups.keys()].sort((a, b) => a - b);
        const c = fitCalibration(scores, outcomes, PLAIN);
        for (let i = 0; i < xs.length; i++) {
          let best = Number.NEGATIVE_INFINITY;
          for (let j = 0; j <= i; j++) {
            let worst = Number.POSITIVE_INFINITY;
            for (let k = i; k < xs.length; k++) {
              let sy = 0;
              let n = 0;
              for (let m = j; m <= k; m++) {
                sy += groups.get(xs[m]!)!.s;
                n += groups.get(xs[m]!)!.n;
              }
              worst = Math.min(worst, sy / n);
            }
            best = Math.max(best, worst);
          }
          if (Math.abs(calibrate(c, xs[i]!) - best) > 1e-12) return false;
        }
        return true;
      }),
      { numRuns: 60 },
    );
  });
});

describe("fitCalibration minBlock", () => {
  it("merges blocks smaller than minBlock into their lower neighbour, hand-computed", () => {
    // Scores 0.1×4 (0 of 4), 0.5×4 (2 of 4), 0.9×2 (2 of 2): PAV blocks n = 4, 4, 2 (rates 0, 0.5, 1).
    const scores = [0.1, 0.1, 0.1, 0.1, 0.5, 0.5, 0.5, 0.5, 0.9, 0.9];
    const ok = [0, 0, 0, 0, 1, 0, 1, 0, 1, 1];
    expect(fitCalibration(scores, ok, { z: 0 }).blocks.map((b) => [b.lo, b.n, b.rate])).toEqual([
      [0.1, 4, 0],
      [0.5, 4, 0.5],
      [0.9, 2, 1],
    ]);
    // minBlock 3: the 0.9 block (n 2) joins 0.5 → 4 of 6.
    expect(fitCalibration(scores, ok, { z: 0, minBlock: 3 }).blocks.map((b) => [b.lo, b.hi, b.n, b.rate])).toEqual([
      [0.1, 0.1, 4, 0],
      [0.5, 0.9, 6, 4 / 6],
    ]);
    // minBlock 5: 0.1 (n 4) has no lower neighbour → joins 0.5 (2 of 8), then 0.9 (n 2) joins it → 4 of 10.
    expect(fitCalibration(scores, ok, { z: 0, minBlock: 5 }).blocks.map((b) => [b.lo, b.hi, b.n, b.rate])).toEqual([
      [0.1, 0.9, 10, 0.4],
    ]);
    expect(() => fitCalibration(scores, ok, { minBlock: 0 })).toThrow(/minBlock/);
  });
});
