import { describe, expect, it } from "vitest";
import { buildCsr, undirectedNeighbors } from "../../../algorithms/graph/csr.ts";
import { coherenceAlpha, toolCoherence, toolCoherenceSteps } from "../../../algorithms/search/coherence.ts";

// 0–1 (weight 2), 0–2 (weight 1); 3 isolated.
const g = buildCsr(4, [
  { from: 0, to: 1, weight: 2 },
  { from: 2, to: 0, weight: 1 },
]);
// cosines: (0,1) = 0.9, (0,2) = −0.5 (clamped to 0)
const cos = (u: number, v: number) => {
  const k = `${Math.min(u, v)}-${Math.max(u, v)}`;
  return k === "0-1" ? 0.9 : k === "0-2" ? -0.5 : 0;
};

describe("toolCoherence", () => {
  it("weighted mean of clamped cosines over the undirected neighbours", () => {
    const c = toolCoherence(g, 4, cos);
    expect(c[0]).toBeCloseTo((2 * 0.9 + 1 * 0) / 3, 12); // 0.6
    expect(c[1]).toBeCloseTo(0.9, 12);
    expect(c[2]).toBe(0);
    expect(c[3]).toBe(0); // isolated
  });

  it("α_est = 1 − 0.5·coherence", () => {
    expect(coherenceAlpha(0)).toBe(1);
    expect(coherenceAlpha(0.6)).toBeCloseTo(0.7, 12);
    expect(coherenceAlpha(1)).toBe(0.5);
  });
});

describe("toolCoherenceSteps", () => {
  it("pauses over 6,000 neighbours and returns, bit for bit, the weighted mean of clamped cosines", () => {
    const n = 200;
    const edges = Array.from({ length: 3000 }, (_, k) => ({
      from: (k * 7) % n,
      to: (k * 11 + Math.floor(k / n)) % n,
      weight: ((k % 13) + 1) / 13,
    }));
    const g = buildCsr(n, edges);
    const cos = (u: number, v: number) => Math.sin(u * 0.37 + v * 1.13);
    const steps = toolCoherenceSteps(g, n, cos);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBeGreaterThan(1);
    const byHand = new Float64Array(n);
    for (let u = 0; u < n; u++) {
      const { ids, weights } = undirectedNeighbors(g, u);
      let num = 0;
      let den = 0;
      for (let k = 0; k < ids.length; k++) {
        num += weights[k]! * Math.max(0, Math.min(1, cos(u, ids[k]!)));
        den += weights[k]!;
      }
      byHand[u] = den > 0 ? num / den : 0;
    }
    expect([...r.value]).toEqual([...byHand]);
    expect([...toolCoherence(g, n, cos)]).toEqual([...byHand]);
  });
});
