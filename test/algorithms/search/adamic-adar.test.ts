import fc from "fast-check";
import Graph from "graphology";
import { describe, expect, it } from "vitest";
import { buildCsr, type CsrEdge } from "../../../algorithms/graph/csr.ts";
import {
  adamicAdar,
  adamicAdarScore,
  meanAggregate,
  prepareAdamicAdar,
  undirectedDegree,
} from "../../../algorithms/search/adamic-adar.ts";

// 0→2 (1.0), 2→1 (0.5), 0→3 (0.8), 1→3 (0.8), 3→4 (1.0), 3→0 (0.5); node 5 isolated.
// Undirected: N(0) = {2: 1.0, 3: max(0.8, 0.5) = 0.8}, N(1) = {2: 0.5, 3: 0.8}, N(2) = {0, 1}, N(3) = {0, 1, 4}, N(4) = {3}.
const edges: CsrEdge[] = [
  { from: 0, to: 2, weight: 1.0 },
  { from: 2, to: 1, weight: 0.5 },
  { from: 0, to: 3, weight: 0.8 },
  { from: 1, to: 3, weight: 0.8 },
  { from: 3, to: 4, weight: 1.0 },
  { from: 3, to: 0, weight: 0.5 },
];
const g = buildCsr(6, edges);

describe("adamicAdar (hand-computed)", () => {
  it("AA(0,1) sums q(w)/ln|N(w)| over the common neighbours 2 and 3", () => {
    // w = 2: q = √(1.0·0.5) = 0.7071068, |N(2)| = 2 → 0.7071068 / ln 2 = 1.0201394
    // w = 3: q = √(0.8·0.8) = 0.8,       |N(3)| = 3 → 0.8 / ln 3       = 0.7281914
    // AA = 1.7483308; score = 1 − e^(−1.7483308) = 0.8259358
    const p = adamicAdar(g, 0, 1);
    expect(p.raw).toBeCloseTo(1.7483308, 6);
    expect(p.score).toBeCloseTo(0.8259358, 6);
    expect(p.direct).toBe(0);
    expect(p.contributions.map((c) => c.via)).toEqual([2, 3]);
    expect(p.contributions[0]).toMatchObject({ via: 2, weightU: 1, weightV: 0.5, degree: 2 });
    expect(p.contributions[0]!.contribution).toBeCloseTo(1.0201394, 6);
    expect(p.contributions[1]!.contribution).toBeCloseTo(0.7281914, 6);
  });

  it("a direct edge adds λ·w(u,v)", () => {
    // + edge 0→1 of weight 0.5, λ = 1: AA = 1.7483308 + 0.5 = 2.2483308 → 1 − e^(−2.2483308) = 0.8944247
    const g2 = buildCsr(6, [...edges, { from: 0, to: 1, weight: 0.5 }]);
    const p = adamicAdar(g2, 0, 1);
    expect(p.direct).toBe(0.5);
    expect(p.raw).toBeCloseTo(2.2483308, 6);
    expect(p.score).toBeCloseTo(0.8944247, 6);
    // λ = 0 ignores it
    expect(adamicAdar(g2, 0, 1, { directWeight: 0 }).raw).toBeCloseTo(1.7483308, 6);
  });

  it("is symmetric", () => {
    expect(adamicAdar(g, 1, 0).raw).toBeCloseTo(adamicAdar(g, 0, 1).raw, 12);
  });

  it("undirected degree counts a reciprocal pair once", () => {
    // 0 has out-edges to 2, 3 and an in-edge from 3 → {2, 3}
    expect(undirectedDegree(g, 0)).toBe(2);
    expect(undirectedDegree(g, 3)).toBe(3);
    expect(undirectedDegree(g, 5)).toBe(0);
  });
});

describe("adamicAdarScore against a context set", () => {
  it("max aggregation (default) over context tools 1 and 4", () => {
    // AA(0,4): common neighbour 3 only: √(0.8·1.0)/ln 3 = 0.8141427 → score 0.5569810
    // max(0.8259358, 0.5569810) = 0.8259358
    const r = adamicAdarScore(prepareAdamicAdar(g, [1, 4]), 0);
    expect(r.pairs.map((p) => p.context)).toEqual([1, 4]);
    expect(r.pairs[1]!.score).toBeCloseTo(0.556981, 6);
    expect(r.score).toBeCloseTo(0.8259358, 6);
  });

  it("mean aggregation", () => {
    // (0.8259358 + 0.5569810) / 2 = 0.6914584
    const r = adamicAdarScore(prepareAdamicAdar(g, [1, 4], { aggregate: meanAggregate }), 0);
    expect(r.score).toBeCloseTo(0.6914584, 6);
  });

  it("a context equal to the candidate is skipped; no other context → 0 with a reason", () => {
    const r = adamicAdarScore(prepareAdamicAdar(g, [0]), 0);
    expect(r).toEqual({ candidate: 0, score: 0, pairs: [], reason: "no-context" });
    expect(adamicAdarScore(prepareAdamicAdar(g, []), 0).reason).toBe("no-context");
  });

  it("duplicated context tools count once", () => {
    expect(prepareAdamicAdar(g, [1, 1, 4]).context).toEqual([1, 4]);
  });
});

describe("edge cases", () => {
  it("empty graph: any node id is out of range", () => {
    const empty = buildCsr(0, []);
    expect(() => adamicAdar(empty, 0, 0)).toThrow(expect.objectContaining({ code: "bad-node" }));
  });

  it("single node: self pair scores 0", () => {
    expect(adamicAdar(buildCsr(1, []), 0, 0).score).toBe(0);
  });

  it("disconnected parts score 0", () => {
    const p = adamicAdar(g, 5, 1);
    expect(p.raw).toBe(0);
    expect(p.contributions).toEqual([]);
  });

  it("zero-weight edges contribute nothing", () => {
    const z = buildCsr(3, [
      { from: 0, to: 2, weight: 0 },
      { from: 1, to: 2, weight: 1 },
    ]);
    expect(adamicAdar(z, 0, 1).raw).toBe(0);
  });

  it("a negative directWeight is rejected", () => {
    expect(() => prepareAdamicAdar(g, [1], { directWeight: -1 })).toThrow(
      expect.objectContaining({ code: "bad-direct-weight" }),
    );
  });
});

describe("properties", () => {
  const graphArb = fc.integer({ min: 2, max: 9 }).chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(
        fc.record({ from: fc.nat(n - 1), to: fc.nat(n - 1), weight: fc.double({ min: 0.01, max: 1, noNaN: true }) }),
        { maxLength: 25 },
      ),
      u: fc.nat(n - 1),
      v: fc.nat(n - 1),
    }),
  );

  it("matches a naive implementation on graphology, and scores lie in [0, 1)", () => {
    fc.assert(
      fc.property(graphArb, ({ n, edges: es, u, v }) => {
        const csr = buildCsr(n, es);
        // Independent reference: graphology undirected graph, max weight per pair, self-loops dropped.
        const ref = new Graph({ type: "undirected" });
        for (let i = 0; i < n; i++) ref.addNode(String(i));
        for (const e of es) {
          if (e.from === e.to) continue;
          const [a, b] = [String(e.from), String(e.to)];
          if (ref.hasEdge(a, b)) ref.setEdgeAttribute(a, b, "w", Math.max(ref.getEdgeAttribute(a, b, "w"), e.weight));
          else ref.addEdge(a, b, { w: e.weight });
        }
        let expected = 0;
        if (u !== v) {
          const U = String(u);
          const V = String(v);
          for (const w of ref.neighbors(U)) {
            if (w === V || !ref.hasEdge(V, w)) continue;
            const deg = ref.degree(w);
            if (deg <= 1) continue;
            expected += Math.sqrt(ref.getEdgeAttribute(U, w, "w") * ref.getEdgeAttribute(V, w, "w")) / Math.log(deg);
          }
          if (ref.hasEdge(U, V)) expected += ref.getEdgeAttribute(U, V, "w");
        }
        const p = adamicAdar(csr, u, v);
        expect(p.raw).toBeCloseTo(expected, 10);
        expect(p.score).toBeGreaterThanOrEqual(0);
        expect(p.score).toBeLessThan(1);
        const s = adamicAdarScore(prepareAdamicAdar(csr, [v, (v + 1) % n]), u);
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(1);
      }),
    );
  });
});
