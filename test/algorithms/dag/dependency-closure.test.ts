import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Prerequisite } from "../../../algorithms/dag/dependency-closure.ts";
import { DEFAULTS, dependencyClosure } from "../../../algorithms/dag/dependency-closure.ts";
import { expectDagErrorOf } from "./expect-dag-error.ts";

/** Prerequisite lists from edges prerequisite → dependent. */
function fromEdges<T>(edges: ReadonlyArray<[T, T, number]>): (v: T) => Prerequisite<T>[] {
  return (v) => edges.filter(([, to]) => to === v).map(([from, , weight]) => ({ node: from, weight }));
}

const expectDagError = expectDagErrorOf("dag/dependency-closure");

// deploy ← build (0.9), deploy ← test (0.5), build ← fetch (0.8), fetch ← auth (0.7), auth ← vault (0.6)
const pipeline = fromEdges<string>([
  ["build", "deploy", 0.9],
  ["test", "deploy", 0.5],
  ["fetch", "build", 0.8],
  ["auth", "fetch", 0.7],
  ["vault", "auth", 0.6],
]);

describe("dependencyClosure", () => {
  it("exports the documented defaults", () => {
    expect(DEFAULTS).toEqual({ maxDepth: 3, maxAdded: Number.POSITIVE_INFINITY });
  });

  it("adds prerequisites breadth first up to depth 3, strongest first within a depth, and says what was left", () => {
    const r = dependencyClosure(["deploy"], pipeline);
    expect(r.nodes).toEqual(["deploy", "build", "test", "fetch", "auth"]);
    expect(r.added.map((a) => [a.node, a.requiredBy, a.depth, a.weight])).toEqual([
      ["build", "deploy", 1, 0.9],
      ["test", "deploy", 1, 0.5],
      ["fetch", "build", 2, 0.8],
      ["auth", "fetch", 3, 0.7],
    ]);
    expect(r.added[0]!.explanation).toBe("build added: prerequisite of deploy (depth 1, edge weight 0.9)");
    expect(r.truncated).toBe(true);
    expect(r.reason).toBe("stopped at maxDepth = 3: 1 prerequisite(s) at depth 4 left out");
  });

  it("a deep enough bound gets everything and is not truncated", () => {
    const r = dependencyClosure(["deploy"], pipeline, { maxDepth: 10 });
    expect(r.nodes).toEqual(["deploy", "build", "test", "fetch", "auth", "vault"]);
    expect(r).toMatchObject({ truncated: false, reason: null });
  });

  it("maxAdded caps the additions, keeping the strongest of the shallowest", () => {
    const r = dependencyClosure(["deploy"], pipeline, { maxAdded: 1 });
    expect(r.nodes).toEqual(["deploy", "build"]);
    expect(r.truncated).toBe(true);
    expect(r.reason).toContain("maxAdded = 1");
  });

  it("maxDepth 0 adds nothing and reports the missing prerequisites", () => {
    const r = dependencyClosure(["deploy"], pipeline, { maxDepth: 0 });
    expect(r.nodes).toEqual(["deploy"]);
    expect(r.reason).toBe("stopped at maxDepth = 0: 2 prerequisite(s) at depth 1 left out");
  });

  it("a prerequisite required by two nodes is explained by the stronger requirement", () => {
    const r = dependencyClosure(
      [1, 2],
      fromEdges<number>([
        [9, 1, 0.3],
        [9, 2, 0.7],
      ]),
    );
    expect(r.added).toMatchObject([{ node: 9, requiredBy: 2, depth: 1, weight: 0.7 }]);
  });

  it("equal weights keep discovery order (frontier order, then listing order)", () => {
    const r = dependencyClosure(
      [1, 2],
      fromEdges<number>([
        [8, 2, 0.5],
        [7, 1, 0.5],
        [6, 1, 0.5],
      ]),
    );
    expect(r.added.map((a) => a.node)).toEqual([7, 6, 8]);
  });

  it("cyclic prerequisites do not loop; seeds are never re-added", () => {
    const r = dependencyClosure(
      ["a", "b"],
      fromEdges<string>([
        ["b", "a", 1],
        ["a", "b", 1],
        ["c", "b", 1],
        ["a", "c", 1],
      ]),
    );
    expect(r.nodes).toEqual(["a", "b", "c"]);
    expect(r).toMatchObject({ truncated: false, reason: null });
  });

  it("duplicate seeds are kept once; no seeds gives an empty closure", () => {
    expect(dependencyClosure(["x", "x"], () => []).nodes).toEqual(["x"]);
    expect(dependencyClosure([], pipeline)).toEqual({ nodes: [], added: [], truncated: false, reason: null });
  });

  it("rejects bad bounds and weights", () => {
    expectDagError(() => dependencyClosure([1], () => [], { maxDepth: -1 }), "bad-max-depth");
    expectDagError(() => dependencyClosure([1], () => [], { maxDepth: 1.5 }), "bad-max-depth");
    expectDagError(() => dependencyClosure([1], () => [], { maxAdded: -2 }), "bad-max-added");
    expectDagError(() => dependencyClosure([1], () => [{ node: 2, weight: Number.NaN }]), "bad-weight");
  });

  it("property: each addition sits at its BFS depth, needs an earlier node, and bounds hold", () => {
    const input = fc.record({
      edges: fc.array(
        fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 11 }), fc.constantFrom(0.2, 0.5, 0.9)),
        {
          maxLength: 40,
        },
      ),
      seeds: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }),
      maxDepth: fc.integer({ min: 0, max: 4 }),
      maxAdded: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(input, ({ edges, seeds, maxDepth, maxAdded }) => {
        const prereqs = fromEdges<number>(edges as Array<[number, number, number]>);
        const r = dependencyClosure(seeds, prereqs, maxAdded === undefined ? { maxDepth } : { maxDepth, maxAdded });
        expect(new Set(r.nodes).size).toBe(r.nodes.length);
        expect(r.added.length).toBeLessThanOrEqual(maxAdded ?? Number.POSITIVE_INFINITY);
        // Independent BFS distance (prerequisite direction) from the seeds.
        const dist = new Map<number, number>(seeds.map((s) => [s, 0]));
        let frontier = [...new Set(seeds)];
        for (let d = 1; frontier.length > 0; d++) {
          const next: number[] = [];
          for (const v of frontier)
            for (const p of prereqs(v))
              if (!dist.has(p.node)) {
                dist.set(p.node, d);
                next.push(p.node);
              }
          frontier = next;
        }
        r.added.forEach((a, i) => {
          expect(a.depth).toBe(dist.get(a.node));
          expect(a.depth).toBeLessThanOrEqual(maxDepth);
          expect(r.nodes.indexOf(a.requiredBy)).toBeLessThan(r.nodes.indexOf(a.node));
          expect(prereqs(a.requiredBy).some((p) => p.node === a.node && p.weight === a.weight)).toBe(true);
          if (i > 0) expect(a.depth).toBeGreaterThanOrEqual(r.added[i - 1]!.depth);
        });
        // Without a count cap: exactly the nodes within maxDepth, and truncated ⇔ something lies deeper.
        if (maxAdded === undefined) {
          const within = [...dist].filter(([, d]) => d <= maxDepth).map(([v]) => v);
          expect(new Set(r.nodes)).toEqual(new Set(within));
          expect(r.truncated).toBe([...dist.values()].some((d) => d > maxDepth));
        }
      }),
      { numRuns: 300 },
    );
  });
});
