import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { coherenceAlpha, toolCoherence } from "../../../algorithms/search/coherence.ts";

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
