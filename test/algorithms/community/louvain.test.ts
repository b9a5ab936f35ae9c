import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LouvainError, louvain, louvainDetailed } from "../../../algorithms/community/louvain.ts";
import { buildCsr, type Csr, type CsrEdge } from "../../../algorithms/graph/csr.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";

/** Modularity on the summed undirected view, straight from the formula (γ = 1). */
function modularity(g: Csr, c: Int32Array): number {
  const n = g.n;
  const a = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let u = 0; u < n; u++) {
    for (let j = g.offsets[u]!; j < g.offsets[u + 1]!; j++) {
      const v = g.targets[j]!;
      a[u]![v]! += g.weights[j]!;
      a[v]![u]! += g.weights[j]!;
    }
  }
  const k = a.map((row) => row.reduce((s, x) => s + x, 0));
  const twoM = k.reduce((s, x) => s + x, 0);
  let q = 0;
  for (let u = 0; u < n; u++) for (let v = 0; v < n; v++) if (c[u] === c[v]) q += a[u]![v]! - (k[u]! * k[v]!) / twoM;
  return q / twoM;
}

function twoTriangles(bridge: number): Csr {
  return buildCsr(6, [
    { from: 0, to: 1, weight: 1 },
    { from: 0, to: 2, weight: 1 },
    { from: 1, to: 2, weight: 1 },
    { from: 3, to: 4, weight: 1 },
    { from: 3, to: 5, weight: 1 },
    { from: 4, to: 5, weight: 1 },
    { from: 2, to: 3, weight: bridge },
  ]);
}

const randomGraph = (n: number, m: number, seed: number): Csr => {
  const rng = mulberry32(seed);
  const edges: CsrEdge[] = [];
  for (let i = 0; i < m; i++) {
    const u = Math.floor(rng() * n);
    // Mostly within blocks of 10 so there is structure to find.
    const v = rng() < 0.8 ? Math.floor(u / 10) * 10 + Math.floor(rng() * 10) : Math.floor(rng() * n);
    edges.push({ from: u, to: Math.min(v, n - 1), weight: 0.1 + 0.9 * rng() });
  }
  return buildCsr(n, edges);
};

describe("louvain", () => {
  it("two triangles joined by a bridge: two communities, Q = 6/7 − 1/2", () => {
    // m = 7, each community: 3 internal edges, degree sum 7 → Q = 2·(3/7 − (7/14)²) = 0.357142…
    const r = louvainDetailed(twoTriangles(1));
    expect(Array.from(r.communities)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(r.count).toBe(2);
    expect(r.modularity).toBeCloseTo(6 / 7 - 0.5, 12);
  });

  it("merges u→v and v→u by summing (modularity equals the formula on the summed view)", () => {
    const g = buildCsr(6, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 0, weight: 0.5 },
      { from: 1, to: 2, weight: 1 },
      { from: 2, to: 0, weight: 1 },
      { from: 3, to: 4, weight: 1 },
      { from: 4, to: 5, weight: 1 },
      { from: 5, to: 3, weight: 0.2 },
      { from: 3, to: 5, weight: 0.7 },
      { from: 2, to: 3, weight: 0.1 },
    ]);
    const r = louvainDetailed(g, { rng: mulberry32(3) });
    expect(Array.from(r.communities)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(r.modularity).toBeCloseTo(modularity(g, r.communities), 12);
  });

  it("matches the modularity formula on random graphs (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 120 }), fc.integer(), (n, m, seed) => {
        const g = randomGraph(n, m, seed);
        fc.pre(g.m > 0);
        const r = louvainDetailed(g, { rng: mulberry32(seed) });
        expect(r.modularity).toBeCloseTo(modularity(g, r.communities), 9);
      }),
      { numRuns: 60, seed: 4 },
    );
  });

  it("ids are 0..count−1 in order of first node (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 150 }), fc.integer(), (n, m, seed) => {
        const r = louvainDetailed(randomGraph(n, m, seed), { rng: mulberry32(seed) });
        let next = 0;
        for (const c of r.communities) {
          expect(c).toBeLessThanOrEqual(next);
          if (c === next) next++;
        }
        expect(next).toBe(r.count);
      }),
      { numRuns: 60, seed: 5 },
    );
  });

  it("is deterministic for a fixed seed", () => {
    const g = randomGraph(300, 1500, 9);
    const a = louvain(g, { rng: mulberry32(42) });
    const b = louvain(g, { rng: mulberry32(42) });
    expect(Array.from(a)).toEqual(Array.from(b));
    // The default rng is seeded too.
    expect(Array.from(louvain(g))).toEqual(Array.from(louvain(g)));
  });

  it("empty graph: no communities", () => {
    const r = louvainDetailed(buildCsr(0, []));
    expect(r.communities.length).toBe(0);
    expect(r.count).toBe(0);
    expect(r.modularity).toBe(0);
  });

  it("single node: one community", () => {
    expect(Array.from(louvain(buildCsr(1, [])))).toEqual([0]);
  });

  it("isolated nodes are each their own community", () => {
    const g = buildCsr(5, [{ from: 0, to: 1, weight: 1 }]);
    expect(Array.from(louvain(g))).toEqual([0, 0, 1, 2, 3]);
  });

  it("all-zero weights: every node alone, modularity 0", () => {
    const g = buildCsr(3, [
      { from: 0, to: 1, weight: 0 },
      { from: 1, to: 2, weight: 0 },
    ]);
    const r = louvainDetailed(g);
    expect(Array.from(r.communities)).toEqual([0, 1, 2]);
    expect(r.modularity).toBe(0);
  });

  it("a zero-weight bridge is ignored", () => {
    const r = louvainDetailed(twoTriangles(0));
    expect(Array.from(r.communities)).toEqual([0, 0, 0, 1, 1, 1]);
    // two disjoint triangles: Q = 2·(3/6 − (6/12)²) = 0.5
    expect(r.modularity).toBeCloseTo(0.5, 12);
  });

  it("disconnected parts never share a community", () => {
    const g = buildCsr(4, [
      { from: 0, to: 1, weight: 1 },
      { from: 2, to: 3, weight: 1 },
    ]);
    expect(Array.from(louvain(g))).toEqual([0, 0, 1, 1]);
  });

  it("rejects a non-positive resolution", () => {
    expect(() => louvain(buildCsr(1, []), { resolution: 0 })).toThrow(LouvainError);
    expect(() => louvain(buildCsr(1, []), { resolution: -1 })).toThrow(
      /resolution must be a finite positive number, got -1/,
    );
  });
});
