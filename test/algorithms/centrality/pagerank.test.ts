import fc from "fast-check";
import { DirectedGraph } from "graphology";
import graphologyPagerank from "graphology-metrics/centrality/pagerank.js";
import { describe, expect, it } from "vitest";
import { normalizeToUnit, PagerankError, pagerank, pagerankDetailed } from "../../../algorithms/centrality/pagerank.ts";
import { buildCsr, type Csr, type CsrEdge } from "../../../algorithms/graph/csr.ts";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

const tight = { tolerance: 1e-14, maxIterations: 10_000 };

function toGraphology(g: Csr): DirectedGraph {
  const graph = new DirectedGraph();
  for (let u = 0; u < g.n; u++) graph.addNode(String(u));
  for (let u = 0; u < g.n; u++) {
    for (let j = g.offsets[u]!; j < g.offsets[u + 1]!; j++) {
      graph.addDirectedEdge(String(u), String(g.targets[j]!), { weight: g.weights[j]! });
    }
  }
  return graph;
}

const edgesArb = (n: number) =>
  fc.array(
    fc.record({
      from: fc.integer({ min: 0, max: n - 1 }),
      to: fc.integer({ min: 0, max: n - 1 }),
      weight: fc.double({ min: 0.01, max: 1, noNaN: true }),
    }),
    { maxLength: 4 * n },
  );

const graphArb = fc.integer({ min: 1, max: 30 }).chain((n) => edgesArb(n).map((edges) => buildCsr(n, edges)));

describe("pagerank", () => {
  it("two nodes 0→1 (1 dangling): x0 = 0.5/1.425, x1 = 1 − x0", () => {
    // x0 = 0.075 + 0.425·x1 (teleport + half of dangling 1's damped mass), x0 + x1 = 1
    // → 1.425·x0 = 0.5 → x0 = 0.350877…, x1 = 0.649122…
    const s = pagerank(buildCsr(2, [{ from: 0, to: 1, weight: 1 }]), tight);
    expect(s[0]).toBeCloseTo(0.5 / 1.425, 12);
    expect(s[1]).toBeCloseTo(1 - 0.5 / 1.425, 12);
  });

  it("weighted split: 0→1 (0.75), 0→2 (0.25), 1→0, 2→0", () => {
    // x0 = 0.05 + 0.85·(x1 + x2) = 0.05 + 0.85·(1 − x0) → x0 = 0.9 / 1.85 = 0.486486…
    // x1 = 0.05 + 0.85·0.75·x0 = 0.360135…, x2 = 0.05 + 0.85·0.25·x0 = 0.153378…
    const g = buildCsr(3, [
      { from: 0, to: 1, weight: 0.75 },
      { from: 0, to: 2, weight: 0.25 },
      { from: 1, to: 0, weight: 1 },
      { from: 2, to: 0, weight: 1 },
    ]);
    const s = pagerank(g, tight);
    const x0 = 0.9 / 1.85;
    expect(s[0]).toBeCloseTo(x0, 12);
    expect(s[1]).toBeCloseTo(0.05 + 0.85 * 0.75 * x0, 12);
    expect(s[2]).toBeCloseTo(0.05 + 0.85 * 0.25 * x0, 12);
  });

  it("directed 3-cycle is uniform", () => {
    const s = pagerank(
      buildCsr(3, [
        { from: 0, to: 1, weight: 0.3 },
        { from: 1, to: 2, weight: 0.9 },
        { from: 2, to: 0, weight: 0.5 },
      ]),
    );
    for (const x of s) expect(x).toBeCloseTo(1 / 3, 12);
  });

  it("matches graphology-metrics pagerank within 1e-6 on random weighted graphs", () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const ours = pagerank(g);
        const theirs = graphologyPagerank(toGraphology(g), { getEdgeWeight: "weight" });
        for (let u = 0; u < g.n; u++) expect(Math.abs(ours[u]! - theirs[String(u)]!)).toBeLessThan(1e-6);
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  it("matches graphology with custom damping and tolerance", () => {
    const edges: CsrEdge[] = [];
    for (let u = 0; u < 40; u++)
      edges.push(
        { from: u, to: (u * 7 + 3) % 40, weight: ((u % 5) + 1) / 5 },
        { from: u, to: (u * 3 + 1) % 40, weight: 0.4 },
      );
    const g = buildCsr(40, edges);
    const ours = pagerank(g, { damping: 0.6, tolerance: 1e-9 });
    const theirs = graphologyPagerank(toGraphology(g), { getEdgeWeight: "weight", alpha: 0.6, tolerance: 1e-9 });
    for (let u = 0; u < 40; u++) expect(Math.abs(ours[u]! - theirs[String(u)]!)).toBeLessThan(1e-9);
  });

  it("scores are ≥ (1 − α)/n and sum to 1 (property)", () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const s = pagerank(g);
        let sum = 0;
        for (const x of s) {
          expect(x).toBeGreaterThanOrEqual(0.15 / g.n - 1e-12);
          sum += x;
        }
        expect(sum).toBeCloseTo(1, 12);
      }),
      { numRuns: 100, seed: 3 },
    );
  });

  it("empty graph: empty scores, converged", () => {
    const r = pagerankDetailed(buildCsr(0, []));
    expect(r.scores.length).toBe(0);
    expect(r.converged).toBe(true);
    expect(r.iterations).toBe(0);
  });

  it("single node scores 1", () => {
    expect(Array.from(pagerank(buildCsr(1, [])))).toEqual([1]);
  });

  it("zero-weight out-edges make a node dangling (uniform mass, no NaN)", () => {
    // 0→1 with weight 0: both nodes dangling → every step gives 0.15/2 + 0.85·(1)/2 = 0.5 each.
    const s = pagerank(buildCsr(2, [{ from: 0, to: 1, weight: 0 }]));
    expect(Array.from(s)).toEqual([0.5, 0.5]);
  });

  it("disconnected parts: two mirrored pairs get equal scores", () => {
    const s = pagerank(
      buildCsr(4, [
        { from: 0, to: 1, weight: 1 },
        { from: 2, to: 3, weight: 1 },
      ]),
      tight,
    );
    expect(s[0]).toBeCloseTo(s[2]!, 14);
    expect(s[1]).toBeCloseTo(s[3]!, 14);
    expect(s[1]! > s[0]!).toBe(true);
  });

  it("reports non-convergence instead of throwing", () => {
    const g = buildCsr(3, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
    ]);
    const r = pagerankDetailed(g, { maxIterations: 1, tolerance: 1e-15 });
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(1);
    expect(r.scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 14);
  });

  it("converged run reports iterations ≥ 1", () => {
    const r = pagerankDetailed(buildCsr(3, [{ from: 0, to: 1, weight: 1 }]), tight);
    expect(r.converged).toBe(true);
    expect(r.iterations).toBeGreaterThan(1);
  });

  it("rejects bad options with coded errors", () => {
    const g = buildCsr(1, []);
    expect(() => pagerank(g, { damping: 1.5 })).toThrow(PagerankError);
    expect(() => pagerank(g, { damping: 1.5 })).toThrow(/damping/);
    expect(codeOf(() => pagerank(g, { maxIterations: -1 }))).toBe("bad-max-iterations");
    expect(() => pagerank(g, { tolerance: Number.NaN })).toThrow(/tolerance/);
  });
});

describe("normalizeToUnit", () => {
  it("divides by the maximum: [0.2, 0.5, 0.1] → [0.4, 1, 0.2]", () => {
    const out = normalizeToUnit([0.2, 0.5, 0.1]);
    expect(out[0]).toBeCloseTo(0.4, 15);
    expect(out[1]).toBe(1);
    expect(out[2]).toBeCloseTo(0.2, 15);
  });

  it("all zeros → zeros", () => {
    expect(Array.from(normalizeToUnit([0, 0, 0]))).toEqual([0, 0, 0]);
  });

  it("empty → empty", () => {
    expect(normalizeToUnit([]).length).toBe(0);
  });

  it("rejects negative or non-finite scores", () => {
    expect(() => normalizeToUnit([0.1, -1])).toThrow(/score 1 is -1/);
    expect(() => normalizeToUnit([Number.NaN])).toThrow(PagerankError);
  });

  it("maps PageRank scores into [0, 1] with max exactly 1 (property)", () => {
    fc.assert(
      fc.property(graphArb, (g) => {
        const u = normalizeToUnit(pagerank(g));
        expect(Math.max(...u)).toBe(1);
        for (const x of u) expect(x >= 0 && x <= 1).toBe(true);
      }),
      { numRuns: 50, seed: 11 },
    );
  });
});
