import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULTS, inferDependencies } from "../../../algorithms/dag/infer-dependencies.ts";
import type { Csr, CsrEdge } from "../../../algorithms/graph/csr.ts";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { createHopBoundedSearch } from "../../../algorithms/paths/hop-bounded-search.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const expectDagError = expectDagErrorOf("dag/infer-dependencies");

// Chain 0→1→2→3→4, weights 0.8, 0.6, 0.4, 1.
const chain = buildCsr(5, [
  { from: 0, to: 1, weight: 0.8 },
  { from: 1, to: 2, weight: 0.6 },
  { from: 2, to: 3, weight: 0.4 },
  { from: 3, to: 4, weight: 1 },
]);

describe("inferDependencies", () => {
  it("exports the documented defaults", () => {
    expect(DEFAULTS).toEqual({ maxHops: 3, minWeight: 0.1, declaredDependencyWeight: 1 });
  });

  it("a relation that exists only through 4 hops yields no edge", () => {
    expect(inferDependencies(chain, [0, 4])).toEqual([]);
  });

  it("a 3-hop relation yields an edge: strength = (1/3) × mean(0.8, 0.6, 0.4) = 0.2", () => {
    const [e, ...rest] = inferDependencies(chain, [0, 3]);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ from: 0, to: 3, path: [0, 1, 2, 3], hops: 3, direct: false });
    // mean = 1.8 / 3 = 0.6; strength = 0.6 / 3 = 0.2
    expect(e!.meanWeight).toBeCloseTo(0.6, 12);
    expect(e!.strength).toBeCloseTo(0.2, 12);
    // cost = 1/0.8 + 1/0.6 + 1/0.4 = 1.25 + 1.666… + 2.5 = 5.41666…
    expect(e!.cost).toBeCloseTo(1.25 + 5 / 3 + 2.5, 12);
  });

  it("a 2-hop relation: strength = (1/2) × mean(0.8, 0.6) = 0.35", () => {
    const [e] = inferDependencies(chain, [0, 2]);
    expect(e).toMatchObject({ path: [0, 1, 2], hops: 2 });
    expect(e!.strength).toBeCloseTo(0.35, 12);
  });

  it("a direct edge is 1 hop: strength = its weight 0.8", () => {
    const [e] = inferDependencies(chain, [0, 1]);
    expect(e).toMatchObject({ path: [0, 1], hops: 1, meanWeight: 0.8, strength: 0.8, cost: 1.25, direct: false });
  });

  it("finds every pair within 3 hops, ordered by input position of from then to", () => {
    const edges = inferDependencies(chain, [3, 1, 0]);
    // 1→3 (2 hops), 0→3 (3 hops), 0→1 (1 hop); nothing reaches backwards.
    expect(edges.map((e) => [e.from, e.to, e.hops])).toEqual([
      [1, 3, 2],
      [0, 3, 3],
      [0, 1, 1],
    ]);
  });

  // 0→1 weight 0.2 (cost 5); 0→2→1 weights 1, 1 (cost 2): the cheapest path goes through tool 2.
  const detour = buildCsr(3, [
    { from: 0, to: 1, weight: 0.2 },
    { from: 0, to: 2, weight: 1 },
    { from: 2, to: 1, weight: 1 },
  ]);

  it("without a dependency predicate the cheapest path wins over a weak direct edge", () => {
    const [e] = inferDependencies(detour, [0, 1]);
    // strength = (1/2) × mean(1, 1) = 0.5
    expect(e).toMatchObject({ path: [0, 2, 1], hops: 2, cost: 2, strength: 0.5, direct: false });
  });

  it("a direct dependency edge wins over a cheaper path through other tools", () => {
    const [e] = inferDependencies(detour, [0, 1], { isDependencyEdge: (u, v) => u === 0 && v === 1 });
    // The direct edge: 1 hop, cost 1/0.2 = 5, strength = 0.2.
    expect(e).toMatchObject({ from: 0, to: 1, path: [0, 1], hops: 1, cost: 5, strength: 0.2, direct: true });
  });

  it("a declared dependency the history graph lacks gets declaredDependencyWeight (default 1)", () => {
    const isDependencyEdge = (u: number, v: number) => u === 4 && v === 0;
    const [e] = inferDependencies(chain, [4, 0], { isDependencyEdge });
    expect(e).toMatchObject({ from: 4, to: 0, path: [4, 0], hops: 1, strength: 1, cost: 1, direct: true });
    const [f] = inferDependencies(chain, [4, 0], { isDependencyEdge, declaredDependencyWeight: 0.5 });
    expect(f).toMatchObject({ strength: 0.5, cost: 2 });
  });

  it("weights below minWeight cost 1/0.1 = 10 but keep their raw weight in the strength", () => {
    const g = buildCsr(2, [{ from: 0, to: 1, weight: 0.05 }]);
    const [e] = inferDependencies(g, [0, 1]);
    expect(e!.cost).toBeCloseTo(10, 12);
    expect(e!.strength).toBe(0.05);
  });

  it("respects maxHops", () => {
    expect(inferDependencies(chain, [0, 3], { maxHops: 2 })).toEqual([]);
    expect(inferDependencies(chain, [0, 4], { maxHops: 4 })[0]).toMatchObject({ hops: 4 });
    expect(inferDependencies(chain, [0, 1], { maxHops: 0 })).toEqual([]);
  });

  it("no selected tools or one tool: no edges", () => {
    expect(inferDependencies(chain, [])).toEqual([]);
    expect(inferDependencies(chain, [2])).toEqual([]);
  });

  it("a reused searcher gives the same edges", () => {
    const search = createHopBoundedSearch(chain);
    expect(inferDependencies(chain, [0, 2, 3], { search })).toEqual(inferDependencies(chain, [0, 2, 3]));
    expect(inferDependencies(chain, [1, 3], { search })).toEqual(inferDependencies(chain, [1, 3]));
  });

  it("rejects duplicates, unknown nodes, a foreign searcher and a bad declared weight", () => {
    expectDagError(() => inferDependencies(chain, [0, 0]), "duplicate-node");
    expectDagError(() => inferDependencies(chain, [0, 5]), "bad-node");
    expectDagError(
      () => inferDependencies(chain, [0, 1], { search: createHopBoundedSearch(buildCsr(5, [])) }),
      "foreign-search",
    );
    expectDagError(() => inferDependencies(chain, [0, 1], { declaredDependencyWeight: -1 }), "bad-weight");
    expectDagError(() => inferDependencies(chain, [0, 1], { pathCsr: buildCsr(4, []) }), "bad-path-csr");
    // A searcher for csr while paths run over another CSR.
    expectDagError(
      () => inferDependencies(chain, [0, 1], { pathCsr: buildCsr(5, []), search: createHopBoundedSearch(chain) }),
      "foreign-search",
    );
  });
});

/*
 * Edge provenance: `csr` holds every edge, `pathCsr` the learned ones; an edge only in csr
 * (declared only) is a relation on its own (1 hop) but never a hop of a longer path.
 * Tools A = 0, B = 1, C = 2.
 */
describe("inferDependencies: declared-only edges are never hops of a longer path", () => {
  // Declared chain A→B→C, template weight 0.5 each (dependency 1.0 × template 0.5); nothing learned.
  const declared = buildCsr(3, [
    { from: 0, to: 1, weight: 0.5 },
    { from: 1, to: 2, weight: 0.5 },
  ]);
  const nothingLearned = buildCsr(3, []);

  it("without pathCsr (every edge a hop) C depends on A through B: strength (1/2) × 0.5 = 0.25", () => {
    const [e, ...rest] = inferDependencies(declared, [0, 2]);
    expect(rest).toEqual([]);
    // cost = 1/0.5 + 1/0.5 = 4
    expect(e).toMatchObject({
      from: 0,
      to: 2,
      path: [0, 1, 2],
      hops: 2,
      cost: 4,
      meanWeight: 0.5,
      strength: 0.25,
      direct: false,
    });
  });

  it("with declared-only hops C does not depend on A", () => {
    expect(inferDependencies(declared, [0, 2], { pathCsr: nothingLearned })).toEqual([]);
    expect(inferDependencies(declared, [2, 0], { pathCsr: nothingLearned, maxHops: 3 })).toEqual([]);
  });

  it("each declared edge still relates its own ends: A→B and B→C, 1 hop, strength 0.5, cost 2; no A→C", () => {
    const edges = inferDependencies(declared, [0, 1, 2], { pathCsr: nothingLearned });
    expect(edges).toEqual([
      { from: 0, to: 1, path: [0, 1], hops: 1, cost: 2, meanWeight: 0.5, strength: 0.5, direct: false },
      { from: 1, to: 2, path: [1, 2], hops: 1, cost: 2, meanWeight: 0.5, strength: 0.5, direct: false },
    ]);
  });

  it("as dependency edges (the caller's predicate) they are direct, and A→C is still absent", () => {
    const isDependencyEdge = (u: number, v: number) => v === u + 1;
    const edges = inferDependencies(declared, [0, 1, 2], { pathCsr: nothingLearned, isDependencyEdge });
    expect(edges.map((e) => [e.from, e.to, e.hops, e.strength, e.direct])).toEqual([
      [0, 1, 1, 0.5, true],
      [1, 2, 1, 0.5, true],
    ]);
    expect(inferDependencies(declared, [0, 2], { pathCsr: nothingLearned, isDependencyEdge })).toEqual([]);
  });

  it("a learned chain A→B (1.0) →C (0.7) keeps the seed's paths: strength (1/2) × 0.85 = 0.425", () => {
    const chainEdges: CsrEdge[] = [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 0.7 },
    ];
    // Learned edges are in both CSRs (pathCsr a separate object, as the service builds it).
    const [e] = inferDependencies(buildCsr(3, chainEdges), [0, 2], { pathCsr: buildCsr(3, chainEdges) });
    // mean = (1 + 0.7) / 2 = 0.85; cost = 1 + 1/0.7
    expect(e).toMatchObject({ path: [0, 1, 2], hops: 2, direct: false });
    expect(e!.strength).toBeCloseTo(0.425, 12);
    expect(e!.cost).toBeCloseTo(1 + 1 / 0.7, 12);
  });

  it("a path with one declared-only hop (learned A→B, declared-only B→C) relates no A→C", () => {
    const csr = buildCsr(3, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 0.5 },
    ]);
    const pathCsr = buildCsr(3, [{ from: 0, to: 1, weight: 1 }]);
    expect(inferDependencies(csr, [0, 2], { pathCsr })).toEqual([]);
    expect(inferDependencies(csr, [0, 1, 2], { pathCsr }).map((e) => [e.from, e.to, e.hops, e.strength])).toEqual([
      [0, 1, 1, 1],
      [1, 2, 1, 0.5],
    ]);
  });

  it("an edge both declared (1.0) and learned (0.7): 1 hop at its full weight, a hop of a path at its learned weight", () => {
    const csr = buildCsr(3, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 2, weight: 1 },
    ]);
    const pathCsr = buildCsr(3, [
      { from: 0, to: 1, weight: 0.7 },
      { from: 1, to: 2, weight: 1 },
    ]);
    expect(inferDependencies(csr, [0, 1], { pathCsr })[0]).toMatchObject({ hops: 1, cost: 1, strength: 1 });
    const [e] = inferDependencies(csr, [0, 2], { pathCsr });
    // mean = (0.7 + 1) / 2 = 0.85; strength 0.425; cost 1/0.7 + 1
    expect(e).toMatchObject({ path: [0, 1, 2], hops: 2 });
    expect(e!.strength).toBeCloseTo(0.425, 12);
    expect(e!.cost).toBeCloseTo(1 / 0.7 + 1, 12);
  });

  it("the cheaper of a declared-only edge and a learned path wins; a tie goes to the 1-hop edge", () => {
    // Learned A→C→B (1, 1): cost 2, strength 0.5. Declared-only A→B of weight w: cost 1/w.
    const learnedPath: CsrEdge[] = [
      { from: 0, to: 2, weight: 1 },
      { from: 2, to: 1, weight: 1 },
    ];
    const pathCsr = buildCsr(3, learnedPath);
    const withDeclared = (w: number) => buildCsr(3, [...learnedPath, { from: 0, to: 1, weight: w }]);
    expect(inferDependencies(withDeclared(0.2), [0, 1], { pathCsr })[0]).toMatchObject({
      path: [0, 2, 1],
      cost: 2,
      strength: 0.5,
    });
    expect(inferDependencies(withDeclared(1), [0, 1], { pathCsr })[0]).toMatchObject({
      path: [0, 1],
      cost: 1,
      strength: 1,
    });
    expect(inferDependencies(withDeclared(0.5), [0, 1], { pathCsr })[0]).toMatchObject({
      path: [0, 1],
      cost: 2,
      strength: 0.5,
    });
  });

  it("a declared-only edge of weight 0 is a relation of cost 1/0.1 = 10 and strength 0; maxHops 0 relates nothing", () => {
    const csr = buildCsr(2, [{ from: 0, to: 1, weight: 0 }]);
    const pathCsr = buildCsr(2, []);
    expect(inferDependencies(csr, [0, 1], { pathCsr })).toEqual([
      { from: 0, to: 1, path: [0, 1], hops: 1, cost: 10, meanWeight: 0, strength: 0, direct: false },
    ]);
    expect(inferDependencies(csr, [0, 1], { pathCsr, maxHops: 0 })).toEqual([]);
  });
});

describe("inferDependencies: provenance properties", () => {
  const holds = (g: Csr, u: number, v: number) => g.targets.subarray(g.offsets[u]!, g.offsets[u + 1]!).includes(v);
  // Brute force: every simple path of 1..maxHops edges over pathCsr, plus the direct edge of csr.
  function cheapest(csr: Csr, pathCsr: Csr, a: number, b: number, maxHops: number): number {
    const out = (g: Csr, u: number) => {
      const list: [number, number][] = [];
      for (let k = g.offsets[u]!; k < g.offsets[u + 1]!; k++) list.push([g.targets[k]!, g.weights[k]!]);
      return list;
    };
    let best = Number.POSITIVE_INFINITY;
    if (maxHops >= 1) for (const [v, w] of out(csr, a)) if (v === b) best = Math.min(best, 1 / Math.max(w, 0.1));
    const walk = (u: number, cost: number, hops: number, seen: Set<number>) => {
      if (u === b && hops > 0) {
        best = Math.min(best, cost);
        return;
      }
      if (hops === maxHops) return;
      for (const [v, w] of out(pathCsr, u)) {
        if (seen.has(v)) continue;
        seen.add(v);
        walk(v, cost + 1 / Math.max(w, 0.1), hops + 1, seen);
        seen.delete(v);
      }
    };
    walk(a, 0, 0, new Set([a]));
    return best;
  }

  const input = fc.integer({ min: 2, max: 8 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc.record({
          from: fc.integer({ min: 0, max: n - 1 }),
          to: fc.integer({ min: 0, max: n - 1 }),
          weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0.5, 0.7, 1)),
          learned: fc.boolean(),
        }),
        { maxLength: 24 },
      ),
      selected: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i)),
      maxHops: fc.integer({ min: 0, max: 4 }),
    }),
  );

  it("relations and costs match the brute force; multi-hop paths use learned edges only", () => {
    fc.assert(
      fc.property(input, ({ n, edges, selected, maxHops }) => {
        const csr = buildCsr(n, edges);
        const pathCsr = buildCsr(
          n,
          edges.filter((e) => e.learned),
        );
        const found = inferDependencies(csr, selected, { pathCsr, maxHops, search: createHopBoundedSearch(pathCsr) });
        const byPair = new Map(found.map((e) => [`${e.from}>${e.to}`, e]));
        for (const a of selected) {
          for (const b of selected) {
            if (a === b) continue;
            const c = cheapest(csr, pathCsr, a, b, maxHops);
            const e = byPair.get(`${a}>${b}`);
            if (c === Number.POSITIVE_INFINITY) {
              expect(e).toBeUndefined();
              continue;
            }
            expect(e).toBeDefined();
            expect(e!.cost).toBeCloseTo(c, 9);
            expect(e!.hops).toBeLessThanOrEqual(maxHops);
            expect(e!.strength).toBeCloseTo(e!.meanWeight / e!.hops, 12);
            // Every hop of a longer path is a learned edge.
            if (e!.hops > 1)
              for (let i = 1; i < e!.path.length; i++) expect(holds(pathCsr, e!.path[i - 1]!, e!.path[i]!)).toBe(true);
            else expect(holds(csr, a, b)).toBe(true);
          }
        }
        // Fewer path edges never add a relation: every pair found is also found with pathCsr = csr.
        const all = new Set(inferDependencies(csr, selected, { maxHops }).map((e) => `${e.from}>${e.to}`));
        for (const k of byPair.keys()) expect(all.has(k)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("pathCsr equal to csr (another object) gives the default's edges", () => {
    fc.assert(
      fc.property(input, ({ n, edges, selected, maxHops }) => {
        const csr = buildCsr(n, edges);
        const copy = buildCsr(n, edges);
        const a = inferDependencies(csr, selected, { maxHops, pathCsr: copy });
        const b = inferDependencies(csr, selected, { maxHops });
        expect(a.map((e) => [e.from, e.to, e.hops])).toEqual(b.map((e) => [e.from, e.to, e.hops]));
        for (let i = 0; i < a.length; i++) expect(a[i]!.cost).toBeCloseTo(b[i]!.cost, 12);
      }),
      { numRuns: 200 },
    );
  });
});
