import fc from "fast-check";
import { DirectedGraph } from "graphology";
import { singleSource } from "graphology-shortest-path/dijkstra.js";
import { describe, expect, it } from "vitest";
import type { Csr, CsrEdge } from "../../../algorithms/graph/csr.ts";
import { buildCsr, edgeWeight } from "../../../algorithms/graph/csr.ts";
import type { HopBoundedPath } from "../../../algorithms/paths/hop-bounded-search.ts";
import {
  createHopBoundedSearch,
  DEFAULTS,
  hopBoundedShortestPaths,
  PathError,
} from "../../../algorithms/paths/hop-bounded-search.ts";

const defaultCost = (w: number) => 1 / Math.max(w, 0.1);

function byTarget(paths: HopBoundedPath[]): Map<number, HopBoundedPath> {
  return new Map(paths.map((p) => [p.target, p]));
}

function expectPathError(fn: () => unknown, code: string): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(PathError);
    expect((err as PathError).code).toBe(code);
    expect((err as Error).message).toContain("paths/hop-bounded-search");
    return;
  }
  throw new Error(`expected PathError ${code}`);
}

// Chain 0→1→2→3→4 with weights 0.5, 1, 0.25, 1 → costs 2, 1, 4, 1.
const chain = buildCsr(5, [
  { from: 0, to: 1, weight: 0.5 },
  { from: 1, to: 2, weight: 1 },
  { from: 2, to: 3, weight: 0.25 },
  { from: 3, to: 4, weight: 1 },
]);

describe("hop-bounded search: hand-built graphs", () => {
  it("exports the documented defaults", () => {
    expect(DEFAULTS).toEqual({ maxHops: 3, minWeight: 0.1 });
  });

  it("counts a direct edge as 1 hop and sums costs along a chain", () => {
    const r = byTarget(hopBoundedShortestPaths(chain, 0));
    // 0→1: cost 1/0.5 = 2, 1 hop.
    expect(r.get(1)).toMatchObject({ path: [0, 1], hops: 1, cost: 2, weights: [0.5] });
    // 0→1→2: 2 + 1 = 3, 2 hops.
    expect(r.get(2)).toMatchObject({ path: [0, 1, 2], hops: 2, cost: 3, weights: [0.5, 1] });
    // 0→1→2→3: 2 + 1 + 4 = 7, 3 hops.
    expect(r.get(3)).toMatchObject({ path: [0, 1, 2, 3], hops: 3, cost: 7, weights: [0.5, 1, 0.25] });
  });

  it("does not reach a node that is 4 hops away with the default budget", () => {
    const r = byTarget(hopBoundedShortestPaths(chain, 0));
    expect(r.has(4)).toBe(false);
    expect([...r.keys()]).toEqual([1, 2, 3]);
  });

  it("reaches the 4-hop node when maxHops is 4 (cost 2 + 1 + 4 + 1 = 8)", () => {
    const r = byTarget(hopBoundedShortestPaths(chain, 0, { maxHops: 4 }));
    expect(r.get(4)).toMatchObject({ path: [0, 1, 2, 3, 4], hops: 4, cost: 8 });
  });

  it("returns the cheapest path within the hop budget, not the unconstrained cheapest", () => {
    // 0→1→2→3→4 all weight 1: cost 4 in 4 hops. 0→5→4 weights 0.4: cost 2.5 + 2.5 = 5 in 2 hops.
    const g = buildCsr(6, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
      { from: 2, to: 3, weight: 1 },
      { from: 3, to: 4, weight: 1 },
      { from: 0, to: 5, weight: 0.4 },
      { from: 5, to: 4, weight: 0.4 },
    ]);
    expect(byTarget(hopBoundedShortestPaths(g, 0)).get(4)).toMatchObject({ path: [0, 5, 4], hops: 2, cost: 5 });
    expect(byTarget(hopBoundedShortestPaths(g, 0, { maxHops: 4 })).get(4)).toMatchObject({
      path: [0, 1, 2, 3, 4],
      hops: 4,
      cost: 4,
    });
  });

  it("prefers a cheaper 2-hop path over a costly direct edge", () => {
    // 0→2 weight 0.2: cost 5. 0→1→2 weights 1, 0.5: cost 1 + 2 = 3.
    const g = buildCsr(3, [
      { from: 0, to: 2, weight: 0.2 },
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 0.5 },
    ]);
    expect(byTarget(hopBoundedShortestPaths(g, 0)).get(2)).toMatchObject({ path: [0, 1, 2], hops: 2, cost: 3 });
  });

  it("clamps weights below minWeight: weight 0.05 and weight 0 both cost 1/0.1 = 10", () => {
    const g = buildCsr(3, [
      { from: 0, to: 1, weight: 0.05 },
      { from: 0, to: 2, weight: 0 },
    ]);
    const r = byTarget(hopBoundedShortestPaths(g, 0));
    expect(r.get(1)!.cost).toBeCloseTo(10, 12);
    expect(r.get(2)!.cost).toBeCloseTo(10, 12);
    expect(r.get(2)!.weights).toEqual([0]);
    // minWeight 0.5: 1/0.5 = 2.
    expect(byTarget(hopBoundedShortestPaths(g, 0, { minWeight: 0.5 })).get(1)!.cost).toBe(2);
  });

  it("uses a caller-supplied cost function", () => {
    // Unit cost per edge: the fewest-hop path wins, 0→2 direct (1 hop, cost 1).
    const g = buildCsr(3, [
      { from: 0, to: 2, weight: 0.2 },
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
    ]);
    expect(byTarget(hopBoundedShortestPaths(g, 0, { cost: () => 1 })).get(2)).toMatchObject({
      path: [0, 2],
      hops: 1,
      cost: 1,
    });
  });

  it("answers only the requested targets, in the given order, skipping the source and duplicates", () => {
    const r = hopBoundedShortestPaths(chain, 0, { targets: [3, 0, 1, 3, 4] });
    expect(r.map((p) => p.target)).toEqual([3, 1]);
    expect(r[0]).toMatchObject({ path: [0, 1, 2, 3], hops: 3, cost: 7 });
  });

  it("does not walk back through the source on a cycle", () => {
    const g = buildCsr(2, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 0, weight: 1 },
    ]);
    expect(hopBoundedShortestPaths(g, 0).map((p) => p.path)).toEqual([[0, 1]]);
  });
});

describe("hop-bounded search: edge cases", () => {
  it("single node: nothing is reachable", () => {
    expect(hopBoundedShortestPaths(buildCsr(1, []), 0)).toEqual([]);
  });

  it("source without out-edges: empty result", () => {
    expect(hopBoundedShortestPaths(chain, 4)).toEqual([]);
  });

  it("maxHops 0: empty result, with or without targets", () => {
    expect(hopBoundedShortestPaths(chain, 0, { maxHops: 0 })).toEqual([]);
    expect(hopBoundedShortestPaths(chain, 0, { maxHops: 0, targets: [1] })).toEqual([]);
  });

  it("maxHops 1 with targets answers direct edges only", () => {
    expect(hopBoundedShortestPaths(chain, 0, { maxHops: 1, targets: [1, 2] }).map((p) => p.path)).toEqual([[0, 1]]);
  });

  it("empty graph: any source is misuse", () => {
    expectPathError(() => hopBoundedShortestPaths(buildCsr(0, []), 0), "bad-node");
  });

  it("rejects bad sources, targets, maxHops, minWeight and costs", () => {
    expectPathError(() => hopBoundedShortestPaths(chain, -1), "bad-node");
    expectPathError(() => hopBoundedShortestPaths(chain, 5), "bad-node");
    expectPathError(() => hopBoundedShortestPaths(chain, 1.5), "bad-node");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { targets: [7] }), "bad-node");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { maxHops: -1 }), "bad-max-hops");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { maxHops: 2.5 }), "bad-max-hops");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { minWeight: 0 }), "bad-min-weight");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { cost: () => 0 }), "bad-cost");
    expectPathError(() => hopBoundedShortestPaths(chain, 0, { cost: () => Number.NaN }), "bad-cost");
  });

  it("a reused searcher gives the same answers as fresh ones, in any query order", () => {
    const s = createHopBoundedSearch(chain);
    const queries: Array<[number, number[] | undefined, number]> = [
      [0, undefined, 3],
      [1, [4, 0], 3],
      [0, [3], 2],
      [2, undefined, 4],
      [0, [2, 3, 4], 4],
      [0, undefined, 3],
    ];
    for (const [source, targets, maxHops] of queries) {
      const opts = targets === undefined ? { maxHops } : { maxHops, targets };
      expect(s.search(source, opts)).toEqual(hopBoundedShortestPaths(chain, source, opts));
    }
  });
});

// ---------- properties against independent implementations ----------

const graphArb = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(
      fc.record({
        from: fc.integer({ min: 0, max: n - 1 }),
        to: fc.integer({ min: 0, max: n - 1 }),
        // Includes weights below the 0.1 clamp and exact ties (1, 0.5).
        weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(1, 0.5, 0.05)),
      }),
      { maxLength: 40 },
    ),
  }),
);

function toGraphology(g: Csr): DirectedGraph {
  const graph = new DirectedGraph();
  for (let v = 0; v < g.n; v++) graph.addNode(String(v));
  for (let u = 0; u < g.n; u++) {
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
      graph.addEdge(String(u), String(g.targets[e]!), { cost: defaultCost(g.weights[e]!) });
    }
  }
  return graph;
}

function pathCost(g: Csr, path: readonly number[]): number {
  let c = 0;
  for (let i = 1; i < path.length; i++) c += defaultCost(edgeWeight(g, path[i - 1]!, path[i]!));
  return c;
}

/** Exhaustive: cheapest walk of at most `maxHops` edges from s to every node. */
function bruteForce(g: Csr, s: number, maxHops: number): Map<number, number> {
  const best = new Map<number, number>();
  const walk = (u: number, cost: number, hops: number) => {
    if (hops > 0 && u !== s && !(cost >= (best.get(u) ?? Number.POSITIVE_INFINITY))) best.set(u, cost);
    if (hops === maxHops) return;
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++)
      walk(g.targets[e]!, cost + defaultCost(g.weights[e]!), hops + 1);
  };
  walk(s, 0, 0);
  return best;
}

function checkPathIsValid(g: Csr, p: HopBoundedPath, maxHops: number): void {
  expect(p.hops).toBe(p.path.length - 1);
  expect(p.hops).toBeGreaterThanOrEqual(1);
  expect(p.hops).toBeLessThanOrEqual(maxHops);
  expect(new Set(p.path).size).toBe(p.path.length); // simple path
  expect(p.path[0]).toBe(p.source);
  expect(p.path[p.path.length - 1]).toBe(p.target);
  for (let i = 1; i < p.path.length; i++) {
    const w = edgeWeight(g, p.path[i - 1]!, p.path[i]!);
    expect(g.targets.slice(g.offsets[p.path[i - 1]!]!, g.offsets[p.path[i - 1]! + 1]!)).toContain(p.path[i]!);
    expect(p.weights[i - 1]).toBe(w);
  }
  expect(p.cost).toBeCloseTo(pathCost(g, p.path), 9);
}

describe("hop-bounded search: properties", () => {
  it("agrees with graphology's dijkstra whenever its cheapest path has at most 3 hops", () => {
    fc.assert(
      fc.property(graphArb, ({ n, edges }) => {
        const g = buildCsr(n, edges as CsrEdge[]);
        const graph = toGraphology(g);
        const searcher = createHopBoundedSearch(g);
        for (let s = 0; s < n; s++) {
          const mine = byTarget(searcher.search(s));
          const reference = singleSource(graph, String(s), "cost");
          for (let t = 0; t < n; t++) {
            if (t === s) continue;
            const refPath = reference[String(t)]?.map(Number);
            const got = mine.get(t);
            if (refPath === undefined) {
              expect(got).toBeUndefined();
              continue;
            }
            const refCost = pathCost(g, refPath);
            if (refPath.length - 1 <= 3) {
              expect(got).toBeDefined();
              expect(got!.cost).toBeCloseTo(refCost, 9);
            }
            // A hop budget can only make the cheapest path dearer.
            if (got !== undefined) expect(got.cost).toBeGreaterThanOrEqual(refCost - 1e-9);
          }
          for (const p of mine.values()) checkPathIsValid(g, p, 3);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("equals an exhaustive search over all walks of at most maxHops edges", () => {
    fc.assert(
      fc.property(graphArb, fc.integer({ min: 1, max: 4 }), ({ n, edges }, maxHops) => {
        const g = buildCsr(n, edges as CsrEdge[]);
        const searcher = createHopBoundedSearch(g);
        for (let s = 0; s < n; s++) {
          const mine = byTarget(searcher.search(s, { maxHops }));
          const brute = bruteForce(g, s, maxHops);
          expect([...mine.keys()].sort((a, b) => a - b)).toEqual([...brute.keys()].sort((a, b) => a - b));
          for (const [t, c] of brute) expect(mine.get(t)!.cost).toBeCloseTo(c, 9);
          for (const p of mine.values()) checkPathIsValid(g, p, maxHops);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("target-restricted search gives exactly the costs of the full search", () => {
    fc.assert(
      fc.property(
        graphArb,
        fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        ({ n, edges }, rawTargets, maxHops) => {
          const g = buildCsr(n, edges as CsrEdge[]);
          const targets = rawTargets.map((t) => t % n);
          const searcher = createHopBoundedSearch(g);
          for (let s = 0; s < n; s++) {
            const full = byTarget(searcher.search(s, { maxHops }));
            const restricted = searcher.search(s, { maxHops, targets });
            const expected = [...new Set(targets)].filter((t) => t !== s && full.has(t));
            expect(restricted.map((p) => p.target)).toEqual(expected);
            for (const p of restricted) {
              expect(p.cost).toBe(full.get(p.target)!.cost);
              checkPathIsValid(g, p, maxHops);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
