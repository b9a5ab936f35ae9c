import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  calibrate,
  calibrator,
  fitCalibration,
  highConfidenceCutoff,
} from "../../../algorithms/thresholds/calibration.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

describe("fitCalibration (pool-adjacent-violators)", () => {
  it("hand-computed: one violation pooled", () => {
    // sorted: 0.1→0, 0.2→1, 0.3→0, 0.4→1, 0.5→1, 0.6→1
    // 0.2 (1) then 0.3 (0) violate → pooled block [0.2, 0.3] with mean 1/2.
    const c = fitCalibration([0.5, 0.1, 0.3, 0.2, 0.6, 0.4], [1, 0, 0, 1, 1, 1]);
    expect(c.blocks).toEqual([
      { lo: 0.1, hi: 0.1, p: 0, n: 1 },
      { lo: 0.2, hi: 0.3, p: 0.5, n: 2 },
      { lo: 0.4, hi: 0.4, p: 1, n: 1 },
      { lo: 0.5, hi: 0.5, p: 1, n: 1 },
      { lo: 0.6, hi: 0.6, p: 1, n: 1 },
    ]);
  });

  it("hand-computed: a cascade of merges", () => {
    // 0.1→1, 0.2→1, 0.3→0, 0.4→0: [1],[1],[0] → [1],[0.5] → [2/3]; then [0] → pool all: 2/4 = 0.5
    const c = fitCalibration([0.1, 0.2, 0.3, 0.4], [true, true, false, false]);
    expect(c.blocks).toEqual([{ lo: 0.1, hi: 0.4, p: 0.5, n: 4 }]);
  });

  it("equal scores are pooled before fitting", () => {
    const c = fitCalibration([0.5, 0.5, 0.5, 0.9], [1, 0, 0, 1]);
    expect(c.blocks).toEqual([
      { lo: 0.5, hi: 0.5, p: 1 / 3, n: 3 },
      { lo: 0.9, hi: 0.9, p: 1, n: 1 },
    ]);
  });

  it("empty input → no blocks with reason no-data, identity calibrator", () => {
    const c = fitCalibration([], []);
    expect(c).toEqual({ blocks: [], reason: "no-data" });
    expect(calibrate(c, 0.42)).toBe(0.42);
  });

  it("single observation → one block", () => {
    expect(fitCalibration([0.7], [false]).blocks).toEqual([{ lo: 0.7, hi: 0.7, p: 0, n: 1 }]);
  });

  it("misuse: length mismatch, non-finite score, outcome not 0/1", () => {
    expect(() => fitCalibration([0.1], [])).toThrow(ThresholdError);
    expect(() => fitCalibration([Number.NaN], [1])).toThrow(/score #0/);
    expect(() => fitCalibration([0.1], [0.5])).toThrow(/outcome #0/);
  });
});

describe("calibrate", () => {
  const c = fitCalibration([0.1, 0.2, 0.3, 0.6, 0.9], [0, 1, 0, 1, 1]);
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
        const c = fitCalibration(scores, outcomes);
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
