import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { averagePrecisionAtK } from "../../../algorithms/evaluation/retrieval-metrics.ts";
import { DEFAULTS, type FusionWeights, fitFusionWeights } from "../../../algorithms/search/fit-fusion-weights.ts";
import { fusedSemantic } from "../../../algorithms/search/fusion.ts";
import { rankHybridCandidates } from "../../../algorithms/search/hybrid-rank.ts";

/** A training case: per tool its raw cosine, normalised BM25, memory vote and graph value; the relevant tools. */
interface Case {
  cosine: number[];
  bm25: number[];
  vote: number[];
  graph: number[];
  relevant: Set<number>;
}

/** mAP@k of the ranking the real scoring loop gives with these weights (fixed α 0.5, global graph term). */
function mapOf(cases: readonly Case[], w: FusionWeights, k = 3): number {
  let sum = 0;
  for (const c of cases) {
    const n = c.cosine.length;
    const candidates = Array.from({ length: n }, (_, id) => ({
      id,
      semantic: fusedSemantic(c.cosine[id]!, c.bm25[id]!, w.beta),
      cosine: c.cosine[id]!,
      bm25: c.bm25[id]!,
      bm25Norm: c.bm25[id]!,
    }));
    const memory = new Map<number, number>();
    c.vote.forEach((v, id) => {
      if (v > 0) memory.set(id, v);
    });
    const ranked = rankHybridCandidates({
      candidates,
      executions: new Array(n).fill(10),
      memory: w.memoryWeight > 0 ? memory : undefined,
      memoryWeight: w.memoryWeight,
      contentWeight: w.contentWeight,
      global: c.graph,
      graphWeight: w.graphWeight,
      channel: "hybrid",
      fixedAlpha: 0.5,
    }).map((h) => h.index);
    sum += averagePrecisionAtK(ranked.slice(0, k), c.relevant, k);
  }
  return sum / cases.length;
}

describe("fitFusionWeights", () => {
  it("memory beats content: the fit turns content down to the memory channel's order", async () => {
    // Tool 0 is relevant (AP@2: 1 when first, ½ when second). Content s = β·cos + (1 − β)·bm25 = 0.5 (tool 0)
    // and 0.9 (tool 1) for every β; votes 0.5 and 0.4. With w_c = 1 no μ helps (μ = 1: 1 − 0.5·0.5 = 0.75 <
    // 1 − 0.1·0.6 = 0.94), so μ* = 0 and the w_c stage runs at μ = 1:
    //   w_c 0.75: 1 − 0.625·0.5 = 0.6875 < 1 − 0.325·0.6 = 0.805      tool 1 first
    //   w_c 0.5:  1 − 0.75·0.5  = 0.625  < 1 − 0.55·0.6  = 0.67       tool 1 first
    //   w_c 0.25: 1 − 0.875·0.5 = 0.5625 > 1 − 0.775·0.6 = 0.535      tool 0 first → AP 1 (first on the grid)
    const cases: Case[] = [
      { cosine: [0.5, 0.9], bm25: [0.5, 0.9], vote: [0.5, 0.4], graph: [0, 0], relevant: new Set([0]) },
    ];
    const fit = await fitFusionWeights((w) => mapOf(cases, w, 2));
    expect(fit.objective).toBe(1);
    expect(fit.channels.memory.objective).toBe(1);
    expect(fit.channels.content.objective).toBe(0.5);
    expect(fit.weights.contentWeight).toBe(0.25);
    expect(fit.weights.memoryWeight).toBe(1);
  });

  it("a flat content curve keeps w_c = 1 (today's answers)", async () => {
    const fit = await fitFusionWeights((w) => (w.memoryWeight === 0.6 ? 0.8 : 0.5));
    expect(fit.weights).toEqual({ beta: 0, memoryWeight: 0.6, contentWeight: 1, graphWeight: 0 });
    expect(fit.objective).toBe(0.8);
    expect(fit.curves.content.map((p) => p.weights.contentWeight)).toEqual([...DEFAULTS.contentGrid]);
  });

  it("identical weights are evaluated once; bad grids and objectives throw naming the field", async () => {
    let calls = 0;
    const fit = await fitFusionWeights(() => {
      calls++;
      return 0;
    });
    // 11 β + 5 new μ + 4 new w_c (μ = 1, w_c = 1 is a μ point) + 3 new graph + 1 graph-alone anchor.
    expect(calls).toBe(24);
    expect(fit.evaluations).toBe(24);
    await expect(fitFusionWeights(() => 0, { contentGrid: [] })).rejects.toThrow(/contentGrid/);
    await expect(fitFusionWeights(() => 0, { graphGrid: [1.5] })).rejects.toThrow(/graphGrid/);
    await expect(fitFusionWeights(() => Number.NaN)).rejects.toThrow(/objective/);
  });

  it("property: the fitted training objective ≥ each single channel's (content at its best β, memory, graph)", async () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const caseArb = fc.integer({ min: 3, max: 6 }).chain((n) =>
      fc.record({
        cosine: fc.array(fc.double({ min: -0.2, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
        bm25: fc.array(unit, { minLength: n, maxLength: n }),
        vote: fc.array(fc.oneof(fc.constant(0), unit), { minLength: n, maxLength: n }),
        graph: fc.array(unit, { minLength: n, maxLength: n }),
        relevant: fc
          .uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 2 })
          .map((r) => new Set(r)),
      }),
    );
    const grids = { betaGrid: [0, 0.5, 1], memoryGrid: [0, 0.5, 1], contentGrid: [1, 0.5, 0], graphGrid: [0, 0.5, 1] };
    await fc.assert(
      fc.asyncProperty(fc.array(caseArb, { minLength: 1, maxLength: 6 }), async (cases) => {
        const fit = await fitFusionWeights((w) => mapOf(cases, w), grids);
        const eps = 1e-12 + DEFAULTS.tolerance;
        // Each channel alone, computed here independently of the fit's own anchors.
        const content = Math.max(
          ...grids.betaGrid.map((beta) => mapOf(cases, { beta, memoryWeight: 0, contentWeight: 1, graphWeight: 0 })),
        );
        const memory = mapOf(cases, { beta: 0.5, memoryWeight: 1, contentWeight: 0, graphWeight: 0 });
        const graph = mapOf(cases, { beta: 0.5, memoryWeight: 0, contentWeight: 0, graphWeight: 1 });
        expect(mapOf(cases, fit.weights)).toBe(fit.objective);
        expect(fit.objective).toBeGreaterThanOrEqual(content - eps);
        expect(fit.objective).toBeGreaterThanOrEqual(memory - eps);
        expect(fit.objective).toBeGreaterThanOrEqual(graph - eps);
      }),
      { seed: 20, numRuns: 60 },
    );
  });

  it("tolerance: gains within it are ties, the value nearest the preferred setting wins; larger gains move", async () => {
    const preferred = { beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1 };
    // Only the graph weight matters; two samples of the same traffic whose flat curves peak at different points
    // (by 0.004 and 0.003, within the tolerance 0.005): both keep the preferred graph weight 1.
    const flatA = (w: FusionWeights) =>
      ({ 0: 0.7, 0.25: 0.701, 0.5: 0.704, 1: 0.7 })[w.graphWeight as 0 | 0.25 | 0.5 | 1];
    const flatB = (w: FusionWeights) =>
      ({ 0: 0.7, 0.25: 0.703, 0.5: 0.701, 1: 0.7 })[w.graphWeight as 0 | 0.25 | 0.5 | 1];
    const a = await fitFusionWeights(flatA, { preferred });
    const b = await fitFusionWeights(flatB, { preferred });
    expect(a.weights.graphWeight).toBe(1);
    expect(b.weights).toEqual(a.weights);
    // β: every value ties, so the preferred 0.5; μ likewise 0.8 (the preferred), w_c 1.
    expect(a.weights).toEqual(preferred);
    // Without the tolerance each sample follows its own peak.
    expect((await fitFusionWeights(flatA, { preferred, tolerance: 0 })).weights.graphWeight).toBe(0.5);
    expect((await fitFusionWeights(flatB, { preferred, tolerance: 0 })).weights.graphWeight).toBe(0.25);
    // A gain of 0.02 is beyond the tolerance: it moves.
    const steep = (w: FusionWeights) => (w.graphWeight === 0.25 ? 0.72 : 0.7);
    const c = await fitFusionWeights(steep, { preferred });
    expect(c.weights.graphWeight).toBe(0.25);
    expect(c.objective).toBe(0.72);
    await expect(fitFusionWeights(flatA, { tolerance: -1 })).rejects.toThrow(/tolerance must be ≥ 0, got -1/);
  });

  it("guardGrid: stage 5 fits the history guard's strength from stage 4's best; ties keep the full guard", async () => {
    const preferred = { beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1, historyGuard: 1 };
    const by = (gain: number) => (w: FusionWeights) => 0.7 + ((w.historyGuard ?? 1) === 0 ? gain : 0);
    const clear = await fitFusionWeights(by(0.01), { preferred, guardGrid: [1, 0.5, 0] });
    expect(clear.weights).toEqual({ ...preferred, historyGuard: 0 });
    expect(clear.curves.guard.map((p) => p.weights.historyGuard ?? 1)).toEqual([1, 0.5, 0]);
    const noise = await fitFusionWeights(by(0.003), { preferred, guardGrid: [1, 0.5, 0] });
    expect(noise.weights.historyGuard ?? 1).toBe(1);
    // Without a guardGrid there is no stage 5.
    expect((await fitFusionWeights(by(0.01), { preferred })).curves.guard).toEqual([]);
  });

  it("baseGuard: an absent strength stands for it, so γ 1 on the grid is scored, not taken for the absent one", async () => {
    // The caller's objective reads an absent γ as its base 0.4; γ 1 scores best by 0.02.
    const calls: (number | undefined)[] = [];
    const objective = (w: FusionWeights) => {
      calls.push(w.historyGuard);
      return 0.7 + ((w.historyGuard ?? 0.4) === 1 ? 0.02 : 0);
    };
    const preferred = { beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1, historyGuard: 0.4 };
    const r = await fitFusionWeights(objective, { preferred, baseGuard: 0.4, guardGrid: [0.4, 1, 0] });
    expect(r.weights.historyGuard).toBe(1);
    expect(r.objective).toBeCloseTo(0.72, 12);
    expect(calls).toContain(1);
    // Ties keep the base: with no gain the preferred 0.4 stays.
    const flat = await fitFusionWeights(() => 0.7, { preferred, baseGuard: 0.4, guardGrid: [0.4, 1, 0] });
    expect(flat.weights.historyGuard ?? 0.4).toBe(0.4);
    await expect(fitFusionWeights(() => 0.7, { baseGuard: 2 })).rejects.toThrow(/baseGuard must be in \[0, 1\], got 2/);
  });

  it("contentFloor: no evaluated point goes below it; the memory and graph anchors keep content at the floor", async () => {
    const seen: FusionWeights[] = [];
    // An objective that rewards turning content off: the lower w_c, the better.
    const fit = await fitFusionWeights(
      (w) => {
        seen.push(w);
        return 1 - w.contentWeight + w.memoryWeight / 10;
      },
      { contentFloor: 0.5 },
    );
    expect(Math.min(...seen.map((w) => w.contentWeight))).toBe(0.5);
    expect(fit.weights.contentWeight).toBe(0.5);
    expect(fit.curves.content.map((p) => p.weights.contentWeight)).toEqual([1, 0.75, 0.5]);
    expect(fit.channels.memory.weights).toMatchObject({ memoryWeight: 1, contentWeight: 0.5, graphWeight: 0 });
    expect(fit.channels.graph.weights).toMatchObject({ memoryWeight: 0, contentWeight: 0.5, graphWeight: 1 });
    await expect(fitFusionWeights(() => 0, { contentFloor: 1.5 })).rejects.toThrow(/contentFloor/);
  });
});
