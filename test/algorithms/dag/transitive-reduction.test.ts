import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Arc } from "../../../algorithms/dag/dependency-edge.ts";
import { transitiveReduction } from "../../../algorithms/dag/transitive-reduction.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

const a = (from: number, to: number): Arc => ({ from, to });
const pairs = (edges: readonly Arc[]) => edges.map((e) => [e.from, e.to]);

const expectDagError = expectDagErrorOf("dag/transitive-reduction");

/** Independent reachability: DFS from every node. */
function reachability(n: number, edges: readonly Arc[]): Set<string> {
  const out = new Map<number, number[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const pairsReached = new Set<string>();
  for (let s = 0; s < n; s++) {
    const stack = [...(out.get(s) ?? [])];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (seen.has(v)) continue;
      seen.add(v);
      pairsReached.add(`${s}>${v}`);
      stack.push(...(out.get(v) ?? []));
    }
  }
  return pairsReached;
}

describe("transitiveReduction", () => {
  it("never drops an edge marked keep: the triangle's shortcut stays, the chain's other shortcut goes", () => {
    // 0→1→2→3 with shortcuts 0→2 (kept: a direct edge) and 1→3 (dropped: implied by 1→2→3).
    const keep = (e: Arc) => e.from === 0 && e.to === 2;
    const r = transitiveReduction([0, 1, 2, 3], [a(0, 1), a(1, 2), a(2, 3), a(0, 2), a(1, 3)], { keep });
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [0, 2],
    ]);
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to, d.witness])).toEqual([[1, 3, [1, 2, 3]]]);
  });

  it("property: keep only adds back kept edges; reachability is unchanged", () => {
    const dag = fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.boolean()), {
      selector: ([f, t]) => `${f}>${t}`,
      maxLength: 18,
    });
    fc.assert(
      fc.property(dag, (raw) => {
        // Acyclic: only edges from a lower to a higher node.
        const edges = raw.filter(([f, t]) => f < t).map(([from, to, k]) => ({ from, to, k }));
        const nodes = [0, 1, 2, 3, 4, 5, 6];
        const plain = transitiveReduction(nodes, edges);
        const kept = transitiveReduction(nodes, edges, { keep: (e) => e.k });
        const expected = new Set([...plain.kept, ...edges.filter((e) => e.k)]);
        expect(new Set(kept.kept)).toEqual(expected);
        expect(reachability(7, kept.kept)).toEqual(reachability(7, edges));
      }),
      { numRuns: 300, seed: 20 },
    );
  });

  it("drops the shortcut of a triangle, explained by the kept path", () => {
    const r = transitiveReduction([0, 1, 2], [a(0, 1), a(1, 2), a(0, 2)]);
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(r.dropped).toEqual([
      {
        edge: { from: 0, to: 2 },
        reason: "transitive",
        witness: [0, 1, 2],
        explanation: "dropped 0→2: implied by 0→1→2",
      },
    ]);
  });

  it("drops a shortcut over a longer chain", () => {
    const r = transitiveReduction([0, 1, 2, 3], [a(0, 3), a(0, 1), a(1, 2), a(2, 3), a(1, 3)]);
    expect(pairs(r.kept)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    expect(r.dropped.map((d) => d.witness)).toEqual([
      [0, 1, 2, 3],
      [1, 2, 3],
    ]);
  });

  it("keeps a diamond (no edge is implied)", () => {
    const edges = [a(0, 1), a(0, 2), a(1, 3), a(2, 3)];
    expect(transitiveReduction([0, 1, 2, 3], edges)).toEqual({ kept: edges, dropped: [] });
  });

  it("works on sparse ids beyond 32 nodes (multi-word bitsets)", () => {
    const nodes = Array.from({ length: 40 }, (_, i) => 1000 + i);
    const chain = nodes.slice(1).map((v, i) => a(nodes[i]!, v));
    const r = transitiveReduction(nodes, [...chain, a(1000, 1039)]);
    expect(r.kept).toHaveLength(39);
    expect(r.dropped[0]!.witness).toEqual(nodes);
  });

  it("empty graph and isolated nodes", () => {
    expect(transitiveReduction([], [])).toEqual({ kept: [], dropped: [] });
    expect(transitiveReduction([3, 4], [])).toEqual({ kept: [], dropped: [] });
  });

  it("rejects cycles, duplicate edges and unknown nodes", () => {
    expectDagError(() => transitiveReduction([0, 1], [a(0, 1), a(1, 0)]), "cyclic");
    expectDagError(() => transitiveReduction([0, 1], [a(0, 1), a(0, 1)]), "duplicate-edge");
    expectDagError(() => transitiveReduction([0], [a(0, 1)]), "unknown-node");
  });

  it("property: same reachability, and no kept edge is implied by the others", () => {
    // Random DAGs: edges only from lower to higher id, then ids shuffled by a permutation.
    const dag = fc.integer({ min: 1, max: 10 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        perm: fc.shuffledSubarray(
          Array.from({ length: n }, (_, i) => i),
          { minLength: n, maxLength: n },
        ),
        raw: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })), {
          selector: ([x, y]) => `${Math.min(x, y)}>${Math.max(x, y)}`,
          maxLength: 35,
        }),
      }),
    );
    fc.assert(
      fc.property(dag, ({ n, perm, raw }) => {
        const edges = raw.filter(([x, y]) => x !== y).map(([x, y]) => a(perm[Math.min(x, y)]!, perm[Math.max(x, y)]!));
        const nodes = Array.from({ length: n }, (_, i) => i);
        const r = transitiveReduction(nodes, edges);
        expect(reachability(n, r.kept)).toEqual(reachability(n, edges));
        for (const e of r.kept) {
          const others = r.kept.filter((f) => f !== e);
          expect(reachability(n, others).has(`${e.from}>${e.to}`)).toBe(false);
        }
        for (const d of r.dropped) {
          expect(d.witness.length).toBeGreaterThanOrEqual(3);
          for (let i = 1; i < d.witness.length; i++) {
            expect(r.kept.some((f) => f.from === d.witness[i - 1] && f.to === d.witness[i])).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
