import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import {
  coldStartAlpha,
  heatField,
  localAlpha,
  neighborhoodCoherence,
} from "../../../algorithms/search/adaptive-alpha.ts";

// Path 0 — 1 — 2 (weights 1), plus a star around 3: 3–4 (1.0), 3–5 (0.5), 3–6 (0.5); node 7 isolated.
const g = buildCsr(8, [
  { from: 0, to: 1, weight: 1 },
  { from: 1, to: 2, weight: 1 },
  { from: 3, to: 4, weight: 1 },
  { from: 5, to: 3, weight: 0.5 },
  { from: 3, to: 6, weight: 0.5 },
]);

describe("(a) cold start", () => {
  it("n = 0 gives the prior 1.0", () => {
    expect(coldStartAlpha(0, 0.5)).toBe(1);
  });

  it("α = (n·α_est + k)/(n + k)", () => {
    // n = 2, α_est = 0.6, k = 1: (1.2 + 1)/3 = 0.7333333
    expect(coldStartAlpha(2, 0.6)).toBeCloseTo(0.7333333, 6);
    // k = 3: (1.2 + 3)/5 = 0.84
    expect(coldStartAlpha(2, 0.6, 3)).toBeCloseTo(0.84, 12);
  });

  it("localAlpha applies it below 5 observations and reports the regime", () => {
    // node 3, semantic neighbours {4, 5}: coherence = (1.0 + 0.5)/2 = 0.75 → α_est = 1 − 0.375 = 0.625
    // n = 4: (4·0.625 + 1)/5 = 0.7
    const r = localAlpha({ mode: "active", graph: g, node: 3, observations: 4, semanticNeighbors: [4, 5] });
    expect(r.regime).toBe("cold-start");
    expect(r.details.estimate).toBeCloseTo(0.625, 12);
    expect(r.details.estimateFrom).toBe("active-coherence");
    expect(r.alpha).toBeCloseTo(0.7, 12);
  });

  it("rejects negative observations", () => {
    expect(() => coldStartAlpha(-1, 0.5)).toThrow(expect.objectContaining({ code: "bad-observations" }));
  });
});

describe("(b) active search: coherence", () => {
  it("weighted share of semantic neighbours that are graph neighbours", () => {
    // S = {4, 5, 0} (3 itself dropped), G(3) = {4: 1.0, 5: 0.5, 6: 0.5}: (1.0 + 0.5)/3 = 0.5
    const c = neighborhoodCoherence(g, 3, [4, 5, 0, 3]);
    expect(c.coherence).toBeCloseTo(0.5, 12);
    expect(c.shared).toEqual([4, 5]);
    expect(c.semanticCount).toBe(3);
  });

  it("α = 1 − 0.5·coherence with ≥ 5 observations", () => {
    // S = {4, 5, 6}: (1 + 0.5 + 0.5)/3 = 0.6666667 → α = 1 − 0.3333333 = 0.6666667
    const r = localAlpha({ mode: "active", graph: g, node: 3, observations: 10, semanticNeighbors: [4, 5, 6] });
    expect(r.regime).toBe("active-coherence");
    expect(r.alpha).toBeCloseTo(2 / 3, 12);
  });

  it("no semantic neighbours or no graph neighbours → coherence 0 → α = 1", () => {
    expect(neighborhoodCoherence(g, 3, []).coherence).toBe(0);
    expect(localAlpha({ mode: "active", graph: g, node: 7, observations: 9, semanticNeighbors: [1, 2] }).alpha).toBe(1);
  });
});

describe("(c) passive suggestion: heat diffusion", () => {
  it("one step on the path from context {0}", () => {
    // h0 = [1, 0, 0]; τ = 0.5
    // node 0: 0.5·1 + 0.5·avg(h1 = 0) = 0.5;  node 1: 0 + 0.5·avg(1, 0) = 0.25;  node 2: 0 + 0.5·0 = 0
    // max outside context = 0.25 → heat = [1, 1, 0, …]
    const f = heatField(g, [0], { steps: 1 });
    expect(Array.from(f.raw.slice(0, 3))).toEqual([0.5, 0.25, 0]);
    expect(f.maxOutside).toBe(0.25);
    expect(Array.from(f.heat.slice(0, 3))).toEqual([1, 1, 0]);
  });

  it("two steps reach node 2; α = 1 − 0.5·heat", () => {
    // step 2 from [0.5, 0.25, 0]: node 0: 0.25 + 0.5·0.25 = 0.375; node 1: 0.125 + 0.5·avg(0.5, 0) = 0.25;
    // node 2: 0 + 0.5·0.25 = 0.125 → heat(1) = 1, heat(2) = 0.125/0.25 = 0.5 → α(2) = 0.75
    const f = heatField(g, [0], { steps: 2 });
    expect(f.raw[0]).toBeCloseTo(0.375, 12);
    expect(f.raw[2]).toBeCloseTo(0.125, 12);
    const r = localAlpha({ mode: "passive", node: 2, observations: 20, heat: f });
    expect(r.regime).toBe("passive-heat");
    expect(r.details.heat).toBeCloseTo(0.5, 12);
    expect(r.alpha).toBeCloseTo(0.75, 12);
    expect(localAlpha({ mode: "passive", node: 1, observations: 20, heat: f }).alpha).toBe(0.5);
  });

  it("an isolated context node keeps its heat; nothing else warms → heat 0, α = 1", () => {
    const f = heatField(g, [7]);
    expect(f.raw[7]).toBe(1);
    expect(f.maxOutside).toBe(0);
    expect(localAlpha({ mode: "passive", node: 0, observations: 9, heat: f }).alpha).toBe(1);
  });

  it("empty context: all heat 0", () => {
    expect(Array.from(heatField(g, []).heat).every((h) => h === 0)).toBe(true);
  });

  it("rejects τ outside [0, 1] and out-of-range context", () => {
    expect(() => heatField(g, [0], { tau: 2 })).toThrow(expect.objectContaining({ code: "bad-tau" }));
    expect(() => heatField(g, [99])).toThrow(expect.objectContaining({ code: "bad-node" }));
  });
});

describe("properties", () => {
  const arb = fc.integer({ min: 1, max: 8 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), weight: fc.double({ min: 0, max: 1, noNaN: true }) }),
        {
          maxLength: 20,
        },
      ),
      node: fc.nat(n - 1),
      context: fc.array(fc.nat(n - 1), { maxLength: 3 }),
      semantic: fc.array(fc.nat(n - 1), { maxLength: 5 }),
      observations: fc.nat(20),
      steps: fc.nat(5),
      tau: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  );

  it("α ∈ [0.5, 1] and heat ∈ [0, 1] in every regime, deterministically", () => {
    fc.assert(
      fc.property(arb, (x) => {
        const csr = buildCsr(x.n, x.edges);
        const f = heatField(csr, x.context, { steps: x.steps, tau: x.tau });
        for (const h of f.heat) {
          expect(h).toBeGreaterThanOrEqual(0);
          expect(h).toBeLessThanOrEqual(1);
        }
        const a = localAlpha({
          mode: "active",
          graph: csr,
          node: x.node,
          observations: x.observations,
          semanticNeighbors: x.semantic,
        });
        const p = localAlpha({ mode: "passive", node: x.node, observations: x.observations, heat: f });
        for (const r of [a, p]) {
          expect(r.alpha).toBeGreaterThanOrEqual(0.5);
          expect(r.alpha).toBeLessThanOrEqual(1);
        }
        expect(
          localAlpha({
            mode: "active",
            graph: csr,
            node: x.node,
            observations: x.observations,
            semanticNeighbors: x.semantic,
          }),
        ).toEqual(a);
      }),
    );
  });
});
