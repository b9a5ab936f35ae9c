import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dagConfidence, inMainBand, planConfidence, requiredPrerequisite } from "../../../algorithms/dag/confidence.ts";
import { memoryScore } from "../../../algorithms/memory/knn-vote.ts";

describe("dagConfidence", () => {
  it("one tool (or none) is certain; several unrelated tools are not", () => {
    expect(dagConfidence(0, [])).toBe(1);
    expect(dagConfidence(1, [])).toBe(1);
    expect(dagConfidence(3, [])).toBe(0);
  });
  it("the mean strength of the kept edges: (0.9 + 0.3) / 2 = 0.6", () => {
    expect(dagConfidence(3, [0.9, 0.3])).toBeCloseTo(0.6, 12);
  });
  it("property: within [min, max] of the strengths", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }), (xs) => {
        const c = dagConfidence(xs.length + 1, xs);
        expect(c).toBeGreaterThanOrEqual(Math.min(...xs) - 1e-12);
        expect(c).toBeLessThanOrEqual(Math.max(...xs) + 1e-12);
      }),
    );
  });
});

describe("planConfidence and the main band", () => {
  it("mean main score, 0 without main tools", () => {
    expect(planConfidence([])).toBe(0);
    expect(planConfidence([0.8, 0.6, 0.7])).toBeCloseTo(0.7, 12);
  });
  it("main tools are within 95 % of the top score", () => {
    expect(inMainBand(0.95, 1)).toBe(true);
    expect(inMainBand(0.9499, 1)).toBe(false);
    expect(inMainBand(0.5, 0.5)).toBe(true);
  });
});

describe("requiredPrerequisite", () => {
  it("declared edges are required; learned ones when v read u's output in ≥ max(1, ½ · runs of v)", () => {
    expect(requiredPrerequisite(true, 0, 10)).toBe(true);
    expect(requiredPrerequisite(false, 5, 10)).toBe(true);
    expect(requiredPrerequisite(false, 4, 10)).toBe(false);
    expect(requiredPrerequisite(false, 1, 1)).toBe(true);
    expect(requiredPrerequisite(false, 0, 0)).toBe(false);
  });
});

describe("memoryScore", () => {
  it("the normalised vote scaled by the best similarity: 1 × 0.8 = 0.8, 0.5 × 0.8 = 0.4", () => {
    expect(memoryScore(1, 0.8)).toBeCloseTo(0.8, 12);
    expect(memoryScore(0.5, 0.8)).toBeCloseTo(0.4, 12);
  });
});
