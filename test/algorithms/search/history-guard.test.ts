import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULTS, historyTrust } from "../../../algorithms/search/history-guard.ts";
import { rankHybridCandidates } from "../../../algorithms/search/hybrid-rank.ts";
import { SearchError } from "../../../algorithms/search/search-error.ts";

const cand = (id: number, semantic: number) => ({ id, semantic, cosine: semantic, bm25: 0, bm25Norm: 0 });

describe("historyTrust", () => {
  it("ramps smoothly from low to high (hand-computed)", () => {
    expect(historyTrust(0)).toBe(0);
    expect(historyTrust(DEFAULTS.low)).toBe(0);
    expect(historyTrust(DEFAULTS.high)).toBe(1);
    expect(historyTrust(1)).toBe(1);
    const ramp = { low: 0.3, high: 0.8 };
    // s 0.55 → t 0.5 → 0.25·2 = 0.5; s 0.4 → t 0.2 → 0.04·2.6 = 0.104
    expect(historyTrust(0.55, ramp)).toBeCloseTo(0.5, 12);
    expect(historyTrust(0.4, ramp)).toBeCloseTo(0.104, 12);
    expect(historyTrust(0.5, { low: 0, high: 1 })).toBeCloseTo(0.5, 12);
    // the defaults, midway: (low + high) / 2 → 0.5
    expect(historyTrust((DEFAULTS.low + DEFAULTS.high) / 2)).toBeCloseTo(0.5, 12);
  });

  it("strength γ: trust = 1 − γ·(1 − ramp) (hand-computed); γ 0 is no guard", () => {
    const ramp = { low: 0.3, high: 0.8 };
    // s 0.4: ramp 0.104; γ 0.5 → 1 − 0.5·0.896 = 0.552
    expect(historyTrust(0.4, { ...ramp, strength: 0.5 })).toBeCloseTo(0.552, 12);
    expect(historyTrust(0, { strength: 0.5 })).toBeCloseTo(0.5, 12);
    expect(historyTrust(0, { strength: 0 })).toBe(1);
    expect(() => historyTrust(0.5, { strength: 2 })).toThrow(/strength must be in \[0, 1\], got 2/);
  });

  it("is 1 without any past intent (nothing learned to guard)", () => {
    expect(historyTrust(undefined)).toBe(1);
  });

  it("rejects a similarity outside [0, 1] and a bad ramp, naming them", () => {
    expect(() => historyTrust(-0.1)).toThrow(SearchError);
    expect(() => historyTrust(Number.NaN)).toThrow(/similarity must be in \[0, 1\], got NaN/);
    expect(() => historyTrust(0.5, { low: 0.6, high: 0.4 })).toThrow(/low 0.6, high 0.4/);
  });

  it("property: in [1 − γ, 1], non-decreasing in s, non-increasing in γ, 1 − γ at and below low, 1 at and above high", () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(unit, unit, unit, unit, (x, y, g1, g2) => {
        const [a, b] = x <= y ? [x, y] : [y, x];
        const [lo, hi] = g1 <= g2 ? [g1, g2] : [g2, g1];
        const ta = historyTrust(a, { strength: hi });
        const tb = historyTrust(b, { strength: hi });
        expect(ta).toBeGreaterThanOrEqual(1 - hi - 1e-12);
        expect(tb).toBeLessThanOrEqual(1);
        expect(tb).toBeGreaterThanOrEqual(ta);
        expect(historyTrust(a, { strength: lo })).toBeGreaterThanOrEqual(ta - 1e-12);
        if (a <= DEFAULTS.low) expect(ta).toBeCloseTo(1 - hi, 12);
        if (b >= DEFAULTS.high) expect(tb).toBe(1);
      }),
    );
  });
});

describe("the guard in the hybrid ranking", () => {
  // Tool 0 matches the description (content 0.6, never run); tool 1 is the history's favourite (content 0.3,
  // memory vote 1, global signal 0.9); a fixed α 0.5.
  const input = {
    candidates: [cand(0, 0.6), cand(1, 0.3)],
    executions: [0, 10],
    memory: new Map([[1, 1]]),
    memoryWeight: 0.8,
    global: [0, 0.9],
    graphWeight: 1,
    channel: "hybrid" as const,
    fixedAlpha: 0.5,
  };

  it("trust 1 (a repeated request): the history's favourite wins, as without the guard", () => {
    // tool 1: semantic 1 − 0.7·0.2 = 0.86; final 0.86 + 0.5·0.14·0.9 = 0.923; tool 0: 0.6
    const hits = rankHybridCandidates({ ...input, historyTrust: 1 });
    expect(hits.map((h) => h.index)).toEqual([1, 0]);
    expect(hits[0]!.final).toBeCloseTo(0.923, 12);
    expect(rankHybridCandidates(input).map((h) => h.final)).toEqual(hits.map((h) => h.final));
  });

  it("trust 0 (a novel request): the description decides", () => {
    const hits = rankHybridCandidates({ ...input, historyTrust: 0 });
    expect(hits.map((h) => h.index)).toEqual([0, 1]);
    expect(hits[1]!.final).toBeCloseTo(0.3, 12);
    expect(hits[1]!.graph).toBe(0);
    expect(hits[1]!.historyTrust).toBe(0);
  });

  it("trust 0.5 halves μ and the global term (hand-computed)", () => {
    // tool 1: semantic 1 − 0.7·(1 − 0.4) = 0.58; graph 0.45; final 0.58 + 0.5·0.42·0.45 = 0.6745
    const hits = rankHybridCandidates({ ...input, historyTrust: 0.5 });
    expect(hits[0]!.index).toBe(1);
    expect(hits[0]!.semantic).toBeCloseTo(0.58, 12);
    expect(hits[0]!.graph).toBeCloseTo(0.45, 12);
    expect(hits[0]!.final).toBeCloseTo(0.6745, 12);
  });

  it("rejects a trust outside [0, 1]", () => {
    expect(() => rankHybridCandidates({ ...input, historyTrust: 1.5 })).toThrow(
      /historyTrust must be in \[0, 1\], got 1.5/,
    );
  });
});
