import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { noisyOr } from "../../../algorithms/memory/noisy-or.ts";
import { capabilitySemantic } from "../../../algorithms/search/capability-evidence.ts";
import { SearchError } from "../../../algorithms/search/search-error.ts";

const unit = fc.double({ min: 0, max: 1, noNaN: true });

describe("capabilitySemantic", () => {
  it("lifts the texts by the tool evidence and the guarded vote (hand-computed)", () => {
    const e = { content: 0.5, toolEvidence: 0.5, vote: 0.5 };
    // 1 − 0.5 · (1 − 0.8·0.5) · (1 − 0.8·τ·0.5)
    expect(capabilitySemantic({ ...e, trust: 1 })).toBeCloseTo(1 - 0.5 * 0.6 * 0.6, 12); // 0.82
    expect(capabilitySemantic({ ...e, trust: 0.5 })).toBeCloseTo(1 - 0.5 * 0.6 * 0.8, 12); // 0.76
    expect(capabilitySemantic({ ...e, trust: 0 })).toBeCloseTo(1 - 0.5 * 0.6, 12); // 0.70
  });

  it("with full trust, equals the unguarded lift bit for bit", () => {
    fc.assert(
      fc.property(unit, unit, unit, (content, toolEvidence, vote) => {
        expect(capabilitySemantic({ content, toolEvidence, vote, trust: 1 })).toBe(
          noisyOr(noisyOr(content, 0.8, toolEvidence), 0.8, vote),
        );
      }),
    );
  });

  it("is in [content, 1], ignores the vote without trust, and grows with trust", () => {
    fc.assert(
      fc.property(unit, unit, unit, unit, unit, (content, toolEvidence, vote, t1, t2) => {
        const [lo, hi] = t1 <= t2 ? [t1, t2] : [t2, t1];
        const a = capabilitySemantic({ content, toolEvidence, vote, trust: lo });
        const b = capabilitySemantic({ content, toolEvidence, vote, trust: hi });
        expect(a).toBeGreaterThanOrEqual(content - 1e-15);
        expect(b).toBeLessThanOrEqual(1);
        expect(b).toBeGreaterThanOrEqual(a);
        expect(capabilitySemantic({ content, toolEvidence, vote, trust: 0 })).toBe(noisyOr(content, 0.8, toolEvidence));
      }),
    );
  });

  it("names a trust outside [0, 1]", () => {
    for (const trust of [-0.1, 1.5, Number.NaN])
      expect(() => capabilitySemantic({ content: 0.5, toolEvidence: 0, vote: 0, trust })).toThrow(SearchError);
    expect(() => capabilitySemantic({ content: 0.5, toolEvidence: 0, vote: 0, trust: 2 })).toThrow(/trust/);
  });
});
