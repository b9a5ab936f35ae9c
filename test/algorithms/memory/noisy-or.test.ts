import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { noisyOr } from "../../../algorithms/memory/noisy-or.ts";

describe("noisyOr", () => {
  it("hand-computed: 1 − (1 − 0.5)(1 − 0.8·0.5) = 0.7", () => {
    expect(noisyOr(0.5, 0.8, 0.5)).toBeCloseTo(0.7, 12);
  });
  it("no vote leaves the score bit for bit", () => {
    expect(noisyOr(0.1, 0.8, undefined)).toBe(0.1);
    expect(noisyOr(0.1, 0.8, 0)).toBe(0.1);
  });
  it("property: lift ≥ score, lift ≥ w·vote, lift ≤ 1", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (s, w, v) => {
          const x = noisyOr(s, w, v);
          return x >= s - 1e-12 && x >= w * v - 1e-12 && x <= 1 + 1e-12;
        },
      ),
      { seed: 16 },
    );
  });
});
