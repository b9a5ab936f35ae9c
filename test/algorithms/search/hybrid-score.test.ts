import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { heatField, localAlpha } from "../../../algorithms/search/adaptive-alpha.ts";
import { graphEvidence, hybridScore, rankHybrid } from "../../../algorithms/search/hybrid-score.ts";

describe("hybridScore (hand-computed)", () => {
  it("lift: final = s + (1 − α)(1 − s)·g", () => {
    // s = 0.6, g = 0.5, α = 0.7: 0.6 + 0.3·0.4·0.5 = 0.66
    // (= α·s + (1 − α)(1 − (1 − s)(1 − g)) = 0.42 + 0.3·0.8 = 0.66)
    expect(hybridScore(0.6, 0.5, 0.7)).toBeCloseTo(0.66, 12);
  });

  it("α = 1 or g = 0 gives the semantic score", () => {
    expect(hybridScore(0.6, 0.9, 1)).toBeCloseTo(0.6, 12);
    expect(hybridScore(0.6, 0, 0.5)).toBeCloseTo(0.6, 12);
  });

  it("convex (seed literal): α·s + (1 − α)·g", () => {
    // 0.7·0.6 + 0.3·0.5 = 0.57
    expect(hybridScore(0.6, 0.5, 0.7, { combine: "convex" })).toBeCloseTo(0.57, 12);
  });

  it("the convex mix shows the reference defect: history ranks below no history", () => {
    // s = 0.9 for both; the used tool has α = 0.5 and a weak global signal g = 0.2:
    // convex: 0.5·0.9 + 0.5·0.2 = 0.55 < 0.9 = the never-run tool's score (α = 1).
    expect(hybridScore(0.9, 0.2, 0.5, { combine: "convex" })).toBeCloseTo(0.55, 12);
    expect(hybridScore(0.9, 0.2, 0.5, { combine: "convex" })).toBeLessThan(
      hybridScore(0.9, 0, 1, { combine: "convex" }),
    );
    // lift: 0.9 + 0.5·0.1·0.2 = 0.91 ≥ 0.9
    expect(hybridScore(0.9, 0.2, 0.5)).toBeCloseTo(0.91, 12);
  });

  it("rejects inputs outside [0, 1]", () => {
    expect(() => hybridScore(1.2, 0, 1)).toThrow(expect.objectContaining({ code: "bad-score" }));
  });
});

describe("graphEvidence", () => {
  const global = [0.3, 0.8];
  it("uses the context score when there is context", () => {
    expect(graphEvidence(1, true, () => 0.4, global)).toBe(0.4);
  });
  it("falls back to the global signal without context; 0 beyond the array", () => {
    expect(graphEvidence(1, false, () => 0.4, global)).toBe(0.8);
    expect(graphEvidence(5, false, () => 0.4, global)).toBe(0);
    expect(graphEvidence(0, false, () => 0.4, undefined)).toBe(0);
  });
});

describe("rankHybrid", () => {
  it("orders by final, then graph, then semantic, then id", () => {
    const r = rankHybrid([
      { id: 0, semantic: 0.5, alpha: 1, graph: 0 }, // 0.5
      { id: 1, semantic: 0.5, alpha: 1, graph: 0.7 }, // 0.5, more graph evidence → before id 0
      { id: 2, semantic: 0.4, alpha: 0.5, graph: 1 }, // 0.4 + 0.5·0.6·1 = 0.7
    ]);
    expect(r.map((h) => h.id)).toEqual([2, 1, 0]);
    expect(r[0]!.final).toBeCloseTo(0.7, 12);
  });
});

describe("property: a tool with history never ranks below an identical-text tool without one", () => {
  // A small graph for the α regimes: 0–1–2–3 path and the "used" tool 4 linked to 1 and 2.
  const g = buildCsr(6, [
    { from: 0, to: 1, weight: 1 },
    { from: 1, to: 2, weight: 0.8 },
    { from: 2, to: 3, weight: 0.5 },
    { from: 4, to: 1, weight: 1 },
    { from: 4, to: 2, weight: 0.7 },
  ]);
  const used = 4;
  const fresh = 5; // never run: no edges, 0 observations, global signal 0 → cold start α = 1

  it("for every α regime, semantic score and global signal", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }), // shared semantic score
        fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }), // global signal of the used tool (> 0)
        fc.nat(30), // observations of the used tool
        fc.constantFrom("active", "passive"),
        fc.subarray([0, 1, 2, 3]), // semantic neighbours (active) / context (passive, ignored for the graph term)
        (semantic, globalUsed, observations, mode, set) => {
          const global = new Float64Array(6);
          global[used] = globalUsed;
          const heat = heatField(g, set);
          const alphaOf = (node: number, obs: number) =>
            mode === "active"
              ? localAlpha({ mode: "active", graph: g, node, observations: obs, semanticNeighbors: set }).alpha
              : localAlpha({ mode: "passive", node, observations: obs, heat }).alpha;
          const aFresh = alphaOf(fresh, 0);
          expect(aFresh).toBe(1);
          const ranked = rankHybrid([
            { id: fresh, semantic, alpha: aFresh, graph: graphEvidence(fresh, false, () => 0, global) },
            {
              id: used,
              semantic,
              alpha: alphaOf(used, observations),
              graph: graphEvidence(used, false, () => 0, global),
            },
          ]);
          // ranks ≥: the used tool comes first (fresh has the smaller id, so ties alone would not explain it)
          expect(ranked[0]!.id).toBe(used);
          expect(ranked[0]!.final).toBeGreaterThanOrEqual(ranked[1]!.final);
        },
      ),
    );
  });

  it("holds for arbitrary α of the used tool too", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        (s, gUsed, alpha) => {
          expect(hybridScore(s, gUsed, alpha)).toBeGreaterThanOrEqual(hybridScore(s, 0, 1));
        },
      ),
    );
  });

  it("final ∈ [0, 1] and is non-decreasing in semantic and graph", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (s, gr, a, d) => {
          const f = hybridScore(s, gr, a);
          expect(f).toBeGreaterThanOrEqual(0);
          expect(f).toBeLessThanOrEqual(1);
          expect(hybridScore(Math.min(1, s + d), gr, a)).toBeGreaterThanOrEqual(f - 1e-12);
          expect(hybridScore(s, Math.min(1, gr + d), a)).toBeGreaterThanOrEqual(f - 1e-12);
        },
      ),
    );
  });
});
