import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DependencyEdge } from "../../../algorithms/dag/dependency-edge.ts";
import { directFirst } from "../../../algorithms/dag/direct-first.ts";

function edge(from: number, to: number, hops: number, direct: boolean, strength = 1 / hops): DependencyEdge {
  const path = hops === 1 ? [from, to] : [from, ...Array.from({ length: hops - 1 }, (_, k) => 100 + k), to];
  return { from, to, path, hops, cost: hops, meanWeight: strength * hops, strength, direct };
}

describe("directFirst", () => {
  /*
   * 0→2 direct; 1→2 a 2-hop path (dropped: 2 has the direct prerequisite 0); 3→4 a 3-hop path and 1→4 a
   * one-hop proposal (both kept: 4 has no direct prerequisite); 2→4 is absent.
   */
  it("drops only the weaker-evidence edges into a tool with a direct prerequisite", () => {
    const edges = [edge(0, 2, 1, true), edge(1, 2, 2, false), edge(3, 4, 3, false), edge(1, 4, 1, false, 0.2)];
    const r = directFirst(edges);
    expect(r.kept.map((e) => [e.from, e.to])).toEqual([
      [0, 2],
      [3, 4],
      [1, 4],
    ]);
    expect(r.dropped.map((d) => [d.edge.from, d.edge.to, d.reason, d.witness])).toEqual([
      [1, 2, "direct-first", [0, 2]],
    ]);
    expect(r.dropped[0]!.explanation).toBe(
      "dropped 1→2: 2 has a direct dependency edge from 0; a 2-hop relation adds no prerequisite",
    );
  });

  it("keeps every direct edge, also several into one tool, and leaves edge lists without a direct edge alone", () => {
    const both = [edge(0, 2, 1, true), edge(1, 2, 1, true)];
    expect(directFirst(both).kept).toEqual(both);
    const none = [edge(0, 2, 2, false), edge(1, 2, 3, false)];
    expect(directFirst(none)).toEqual({ kept: none, dropped: [] });
    expect(directFirst([])).toEqual({ kept: [], dropped: [] });
  });

  it("property: partitions the input, keeps every direct edge, and no kept tool with a direct prerequisite keeps another kind; order-free", () => {
    const edges = fc.uniqueArray(
      fc.record({
        from: fc.integer({ min: 0, max: 5 }),
        to: fc.integer({ min: 0, max: 5 }),
        hops: fc.integer({ min: 1, max: 3 }),
        direct: fc.boolean(),
      }),
      { selector: (e) => `${e.from}>${e.to}`, maxLength: 20 },
    );
    fc.assert(
      fc.property(edges, fc.integer(), (raw, seed) => {
        const list = raw.filter((e) => e.from !== e.to).map((e) => edge(e.from, e.to, e.direct ? 1 : e.hops, e.direct));
        const r = directFirst(list);
        expect(r.kept.length + r.dropped.length).toBe(list.length);
        for (const e of list) if (e.direct) expect(r.kept).toContain(e);
        const withDirect = new Set(list.filter((e) => e.direct).map((e) => e.to));
        for (const e of r.kept) if (withDirect.has(e.to)) expect(e.direct).toBe(true);
        // A permutation of the input keeps the same edges.
        const shuffled = list
          .slice()
          .sort((a, b) => ((a.from * 7 + a.to * 13 + seed) % 11) - ((b.from * 7 + b.to * 13 + seed) % 11));
        expect(new Set(directFirst(shuffled).kept)).toEqual(new Set(r.kept));
      }),
      { numRuns: 300, seed: 20 },
    );
  });
});
