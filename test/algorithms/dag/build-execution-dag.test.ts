import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildExecutionDag, DEFAULTS } from "../../../algorithms/dag/build-execution-dag.ts";
import { inferDependencies } from "../../../algorithms/dag/infer-dependencies.ts";
import type { CsrEdge } from "../../../algorithms/graph/csr.ts";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { createHopBoundedSearch } from "../../../algorithms/paths/hop-bounded-search.ts";

const pairs = (edges: readonly { from: number; to: number }[]) => edges.map((e) => [e.from, e.to]);

/*
 * Selected tools 0..4; helpers 5, 6, 7 are not selected.
 *   0→1 (1.0)            1→5 (0.8), 5→2 (0.6)     2→4 (0.9), 4→2 (0.3)      3→6 (1), 7→3 (1)
 * Candidates (≤ 3 hops):
 *   0→1  path 0-1        hops 1  strength 1
 *   0→2  path 0-1-5-2    hops 3  strength (1 + 0.8 + 0.6)/3/3 = 0.2667
 *   1→2  path 1-5-2      hops 2  strength (0.8 + 0.6)/2/2 = 0.35
 *   1→4  path 1-5-2-4    hops 3  strength (0.8 + 0.6 + 0.9)/3/3 = 0.2556
 *   2→4  path 2-4        hops 1  strength 0.9
 *   4→2  path 4-2        hops 1  strength 0.3   ← 2-cycle with 2→4: dropped
 *   0→4 would need 4 hops (0-1-5-2-4): no edge. 3 relates to no selected tool.
 * Transitive reduction drops 0→2 (via 0-1-2) and 1→4 (via 1-2-4). Layers [0,3] [1] [2] [4].
 */
const g = buildCsr(8, [
  { from: 0, to: 1, weight: 1 },
  { from: 1, to: 5, weight: 0.8 },
  { from: 5, to: 2, weight: 0.6 },
  { from: 2, to: 4, weight: 0.9 },
  { from: 4, to: 2, weight: 0.3 },
  { from: 3, to: 6, weight: 1 },
  { from: 7, to: 3, weight: 1 },
]);
const selected = [0, 1, 2, 3, 4];

describe("buildExecutionDag: hand-built graph", () => {
  const dag = buildExecutionDag(g, selected, { latencyMs: (v) => [100, 50, 200, 300, 10][v] });

  it("exports the documented defaults", () => {
    expect(DEFAULTS).toEqual({ maxHops: 3, minWeight: 0.1, declaredDependencyWeight: 1, unknownLatencyMs: 0 });
  });

  it("keeps the reduced, acyclic edges with their evidence", () => {
    expect(pairs(dag.edges)).toEqual([
      [0, 1],
      [1, 2],
      [2, 4],
    ]);
    const [e01, e12, e24] = dag.edges;
    expect(e01).toMatchObject({ path: [0, 1], hops: 1, strength: 1, cost: 1, direct: false });
    expect(e12).toMatchObject({ path: [1, 5, 2], hops: 2, direct: false });
    expect(e12!.strength).toBeCloseTo(0.35, 12);
    expect(e12!.cost).toBeCloseTo(1.25 + 1 / 0.6, 12);
    expect(e24).toMatchObject({ path: [2, 4], hops: 1, strength: 0.9 });
  });

  it("reports the cycle drop first, then the transitive drops, each with its witness", () => {
    expect(dag.dropped.map((d) => [d.edge.from, d.edge.to, d.reason, d.witness])).toEqual([
      [4, 2, "cycle", [4, 2, 4]],
      [0, 2, "transitive", [0, 1, 2]],
      [1, 4, "transitive", [1, 2, 4]],
    ]);
    const e02 = dag.dropped[1]!.edge;
    expect(e02).toMatchObject({ path: [0, 1, 5, 2], hops: 3 });
    expect(e02.strength).toBeCloseTo(2.4 / 9, 12);
    expect(dag.dropped[2]!.edge.strength).toBeCloseTo(2.3 / 9, 12);
    expect(dag.dropped[0]!.explanation).toContain("weakest edge of cycle 4→2→4");
    expect(dag.dropped[1]!.explanation).toBe("dropped 0→2: implied by 0→1→2");
  });

  it("a relation that needs 4 hops gives no edge (0 does not directly precede 4)", () => {
    expect(inferDependencies(g, selected).some((e) => e.from === 0 && e.to === 4)).toBe(false);
  });

  it("layers: parallel tools share a layer", () => {
    expect(dag.layers).toEqual([[0, 3], [1], [2], [4]]);
  });

  it("explains every node; the unrelated tool is its own root", () => {
    expect(dag.nodes.map((n) => [n.node, n.layer, n.root, n.prerequisites, n.dependents])).toEqual([
      [0, 0, true, [], [1]],
      [1, 1, false, [0], [2]],
      [2, 2, false, [1], [4]],
      [3, 0, true, [], []],
      [4, 3, false, [2], []],
    ]);
    expect(dag.nodes[3]!.reason).toBe("own root: no path of at most 3 hops to or from any other selected tool");
    expect(dag.nodes[0]!.reason).toBe("root: no prerequisite among the selected tools; required by 1");
    expect(dag.nodes[4]!.reason).toBe("layer 3: runs after 2");
  });

  it("critical path and wall time versus sequential", () => {
    // Chain 0-1-2-4: 100 + 50 + 200 + 10 = 360 > tool 3 alone (300). Sequential 660.
    expect(dag.timing).toEqual({
      path: [0, 1, 2, 4],
      wallTimeMs: 360,
      sequentialMs: 660,
      speedup: 660 / 360,
      unknownLatency: [],
      reason: null,
    });
  });
});

describe("buildExecutionDag: cases", () => {
  it("without latencies the timing is empty with a reason", () => {
    expect(buildExecutionDag(g, selected).timing).toMatchObject({
      path: [],
      wallTimeMs: 0,
      reason: "no latencyMs given",
    });
  });

  it("a root whose incoming edges were cut by cycle breaking says so", () => {
    const h = buildCsr(2, [
      { from: 0, to: 1, weight: 0.9 },
      { from: 1, to: 0, weight: 0.5 },
    ]);
    const dag = buildExecutionDag(h, [0, 1]);
    expect(dag.nodes[0]!.reason).toBe(
      "root: no prerequisite among the selected tools; incoming edges from 1 dropped to break cycles; required by 1",
    );
    expect(dag.layers).toEqual([[0], [1]]);
  });

  it("reasons name the other nodes by the caller's label, not by index", () => {
    const h = buildCsr(3, [
      { from: 0, to: 1, weight: 0.9 },
      { from: 1, to: 0, weight: 0.5 },
      { from: 1, to: 2, weight: 0.8 },
    ]);
    const names = ["git.diff", "git.commit", "git.push"];
    const dag = buildExecutionDag(h, [0, 1, 2], { label: (v) => names[v]! });
    expect(dag.nodes.map((n) => n.reason)).toEqual([
      "root: no prerequisite among the selected tools; incoming edges from git.commit dropped to break cycles; required by git.commit",
      "layer 1: runs after git.diff",
      "layer 2: runs after git.commit",
    ]);
  });

  it("a direct dependency edge wins over the cheaper path through another tool", () => {
    // 0→1 (0.2) is a dependency edge; 0→2→1 (1, 1) is cheaper. Tool 2 is selected too.
    const h = buildCsr(3, [
      { from: 0, to: 1, weight: 0.2 },
      { from: 0, to: 2, weight: 1 },
      { from: 2, to: 1, weight: 1 },
    ]);
    const plain = buildExecutionDag(h, [0, 1, 2]);
    // Without the predicate 0→1 (via 2) is implied by 0→2→1 and reduced away.
    expect(pairs(plain.edges)).toEqual([
      [0, 2],
      [2, 1],
    ]);
    expect(plain.dropped[0]!.edge).toMatchObject({ from: 0, to: 1, path: [0, 2, 1], direct: false });
    const dep = buildExecutionDag(h, [0, 1], { isDependencyEdge: (u, v) => u === 0 && v === 1 });
    expect(dep.edges).toEqual([
      { from: 0, to: 1, path: [0, 1], hops: 1, cost: 5, meanWeight: 0.2, strength: 0.2, direct: true },
    ]);
  });

  it("declared-only edges are never hops of a longer path: no false A→C, so the true A→D survives reduction", () => {
    // Declared (template 0.5) A→B→C, C→D, A→D; A = 0, B = 1 (not selected), C = 2, D = 3; nothing learned.
    const declared = buildCsr(4, [
      { from: 0, to: 1, weight: 0.5 },
      { from: 1, to: 2, weight: 0.5 },
      { from: 2, to: 3, weight: 0.5 },
      { from: 0, to: 3, weight: 0.5 },
    ]);
    const isDependencyEdge = (u: number, v: number) =>
      declared.targets.subarray(declared.offsets[u]!, declared.offsets[u + 1]!).includes(v);
    // Every edge a hop (the old rule): A→C through B (strength (1/2) × 0.5 = 0.25) makes A→D look implied.
    const old = buildExecutionDag(declared, [0, 2, 3], { isDependencyEdge });
    expect(pairs(old.edges)).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(old.edges[0]).toMatchObject({ path: [0, 1, 2], hops: 2, strength: 0.25, direct: false });
    expect(old.dropped.map((d) => [d.edge.from, d.edge.to, d.reason, d.witness])).toEqual([
      [0, 3, "transitive", [0, 2, 3]],
    ]);
    // Declared edges direct only: A→D and C→D, both direct with strength 0.5; A and C run in parallel.
    const dag = buildExecutionDag(declared, [0, 2, 3], { isDependencyEdge, pathCsr: buildCsr(4, []) });
    expect(dag.edges.map((e) => [e.from, e.to, e.hops, e.strength, e.direct])).toEqual([
      [0, 3, 1, 0.5, true],
      [2, 3, 1, 0.5, true],
    ]);
    expect(dag.dropped).toEqual([]);
    expect(dag.layers).toEqual([[0, 2], [3]]);
    // A and C alone: unrelated, each its own root.
    const pair = buildExecutionDag(declared, [0, 2], { isDependencyEdge, pathCsr: buildCsr(4, []) });
    expect(pair.edges).toEqual([]);
    expect(pair.nodes.map((x) => x.reason)).toEqual([
      "own root: no path of at most 3 hops to or from any other selected tool",
      "own root: no path of at most 3 hops to or from any other selected tool",
    ]);
  });

  it("no selected tools: empty DAG", () => {
    const dag = buildExecutionDag(g, []);
    expect(dag).toMatchObject({ nodes: [], edges: [], dropped: [], layers: [] });
  });

  it("a single selected tool is its own root", () => {
    const dag = buildExecutionDag(g, [2]);
    expect(dag.layers).toEqual([[2]]);
    expect(dag.nodes[0]!.reason).toContain("own root");
  });

  it("maxHops is honoured in the node reasons", () => {
    expect(buildExecutionDag(g, [0, 3], { maxHops: 2 }).nodes[0]!.reason).toContain("at most 2 hops");
  });
});

describe("buildExecutionDag: properties", () => {
  const input = fc.integer({ min: 1, max: 14 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc.record({
          from: fc.integer({ min: 0, max: n - 1 }),
          to: fc.integer({ min: 0, max: n - 1 }),
          weight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0.5, 1)),
        }),
        { maxLength: 45 },
      ),
      selected: fc.shuffledSubarray(Array.from({ length: n }, (_, i) => i)),
      deps: fc.array(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), {
        maxLength: 4,
      }),
      lat: fc.array(fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }), { minLength: n, maxLength: n }),
    }),
  );

  it("acyclic, every tool exactly once in the layers, layers respect every kept edge, edges explained", () => {
    fc.assert(
      fc.property(input, ({ n, edges, selected, deps, lat }) => {
        const csr = buildCsr(n, edges as CsrEdge[]);
        const depSet = new Set(deps.map(([u, v]) => `${u}>${v}`));
        const isDependencyEdge = (u: number, v: number) => depSet.has(`${u}>${v}`);
        const dag = buildExecutionDag(csr, selected, {
          isDependencyEdge,
          latencyMs: (v) => lat[v],
          search: createHopBoundedSearch(csr),
        });

        // Every selected tool exactly once across the layers; no empty layer.
        expect(dag.layers.flat().sort((a, b) => a - b)).toEqual(selected.slice().sort((a, b) => a - b));
        for (const layer of dag.layers) expect(layer.length).toBeGreaterThan(0);
        const layerOf = new Map(dag.layers.flatMap((l, i) => l.map((v) => [v, i] as const)));
        // Layers respect every kept edge, which also proves acyclicity.
        for (const e of dag.edges) expect(layerOf.get(e.to)!).toBeGreaterThan(layerOf.get(e.from)!);

        // Kept ∪ dropped = the candidates; each edge carries consistent evidence.
        const candidates = inferDependencies(csr, selected, { isDependencyEdge });
        expect(dag.edges.length + dag.dropped.length).toBe(candidates.length);
        for (const e of [...dag.edges, ...dag.dropped.map((d) => d.edge)]) {
          expect(e.hops).toBeGreaterThanOrEqual(1);
          expect(e.hops).toBeLessThanOrEqual(3);
          expect(e.path.length).toBe(e.hops + 1);
          expect(e.path[0]).toBe(e.from);
          expect(e.path[e.hops]).toBe(e.to);
          expect(e.strength).toBeCloseTo(e.meanWeight / e.hops, 12);
          expect(e.direct).toBe(isDependencyEdge(e.from, e.to));
        }
        for (const d of dag.dropped) expect(["cycle", "transitive"]).toContain(d.reason);

        // Nodes: in input order, root ⇔ layer 0 ⇔ no kept prerequisite.
        expect(dag.nodes.map((x) => x.node)).toEqual(selected);
        for (const x of dag.nodes) {
          expect(x.layer).toBe(layerOf.get(x.node));
          expect(x.root).toBe(x.layer === 0);
          expect(x.prerequisites.length === 0).toBe(x.root);
          expect(x.reason.length).toBeGreaterThan(0);
        }

        // Timing: the critical path is a kept path; wall ≤ sequential.
        expect(dag.timing.wallTimeMs).toBeLessThanOrEqual(dag.timing.sequentialMs);
        for (let i = 1; i < dag.timing.path.length; i++) {
          expect(dag.edges.some((e) => e.from === dag.timing.path[i - 1] && e.to === dag.timing.path[i])).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("with multi-hop paths over a learned subset: acyclic, every tool once, longer paths use learned edges only", () => {
    fc.assert(
      fc.property(
        input,
        fc.array(fc.boolean(), { minLength: 45, maxLength: 45 }),
        ({ n, edges, selected, deps }, learnedFlags) => {
          const csr = buildCsr(n, edges as CsrEdge[]);
          const learned = edges.filter((_, i) => learnedFlags[i]);
          const pathCsr = buildCsr(n, learned as CsrEdge[]);
          const depSet = new Set(deps.map(([u, v]) => `${u}>${v}`));
          const isDependencyEdge = (u: number, v: number) => depSet.has(`${u}>${v}`);
          const dag = buildExecutionDag(csr, selected, {
            isDependencyEdge,
            pathCsr,
            search: createHopBoundedSearch(pathCsr),
          });
          expect(dag.layers.flat().sort((a, b) => a - b)).toEqual(selected.slice().sort((a, b) => a - b));
          const layerOf = new Map(dag.layers.flatMap((l, i) => l.map((v) => [v, i] as const)));
          for (const e of dag.edges) expect(layerOf.get(e.to)!).toBeGreaterThan(layerOf.get(e.from)!);
          const learnedPairs = new Set(learned.map((e) => `${e.from}>${e.to}`));
          for (const e of [...dag.edges, ...dag.dropped.map((d) => d.edge)]) {
            if (e.hops > 1)
              for (let i = 1; i <= e.hops; i++) expect(learnedPairs.has(`${e.path[i - 1]}>${e.path[i]}`)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("deterministic: the same input gives the same DAG", () => {
    fc.assert(
      fc.property(input, ({ n, edges, selected }) => {
        const csr = buildCsr(n, edges as CsrEdge[]);
        expect(buildExecutionDag(csr, selected)).toEqual(buildExecutionDag(csr, selected));
      }),
      { numRuns: 100 },
    );
  });
});

describe("buildExecutionDag: direction from observed precedence", () => {
  // flight_search → flight_ticket_changing seen 50 times, the reverse 10 times; both edges saturate at 1.
  // share = (50 + 1) / (60 + 2) = 0.8226 against 11 / 62 = 0.1774: the reverse edge is dropped.
  for (const [search, change] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const csr = buildCsr(2, [
      { from: search, to: change, weight: 1 },
      { from: change, to: search, weight: 1 },
    ]);
    const counts = (a: number, b: number) =>
      a === search && b === change ? 50 : a === change && b === search ? 10 : 0;
    for (const order of [
      [search, change],
      [change, search],
    ]) {
      it(`orients flight_search (node ${search}) → flight_ticket_changing, input order [${order}]`, () => {
        const dag = buildExecutionDag(csr, order, { precedence: counts });
        expect(pairs(dag.edges)).toEqual([[search, change]]);
        expect(dag.edges[0]!.precedence).toEqual({ before: 50, after: 10, share: 51 / 62 });
        expect(dag.dropped.map((d) => [d.edge.from, d.edge.to])).toEqual([[change, search]]);
        expect(dag.dropped[0]!.edge.precedence!.share).toBeCloseTo(11 / 62, 12);
      });
    }
  }

  it("an edge with its precedence is the candidate's fields, in their order, then precedence (proposals keep their extras)", () => {
    const csr = buildCsr(3, [{ from: 0, to: 1, weight: 0.8 }]);
    const proposal = {
      from: 2,
      to: 1,
      path: [2, 1],
      hops: 1,
      cost: 10,
      meanWeight: 0.1,
      strength: 0.1,
      direct: false,
      mentioned: { from: 0, to: 3 },
    };
    const dag = buildExecutionDag(csr, [0, 1, 2], { precedence: () => 0, propose: () => [proposal] });
    const inferred = inferDependencies(csr, [0, 1, 2]);
    const precedence = { before: 0, after: 0, share: 0.5 };
    expect(dag.edges.map((e) => Object.keys(e))).toEqual([
      [...Object.keys(inferred[0]!), "precedence"],
      [...Object.keys(proposal), "precedence"],
    ]);
    expect(dag.edges).toEqual([
      { ...inferred[0]!, precedence },
      { ...proposal, precedence },
    ]);
  });

  it("without counts, a saturated 2-cycle keeps neither direction (no index tie-break)", () => {
    const csr = buildCsr(2, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 0, weight: 1 },
    ]);
    expect(buildExecutionDag(csr, [0, 1]).edges).toEqual([]);
    expect(buildExecutionDag(csr, [1, 0]).edges).toEqual([]);
  });

  it("a strong direction seen less often can still win: strength × share, not share alone", () => {
    // 0→1 weight 1 seen 4 times before, 1→0 weight 0.5 (a sequence edge) seen 6 times:
    // 1 × 5/12 = 0.4167 > 0.5 × 7/12 = 0.2917 → 1→0 is dropped.
    const csr = buildCsr(2, [
      { from: 0, to: 1, weight: 1 },
      { from: 1, to: 0, weight: 0.5 },
    ]);
    const dag = buildExecutionDag(csr, [1, 0], { precedence: (a) => (a === 0 ? 4 : 6) });
    expect(pairs(dag.edges)).toEqual([[0, 1]]);
  });

  it("property: permuting the selected tools never changes the DAG", () => {
    const arb = fc.integer({ min: 2, max: 7 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.record({
            from: fc.integer({ min: 0, max: n - 1 }),
            to: fc.integer({ min: 0, max: n - 1 }),
            weight: fc.constantFrom(0.35, 0.5, 0.7, 1),
          }),
          { selector: (e) => `${e.from}>${e.to}`, maxLength: 24 },
        ),
        counts: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: n * n, maxLength: n * n }),
        perm: fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i),
          { minLength: n, maxLength: n },
        ),
        withCounts: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(arb, ({ n, edges, counts, perm, withCounts }) => {
        const csr = buildCsr(
          n,
          edges.filter((e) => e.from !== e.to),
        );
        const opts = withCounts ? { precedence: (a: number, b: number) => counts[a * n + b]! } : {};
        const selected = Array.from({ length: n }, (_, i) => i);
        const a = buildExecutionDag(csr, selected, opts);
        const b = buildExecutionDag(csr, perm, opts);
        const set = (d: typeof a) => new Set(d.edges.map((e) => `${e.from}>${e.to}`));
        expect(set(b)).toEqual(set(a));
        expect(b.layers.map((l) => l.slice().sort())).toEqual(a.layers.map((l) => l.slice().sort()));
      }),
      { numRuns: 300, seed: 20 },
    );
  });
});

/*
 * Direct evidence first: 0→2 is a direct dependency edge (weight 1); 1 reaches 2 only through the
 * unselected 5 (1→5 0.8, 5→2 0.6: a 2-hop path of strength 0.35). Without directFirst both prerequisites of 2
 * stay (0 and 1 are unrelated, so no reduction); with it the path edge goes, named with the direct edge.
 */
describe("buildExecutionDag: directFirst", () => {
  const csr = buildCsr(6, [
    { from: 0, to: 2, weight: 1 },
    { from: 1, to: 5, weight: 0.8 },
    { from: 5, to: 2, weight: 0.6 },
  ]);
  const isDependencyEdge = (u: number, v: number) => u === 0 && v === 2;

  it("keeps a path prerequisite beside a direct one by default", () => {
    const dag = buildExecutionDag(csr, [0, 1, 2], { isDependencyEdge });
    expect(pairs(dag.edges)).toEqual([
      [0, 2],
      [1, 2],
    ]);
  });

  it("drops it with directFirst, and says why", () => {
    const dag = buildExecutionDag(csr, [0, 1, 2], { isDependencyEdge, directFirst: true });
    expect(pairs(dag.edges)).toEqual([[0, 2]]);
    expect(dag.dropped.map((d) => [d.edge.from, d.edge.to, d.reason, d.witness])).toEqual([
      [1, 2, "direct-first", [0, 2]],
    ]);
    expect(dag.layers).toEqual([[0, 1], [2]]);
    // 1 was related to 2 by the dropped path: a root, not an unrelated tool.
    expect(dag.nodes[1]!.reason).toBe("root: no prerequisite among the selected tools");
  });

  it("with roles, orients a path between tools never seen in succession by their consumer rates", () => {
    // 1 ⇝ 2 over the path; consumer(1) = 0.9 > consumer(2) = 0.1, never observed either way: 2 → 1.
    const dag = buildExecutionDag(csr, [1, 2], {
      precedence: () => 0,
      roles: { consumerRate: (v) => (v === 1 ? 0.9 : 0.1) },
    });
    expect(pairs(dag.edges)).toEqual([[2, 1]]);
    expect(dag.edges[0]!.orientation).toEqual({ evidence: [1, 5, 2], consumerFrom: 0.1, consumerTo: 0.9 });
    // Observed once in the path's direction: kept as found.
    const seen = buildExecutionDag(csr, [1, 2], {
      precedence: (a, b) => (a === 1 && b === 2 ? 1 : 0),
      roles: { consumerRate: (v) => (v === 1 ? 0.9 : 0.1) },
    });
    expect(pairs(seen.edges)).toEqual([[1, 2]]);
  });
});

/*
 * keepDirect: direct dependency edges 0→1, 1→2 and 0→2 (a data flow observed from 0 to 2 as well as
 * through 1). The reduction drops 0→2 by default; with keepDirect it stays, and the layers are unchanged.
 */
describe("buildExecutionDag: keepDirect", () => {
  const csr = buildCsr(3, [
    { from: 0, to: 1, weight: 1 },
    { from: 1, to: 2, weight: 1 },
    { from: 0, to: 2, weight: 0.7 },
  ]);
  const isDependencyEdge = (u: number, v: number) => u < v;

  it("drops the direct shortcut by default and keeps it with keepDirect", () => {
    const plain = buildExecutionDag(csr, [0, 1, 2], { isDependencyEdge });
    expect(pairs(plain.edges)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(plain.dropped.map((d) => [d.edge.from, d.edge.to, d.reason])).toEqual([[0, 2, "transitive"]]);
    const kept = buildExecutionDag(csr, [0, 1, 2], { isDependencyEdge, keepDirect: true });
    expect(pairs(kept.edges)).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(kept.dropped).toEqual([]);
    expect(kept.layers).toEqual([[0], [1], [2]]);
  });

  it("still drops a path shortcut", () => {
    const dag = buildExecutionDag(csr, [0, 1, 2], { isDependencyEdge: (u, v) => u + 1 === v, keepDirect: true });
    expect(pairs(dag.edges)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });
});

/*
 * Mention order (mention-order.ts): 1 reaches 2 only through the unselected 5 (1→5 0.8, 5→2 0.6:
 * a 2-hop path, strength (0.8 + 0.6)/2/2 = 0.35); 0→2 is a direct dependency edge (weight 1).
 *   - 1 and 2 never observed in succession, the intent mentions 2 (word 0) before 1 (word 4): the path edge is
 *     reversed to a one-hop 2 → 1 of the same strength 0.35, layers [2] [1].
 *   - the same intent, but 1 was observed before 2 three times: observed precedence wins, 1 → 2 stays.
 *   - a direct edge is never reversed by mention order (0 mentioned after 2: 0 → 2 stays).
 */
describe("buildExecutionDag: mention order", () => {
  const csr = buildCsr(6, [
    { from: 0, to: 2, weight: 1 },
    { from: 1, to: 5, weight: 0.8 },
    { from: 5, to: 2, weight: 0.6 },
  ]);
  const isDependencyEdge = (u: number, v: number) => u === 0 && v === 2;
  const mentions = (v: number) => ({ 2: 0, 1: 4, 0: 7 })[v];

  it("orients a pair the history never saw in succession by the order the intent mentions it", () => {
    const dag = buildExecutionDag(csr, [1, 2], { precedence: () => 0, mentions });
    expect(pairs(dag.edges)).toEqual([[2, 1]]);
    expect(dag.edges[0]!.strength).toBeCloseTo(0.35, 12);
    expect(dag.edges[0]!.hops).toBe(1);
    expect(dag.edges[0]!.orientation).toEqual({ evidence: [1, 5, 2], mention: { from: 0, to: 4 } });
    expect(dag.layers).toEqual([[2], [1]]);
    // Without the intent: the path's own direction.
    expect(pairs(buildExecutionDag(csr, [1, 2], { precedence: () => 0 }).edges)).toEqual([[1, 2]]);
  });

  it("lets observed precedence override mention order", () => {
    const dag = buildExecutionDag(csr, [1, 2], { precedence: (a, b) => (a === 1 && b === 2 ? 3 : 0), mentions });
    expect(pairs(dag.edges)).toEqual([[1, 2]]);
    expect(dag.edges[0]!.orientation).toBeUndefined();
    // Seen 3 times: below mentionMinObserved 4 it counts as unobserved, and the mention order decides again.
    expect(
      pairs(
        buildExecutionDag(csr, [1, 2], {
          precedence: (a, b) => (a === 1 && b === 2 ? 3 : 0),
          mentions,
          mentionMinObserved: 4,
        }).edges,
      ),
    ).toEqual([[2, 1]]);
  });

  it("never reverses a direct edge", () => {
    const dag = buildExecutionDag(csr, [0, 2], { precedence: () => 0, mentions, isDependencyEdge });
    expect(pairs(dag.edges)).toEqual([[0, 2]]);
  });
});
