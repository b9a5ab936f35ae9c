import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DagError } from "../../../algorithms/dag/dag-error.ts";
import type { Arc } from "../../../algorithms/dag/dependency-edge.ts";
import { topologicalLayers } from "../../../algorithms/dag/topological-layers.ts";

const a = (from: number, to: number): Arc => ({ from, to });

describe("topologicalLayers", () => {
  it("a chain gives one node per layer", () => {
    expect(topologicalLayers([2, 0, 1], [a(0, 1), a(1, 2)]).layers).toEqual([[0], [1], [2]]);
  });

  it("a diamond: the two middle tools share a layer", () => {
    expect(topologicalLayers([0, 1, 2, 3], [a(0, 1), a(0, 2), a(1, 3), a(2, 3)]).layers).toEqual([[0], [1, 2], [3]]);
  });

  it("longest-path layering: a node sits after its deepest prerequisite", () => {
    // 0→1→2 and 0→2: 2 is in layer 2, not 1.
    const r = topologicalLayers([0, 1, 2], [a(0, 1), a(1, 2), a(0, 2)]);
    expect(r.layers).toEqual([[0], [1], [2]]);
    expect(r.layerOf.get(2)).toBe(2);
  });

  it("unrelated tools all run in layer 0, in input order", () => {
    expect(topologicalLayers([5, 3, 9], []).layers).toEqual([[5, 3, 9]]);
  });

  it("empty input gives no layers", () => {
    expect(topologicalLayers([], []).layers).toEqual([]);
  });

  it("two components: layers interleave, input order within a layer", () => {
    expect(topologicalLayers([10, 20, 11, 21], [a(10, 11), a(20, 21)]).layers).toEqual([
      [10, 20],
      [11, 21],
    ]);
  });

  it("rejects a cycle", () => {
    try {
      topologicalLayers([0, 1, 2], [a(0, 1), a(1, 2), a(2, 1)]);
      throw new Error("expected a DagError");
    } catch (err) {
      expect(err).toBeInstanceOf(DagError);
      expect((err as DagError).code).toBe("cyclic");
      expect((err as Error).message).toContain("dag/topological-layers");
    }
  });

  it("property: every node in exactly one layer, every edge goes to a later layer, no empty layer", () => {
    const dag = fc.integer({ min: 0, max: 12 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        raw: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 40 }),
      }),
    );
    fc.assert(
      fc.property(dag, ({ n, raw }) => {
        const seen = new Set<string>();
        const edges: Arc[] = [];
        for (const [x, y] of raw) {
          if (n === 0) break;
          const u = x % n;
          const v = y % n;
          if (u >= v || seen.has(`${u}>${v}`)) continue;
          seen.add(`${u}>${v}`);
          edges.push(a(n - 1 - u, n - 1 - v)); // reversed ids: edges go from high to low id
        }
        const nodes = Array.from({ length: n }, (_, i) => i);
        const { layers, layerOf } = topologicalLayers(nodes, edges);
        expect(layers.flat().sort((p, q) => p - q)).toEqual(nodes);
        for (const layer of layers) expect(layer.length).toBeGreaterThan(0);
        for (const e of edges) expect(layerOf.get(e.to)!).toBeGreaterThan(layerOf.get(e.from)!);
        // Tight: every node outside layer 0 has a prerequisite exactly one layer above.
        for (const v of nodes) {
          const l = layerOf.get(v)!;
          if (l > 0) expect(edges.some((e) => e.to === v && layerOf.get(e.from) === l - 1)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
