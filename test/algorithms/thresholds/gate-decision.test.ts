import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";
import { decide, gateTier } from "../../../algorithms/thresholds/gate-decision.ts";

const at = (t: number) => ({ adjustedThreshold: t, appliedRules: ["r"], reasoning: "Because" });

describe("decide", () => {
  it("score ≥ 0.85 → accepted, high confidence, no caution", () => {
    const d = decide(0.85, at(0.7));
    expect(d).toMatchObject({ decision: "accepted", confidence: "high", caution: false, threshold: 0.7 });
    expect(d.gap).toBeUndefined();
    expect(d.reasoning).toBe("Because. Score 0.85 ≥ 0.85: accepted with high confidence");
  });

  it("threshold ≤ score < 0.85 → accepted with caution, medium", () => {
    const d = decide(0.7, at(0.7));
    expect(d).toMatchObject({ decision: "accepted-with-caution", confidence: "medium", caution: true });
    expect(decide(0.8499, at(0.7)).decision).toBe("accepted-with-caution");
  });

  it("score exactly equal to a computed threshold passes (0.62 vs 0.7 − 0.08)", () => {
    expect(decide(0.62, at(0.7 - 0.08)).decision).toBe("accepted-with-caution");
  });

  it("below threshold → abstained, low, gap and fallbacks", () => {
    const d = decide(0.55, at(0.65), ["grep", "web-search"]);
    expect(d).toMatchObject({
      decision: "abstained",
      confidence: "low",
      caution: false,
      fallbacks: ["grep", "web-search"],
    });
    // gap = 0.65 − 0.55 = 0.10
    expect(d.gap).toBeCloseTo(0.1, 9);
    expect(d.reasoning).toBe("Because. Score 0.55 < threshold 0.65 (gap 0.10): abstained");
  });

  it("abstained without fallbacks → an empty list", () => {
    expect(decide(0.1, at(0.7)).fallbacks).toEqual([]);
  });

  it("a threshold above 0.85 (wider config) keeps high confidence above the threshold only", () => {
    expect(decide(0.87, at(0.9)).decision).toBe("abstained");
    expect(decide(0.9, at(0.9)).decision).toBe("accepted");
  });

  it("with calibration, a high score whose P(success) < 0.80 falls to the caution tier", () => {
    const d = decide(0.9, at(0.7), [], { calibrate: () => 0.75 });
    expect(d.decision).toBe("accepted-with-caution");
    expect(d.probability).toBe(0.75);
    expect(decide(0.9, at(0.7), [], { calibrate: () => 0.8 }).decision).toBe("accepted");
  });

  it("extremes 0 and 1", () => {
    expect(decide(1, at(0.8)).decision).toBe("accepted");
    expect(decide(0, at(0.6)).gap).toBeCloseTo(0.6, 9);
  });

  it("throws on a score outside [0, 1]", () => {
    expect(() => decide(1.01, at(0.7))).toThrow(ThresholdError);
    expect(() => decide(Number.NaN, at(0.7))).toThrow(/score/);
  });
});

describe("gateTier", () => {
  const th = (t: number) => ({ adjustedThreshold: t, appliedRules: ["r"], reasoning: "base" });

  it("gives the three tiers by hand: 0.9 high, 0.7 caution, 0.5 abstained with gap 0.2 at threshold 0.7", () => {
    expect(gateTier(0.9, 0.7)).toEqual({ decision: "accepted", confidence: "high", caution: false, threshold: 0.7 });
    expect(gateTier(0.7, 0.7)).toEqual({
      decision: "accepted-with-caution",
      confidence: "medium",
      caution: true,
      threshold: 0.7,
    });
    expect(gateTier(0.5, 0.7)).toEqual({
      decision: "abstained",
      confidence: "low",
      caution: false,
      threshold: 0.7,
      gap: 0.2,
    });
    // Calibrated: P = 0.6 < 0.80 keeps a 0.9 score out of the high tier.
    expect(gateTier(0.9, 0.7, { calibrate: () => 0.6 })).toEqual({
      decision: "accepted-with-caution",
      confidence: "medium",
      caution: true,
      threshold: 0.7,
      probability: 0.6,
    });
  });

  it("is decide's decision without the reasoning, fallbacks and rules (same fields, same order)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 0.5, max: 1, noNaN: true }), { nil: undefined }),
        (score, t, p, high) => {
          const options = {
            ...(p === undefined ? {} : { calibrate: () => p }),
            ...(high === undefined ? {} : { highConfidence: high }),
          };
          const d = decide(score, th(t), ["fallback"], options);
          const { score: _s, appliedRules: _r, fallbacks: _f, reasoning: _why, ...rest } = d;
          const tier = gateTier(score, t, options);
          expect(Object.keys(tier).sort()).toEqual(Object.keys(rest).sort());
          expect(tier).toEqual(rest);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("rejects a score outside [0, 1] like decide", () => {
    expect(() => gateTier(1.5, 0.7)).toThrow(ThresholdError);
    expect(() => gateTier(Number.NaN, 0.7)).toThrow(ThresholdError);
  });
});
