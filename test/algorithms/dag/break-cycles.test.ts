import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breakCycles, defaultWeaker } from "../../../algorithms/dag/break-cycles.ts";
import type { StrengthArc } from "../../../algorithms/dag/dependency-edge.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const arc = (from: number, to: number, strength: number, direct = false): StrengthArc => ({
  from,
  to,
  strength,
  direct,
});
const pairs = (edges: readonly StrengthArc[]) => edges.map((e) => [e.from, e.to]);

const expectDagError = expectDagErrorOf("dag/break-cycles");

/** Independent acyclicity check: repeatedly remove nodes without in-edges. */
function isAcyclic(nodes: readonly number[], edges: readonly StrengthArc[]): boolean {
  let remaining = new Set(nodes);
  let live = edges.slice();
  for (;;) {
    const hasIn = new Set(live.map((e) => e.to));
    const sources = [...remaining].filter((v) => !hasIn.has(v));
    if (sources.length === 0) return remaining.size === 0;
    remaining = new Set([...remaining].filter((v) => hasIn.has(v)));
    live = live.filter((e) => remaining.has(e.from));
  }
}

describe("breakCycles", () => {
  it("breaks a 3-cycle at its weakest edge", () => {
    // 0→1 (0.5), 1→2 (0.3), 2→0 (0.4): weakest is 1→2.
    const edges = [arc(0, 1, 0.5), arc(1, 2, 0.3), arc(2, 0, 0.4)];
    const r = breakCycles([0, 1, 2], edges);
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [2, 0],
    ]);
    expect(r.dropped).toHaveLength(1);
    expect(r.dropped[0]).toMatchObject({ edge: edges[1], reason: "cycle", witness: [1, 2, 0, 1] });
    expect(r.dropped[0]!.explanation).toContain("1→2→0→1");
  });

  it("breaks a 4-cycle at its weakest edge", () => {
    // 0→1 (0.6), 1→2 (0.7), 2→3 (0.2), 3→0 (0.9): weakest is 2→3.
    const edges = [arc(0, 1, 0.6), arc(1, 2, 0.7), arc(2, 3, 0.2), arc(3, 0, 0.9)];
    const r = breakCycles([0, 1, 2, 3], edges);
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [1, 2],
      [3, 0],
    ]);
    expect(r.dropped.map((d) => d.witness)).toEqual([[2, 3, 0, 1, 2]]);
  });

  it("breaks a 2-cycle at the weaker direction", () => {
    const r = breakCycles([7, 9], [arc(7, 9, 0.4), arc(9, 7, 0.6)]);
    expect(pairs(r.kept)).toEqual([[9, 7]]);
    expect(r.dropped[0]!.witness).toEqual([7, 9, 7]);
  });

  it("two cycles sharing an edge: drops the weakest of each, weakest first", () => {
    // Cycles 0→1→0 (weakest 1→0, 0.5) and 0→1→2→0 (weakest 2→0, 0.3).
    const r = breakCycles([0, 1, 2], [arc(0, 1, 0.9), arc(1, 0, 0.5), arc(1, 2, 0.8), arc(2, 0, 0.3)]);
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to])).toEqual([
      [2, 0],
      [1, 0],
    ]);
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it("keeps a weak edge that lies on no cycle", () => {
    const r = breakCycles([0, 1, 2], [arc(0, 1, 0.9), arc(1, 0, 0.8), arc(2, 0, 0.1)]);
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to])).toEqual([[1, 0]]);
  });

  it("drops only as many edges as needed once an earlier drop already broke a cycle", () => {
    // 0→1 (0.1) lies on both 0→1→2→0 and 0→1→3→0; dropping it breaks both.
    const r = breakCycles(
      [0, 1, 2, 3],
      [arc(0, 1, 0.1), arc(1, 2, 0.5), arc(2, 0, 0.6), arc(1, 3, 0.7), arc(3, 0, 0.8)],
    );
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to])).toEqual([[0, 1]]);
  });

  it("tie-break: a non-direct edge is dropped before a direct one of equal strength", () => {
    const r = breakCycles([0, 1], [arc(0, 1, 0.5, true), arc(1, 0, 0.5, false)]);
    expect(r.dropped[0]!.edge).toMatchObject({ from: 1, to: 0 });
  });

  it("tie: equal strength and kind → both directions dropped together, never one chosen by id or order", () => {
    for (const edges of [
      [arc(5, 3, 0.5), arc(3, 5, 0.5)],
      [arc(3, 5, 0.5), arc(5, 3, 0.5)],
    ]) {
      const r = breakCycles([5, 3], edges);
      expect(r.kept).toEqual([]);
      expect(r.dropped.map((d) => `${d.edge.from}>${d.edge.to}`).sort()).toEqual(["3>5", "5>3"]);
      expect(r.dropped[0]!.explanation).toContain("dropped together");
    }
  });

  it("orderWeight decides before strength: 50 vs 10 observations at strength 1 drop the rarer direction", () => {
    // share(0 before 1) = (50 + 1) / (60 + 2) = 0.8226; share(1 before 0) = 11 / 62 = 0.1774.
    const count = (a: number, b: number) => (a === 0 && b === 1 ? 50 : 10);
    const ow = (e: { from: number; to: number; strength: number }) => e.strength * ((count(e.from, e.to) + 1) / 62);
    for (const edges of [
      [arc(0, 1, 1), arc(1, 0, 1)],
      [arc(1, 0, 1), arc(0, 1, 1)],
    ]) {
      const r = breakCycles([1, 0], edges, { orderWeight: ow });
      expect(r.kept).toEqual([arc(0, 1, 1)]);
      expect(r.dropped[0]!.explanation).toContain("order weight 0.1774");
    }
  });

  it("drops a self-loop as a cycle of length 1", () => {
    const r = breakCycles([4], [arc(4, 4, 0.9)]);
    expect(r.kept).toEqual([]);
    expect(r.dropped[0]!.witness).toEqual([4, 4]);
  });

  it("leaves an acyclic graph untouched and handles the empty graph", () => {
    const edges = [arc(0, 1, 0.1), arc(1, 2, 0.1), arc(0, 2, 0.1)];
    expect(breakCycles([0, 1, 2], edges)).toEqual({ kept: edges, dropped: [] });
    expect(breakCycles([], [])).toEqual({ kept: [], dropped: [] });
  });

  it("accepts a custom weakness order", () => {
    // Strongest-first "weakness": the 0.6 edge is dropped instead of the 0.4 one.
    const r = breakCycles([0, 1], [arc(0, 1, 0.4), arc(1, 0, 0.6)], { weaker: (a, b) => b.strength - a.strength });
    expect(r.dropped[0]!.edge).toMatchObject({ from: 1, to: 0 });
  });

  it("rejects edges to unlisted nodes, duplicate nodes and non-finite strengths", () => {
    expectDagError(() => breakCycles([0], [arc(0, 1, 0.5)]), "unknown-node");
    expectDagError(() => breakCycles([0, 0], []), "duplicate-node");
    expectDagError(() => breakCycles([0, 1], [arc(0, 1, Number.NaN)]), "bad-strength");
  });

  it("property: the result is acyclic, partitions the input, and each drop is the weakest edge of its cycle", () => {
    const graph = fc.integer({ min: 1, max: 8 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.record({
            from: fc.integer({ min: 0, max: n - 1 }),
            to: fc.integer({ min: 0, max: n - 1 }),
            strength: fc.constantFrom(0.1, 0.2, 0.3, 0.5, 0.8, 1),
            direct: fc.boolean(),
          }),
          { selector: (e) => `${e.from}>${e.to}`, maxLength: 30 },
        ),
      }),
    );
    fc.assert(
      fc.property(graph, ({ n, edges }) => {
        const nodes = Array.from({ length: n }, (_, i) => i);
        const r = breakCycles(nodes, edges);
        expect(isAcyclic(nodes, r.kept)).toBe(true);
        expect(r.kept.length + r.dropped.length).toBe(edges.length);
        expect(new Set([...r.kept, ...r.dropped.map((d) => d.edge)])).toEqual(new Set(edges));
        const byPair = new Map(edges.map((e) => [`${e.from}>${e.to}`, e]));
        for (const d of r.dropped) {
          const w = d.witness;
          expect(w[0]).toBe(d.edge.from);
          expect(w[1]).toBe(d.edge.to);
          expect(w[w.length - 1]).toBe(d.edge.from);
          for (let i = 1; i < w.length; i++) {
            const f = byPair.get(`${w[i - 1]}>${w[i]}`);
            expect(f).toBeDefined();
            expect(defaultWeaker(f!, d.edge)).toBeGreaterThanOrEqual(0);
          }
        }
      }),
      { numRuns: 300, seed: 20 },
    );
  });

  it("property: permuting the edges or relabelling the nodes never changes which edges are kept", () => {
    const graph = fc.integer({ min: 1, max: 7 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.record({
            from: fc.integer({ min: 0, max: n - 1 }),
            to: fc.integer({ min: 0, max: n - 1 }),
            strength: fc.constantFrom(0.3, 0.5, 1),
            direct: fc.boolean(),
          }),
          { selector: (e) => `${e.from}>${e.to}`, maxLength: 20 },
        ),
        perm: fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i),
          { minLength: n, maxLength: n },
        ),
        seed: fc.integer(),
      }),
    );
    fc.assert(
      fc.property(graph, ({ n, edges, perm, seed }) => {
        const nodes = Array.from({ length: n }, (_, i) => i);
        const key = (e: { from: number; to: number }) => `${e.from}>${e.to}`;
        const base = new Set(breakCycles(nodes, edges).kept.map(key));
        // Relabel node i as perm[i] and shuffle the edge list: the kept set maps over exactly.
        const relabelled = edges.map((e) => ({ ...e, from: perm[e.from]!, to: perm[e.to]! }));
        const shuffled = relabelled
          .map((e, i) => ({ e, r: Math.sin(seed + i) }))
          .sort((a, b) => a.r - b.r)
          .map((x) => x.e);
        const other = new Set(breakCycles(perm.slice().reverse(), shuffled).kept.map(key));
        expect(other).toEqual(
          new Set(edges.filter((e) => base.has(key(e))).map((e) => `${perm[e.from]}>${perm[e.to]}`)),
        );
      }),
      { numRuns: 300, seed: 20 },
    );
  });
});
