import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULTS, guardPrior } from "../../../algorithms/search/guard-prior.ts";

const score = fc.double({ min: 0, max: 1, noNaN: true });
const pairs = fc.array(fc.tuple(score, score), { minLength: 0, maxLength: 80 });

describe("guardPrior", () => {
  it("hand-computed: lower bound of the memory's advantage sets γ₀", () => {
    // d = 0.3 (15 times), 0.1 (15 times), n 30: mean 0.2, sd √(30·0.01/29), se = sd/√30 = 0.1/√29,
    // lower 0.2 − 1.645·0.1/√29 = 0.16945…, γ₀ = 1 − lower/0.2 = 0.15273…
    const memory = [...Array(15).fill(0.5), ...Array(15).fill(0.3)];
    const content = Array(30).fill(0.2);
    const p = guardPrior(memory, content);
    const lower = 0.2 - (1.645 * 0.1) / Math.sqrt(29);
    expect(p.lower).toBeCloseTo(lower, 12);
    expect(p.strength).toBeCloseTo(1 - lower / 0.2, 12);
    expect(p.memory).toBeCloseTo(0.4, 12);
    expect(p.content).toBeCloseTo(0.2, 12);
    // d all 0.1: se 0 → lower 0.1 → γ₀ 1 − 0.1/0.2 = 0.5; d all 0.3: lower ≥ span → 0
    expect(guardPrior(Array(30).fill(0.6), Array(30).fill(0.5)).strength).toBeCloseTo(0.5, 12);
    expect(guardPrior(Array(30).fill(0.6), Array(30).fill(0.3)).strength).toBe(0);
    // descriptions better: full guard
    expect(guardPrior(Array(30).fill(0.4), Array(30).fill(0.8)).strength).toBe(1);
    // fewer than minGroups groups: not judged
    const few = guardPrior(Array(DEFAULTS.minGroups - 1).fill(1), Array(DEFAULTS.minGroups - 1).fill(0));
    expect(few.strength).toBe(1);
    expect(few.lower).toBeNaN();
  });

  it("refuses bad input, naming it", () => {
    expect(() => guardPrior([0.5], [])).toThrow(/one score per group/);
    expect(() => guardPrior([1.5], [0.5])).toThrow(/memory scores must be in \[0, 1\], got 1.5/);
    expect(() => guardPrior([0.5], [Number.NaN])).toThrow(/content scores must be in \[0, 1\]/);
    expect(() => guardPrior([], [], { span: 0 })).toThrow(/span must be > 0/);
    expect(() => guardPrior([], [], { minGroups: 1 })).toThrow(/minGroups/);
  });

  it("property: γ₀ ∈ [0, 1]; 1 when the memory is no better on average or the sample is small", () => {
    fc.assert(
      fc.property(pairs, (ps) => {
        const m = ps.map((p) => p[0]);
        const c = ps.map((p) => p[1]);
        const { strength } = guardPrior(m, c);
        expect(strength).toBeGreaterThanOrEqual(0);
        expect(strength).toBeLessThanOrEqual(1);
        const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
        if (ps.length < DEFAULTS.minGroups || sum(m) <= sum(c)) expect(strength).toBe(1);
      }),
    );
  });

  it("property: independent of the order of the groups", () => {
    fc.assert(
      fc.property(pairs, fc.integer(), (ps, seed) => {
        const shuffled = [...ps].sort(
          (a, b) => ((a[0] * 7919 + a[1] * 104729 + seed) % 1) - ((b[0] * 7919 + b[1] * 104729 + seed) % 1),
        );
        const x = guardPrior(
          ps.map((p) => p[0]),
          ps.map((p) => p[1]),
        );
        const y = guardPrior(
          shuffled.map((p) => p[0]),
          shuffled.map((p) => p[1]),
        );
        expect(y.strength).toBeCloseTo(x.strength, 9);
      }),
    );
  });

  it("property: a uniform rise of the memory's advantage never raises γ₀", () => {
    fc.assert(
      fc.property(pairs, fc.double({ min: 0, max: 0.5, noNaN: true }), (ps, delta) => {
        // Raise memory where there is room, else lower content: every d_i rises by delta.
        const fits = ps.filter((p) => p[0] + delta <= 1);
        const m = fits.map((p) => p[0]);
        const c = fits.map((p) => p[1]);
        const before = guardPrior(m, c).strength;
        const after = guardPrior(
          m.map((x) => x + delta),
          c,
        ).strength;
        expect(after).toBeLessThanOrEqual(before + 1e-9);
      }),
    );
  });
});
