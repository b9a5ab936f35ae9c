import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  contextKeyOf,
  contextKeyString,
  emptyContextThreshold,
  type GateOutcome,
  updateContextThreshold,
} from "../../../algorithms/thresholds/context-learning.ts";
import { ThresholdError } from "../../../algorithms/thresholds/errors.ts";

const OUTCOMES: GateOutcome[] = [
  "accepted-succeeded",
  "accepted-failed",
  "abstained-followed-succeeded",
  "abstained-followed-failed",
  "abstained-not-followed",
];

describe("updateContextThreshold", () => {
  it("an accepted answer that failed pushes the offset up by one step (0 → 0.01)", () => {
    const s = updateContextThreshold(emptyContextThreshold(), "accepted-failed");
    expect(s.offset).toBeCloseTo(0.01, 12);
    expect(s.counts["accepted-failed"]).toBe(1);
  });

  it("an abstention the user followed successfully pushes it down (0 → −0.01)", () => {
    expect(updateContextThreshold(emptyContextThreshold(), "abstained-followed-succeeded").offset).toBeCloseTo(
      -0.01,
      12,
    );
  });

  it("other outcomes only count", () => {
    for (const o of ["accepted-succeeded", "abstained-followed-failed", "abstained-not-followed"] as const) {
      const s = updateContextThreshold(emptyContextThreshold(), o);
      expect(s.offset).toBe(0);
      expect(s.counts[o]).toBe(1);
    }
  });

  it("stops at the ceiling: 12 failures give +0.10 (0.70 + 0.10 = 0.80), not +0.12", () => {
    let s = emptyContextThreshold();
    for (let i = 0; i < 12; i++) s = updateContextThreshold(s, "accepted-failed");
    expect(s.offset).toBeCloseTo(0.1, 12);
  });

  it("stops at the floor: −0.10", () => {
    let s = emptyContextThreshold();
    for (let i = 0; i < 15; i++) s = updateContextThreshold(s, "abstained-followed-succeeded");
    expect(s.offset).toBeCloseTo(-0.1, 12);
  });

  it("a wider configured range: floor 0.5, step 0.05 → after 5 steps down −0.20", () => {
    let s = emptyContextThreshold();
    for (let i = 0; i < 5; i++)
      s = updateContextThreshold(s, "abstained-followed-succeeded", { floor: 0.5, step: 0.05 });
    expect(s.offset).toBeCloseTo(-0.2, 12);
  });

  it("does not mutate its input", () => {
    const s = emptyContextThreshold();
    const copy = structuredClone(s);
    updateContextThreshold(s, "accepted-failed");
    expect(s).toEqual(copy);
  });

  it("throws on a negative step or an unknown outcome", () => {
    expect(() => updateContextThreshold(emptyContextThreshold(), "accepted-failed", { step: -0.01 })).toThrow(
      ThresholdError,
    );
    expect(() => updateContextThreshold(emptyContextThreshold(), "nope" as GateOutcome)).toThrow(
      /unknown gate outcome/,
    );
  });

  it("property: each update moves at most one step and stays within the bounds", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...OUTCOMES), { maxLength: 200 }), (outcomes) => {
        let s = emptyContextThreshold();
        for (const o of outcomes) {
          const next = updateContextThreshold(s, o);
          if (Math.abs(next.offset - s.offset) > 0.01 + 1e-9) return false;
          if (next.offset < -0.1 - 1e-9 || next.offset > 0.1 + 1e-9) return false;
          s = next;
        }
        return Object.values(s.counts).reduce((a, b) => a + b, 0) === outcomes.length;
      }),
    );
  });
});

describe("context keys", () => {
  it("missing operation or domain become 'unknown'", () => {
    expect(contextKeyOf({ project: "p" })).toEqual({ project: "p", operation: "unknown", domain: "unknown" });
  });

  it("key strings separate fields unambiguously", () => {
    expect(contextKeyString({ project: "a", operation: "b c", domain: "d" })).not.toBe(
      contextKeyString({ project: "a b", operation: "c", domain: "d" }),
    );
  });
});
