import { describe, expect, it } from "vitest";
import { DagError } from "../../../algorithms/dag/dag-error.ts";
import { DEFAULTS, inferDependencies } from "../../../algorithms/dag/infer-dependencies.ts";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { createHopBoundedSearch } from "../../../algorithms/paths/hop-bounded-search.ts";

function expectDagError(fn: () => unknown, code: string, module = "dag/infer-dependencies"): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DagError);
    expect((err as DagError).code).toBe(code);
    expect((err as Error).message).toContain(module);
    return;
  }
  throw new Error(`expected DagError ${code}`);
}

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
    expectDagError(() => inferDependencies(chain, [0, 1], { search: createHopBoundedSearch(buildCsr(5, [])) }), "foreign-search");
    expectDagError(() => inferDependencies(chain, [0, 1], { declaredDependencyWeight: -1 }), "bad-weight");
  });
});
