import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capabilityMatch, rankCapabilities, reliabilityFactor } from "../../../algorithms/search/capability-match.ts";

describe("reliabilityFactor", () => {
  it.each([
    [undefined, 1],
    [0, 0.1],
    [0.49, 0.1],
    [0.5, 1], // strict: exactly 0.5 is not penalised
    [0.75, 1],
    [0.9, 1], // strict: exactly 0.9 gets no bonus
    [0.91, 1.2],
    [1, 1.2],
  ])("success rate %s → %s", (rate, factor) => {
    expect(reliabilityFactor(rate)).toBe(factor);
  });

  it("rejects rates outside [0, 1]", () => {
    expect(() => reliabilityFactor(1.5)).toThrow(expect.objectContaining({ code: "bad-success-rate" }));
  });
});

describe("capabilityMatch (hand-computed)", () => {
  it("semantic × reliability, clamped to [0, 1]", () => {
    // 0.7 × 0.1 = 0.07
    expect(capabilityMatch({ id: 1, semantic: 0.7, successRate: 0.3 }).score).toBeCloseTo(0.07, 12);
    // 0.7 × 1.2 = 0.84
    expect(capabilityMatch({ id: 1, semantic: 0.7, successRate: 0.95 }).score).toBeCloseTo(0.84, 12);
    // 0.9 × 1.2 = 1.08 → 1 (raw kept)
    const c = capabilityMatch({ id: 1, semantic: 0.9, successRate: 0.95 });
    expect(c.score).toBe(1);
    expect(c.raw).toBeCloseTo(1.08, 12);
    // negative cosine counts as 0
    expect(capabilityMatch({ id: 1, semantic: -0.3, successRate: 0.95 }).score).toBe(0);
  });

  it("no history (0 executions) → factor 1.0 whatever successRate says", () => {
    expect(capabilityMatch({ id: 1, semantic: 0.6, successRate: 0, executions: 0 }).score).toBeCloseTo(0.6, 12);
    expect(capabilityMatch({ id: 1, semantic: 0.6 }).reliability).toBe(1);
  });

  it("ranking: a failing capability drops below a weaker but reliable one; ties by raw then id", () => {
    const r = rankCapabilities([
      { id: 1, semantic: 0.9, successRate: 0.2 }, // 0.09
      { id: 2, semantic: 0.5 }, // 0.5
      { id: 3, semantic: 0.9, successRate: 1 }, // raw 1.08 → 1
      { id: 4, semantic: 0.85, successRate: 1 }, // raw 1.02 → 1
    ]);
    expect(r.map((m) => m.id)).toEqual([3, 4, 2, 1]);
  });
});

describe("properties", () => {
  it("score ∈ [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        (semantic, successRate) => {
          const s = capabilityMatch({ id: 0, semantic, successRate }).score;
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});
