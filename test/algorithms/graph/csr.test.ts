/**
 * buildCsr (algorithms/graph/csr.ts) against a plain reference: parallel edges merged by their largest weight,
 * self-loops dropped, every out- and in-slice sorted by neighbour id — whatever order the edges come in.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr, buildCsrSteps, type CsrEdge } from "../../../algorithms/graph/csr.ts";

/** The CSR as sorted lists per node, computed the obvious way. */
function reference(n: number, edges: readonly CsrEdge[]) {
  const best = new Map<string, CsrEdge>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    const k = `${e.from},${e.to}`;
    const prev = best.get(k);
    if (!prev || e.weight > prev.weight) best.set(k, e);
  }
  const out = Array.from({ length: n }, () => [] as [number, number][]);
  const into = Array.from({ length: n }, () => [] as [number, number][]);
  for (const e of best.values()) {
    out[e.from]!.push([e.to, e.weight]);
    into[e.to]!.push([e.from, e.weight]);
  }
  for (const l of [...out, ...into]) l.sort((a, b) => a[0] - b[0]);
  return { m: best.size, out, into };
}

function lists(offsets: Uint32Array, ids: Uint32Array, ws: Float64Array, n: number): [number, number][][] {
  return Array.from({ length: n }, (_, u) => {
    const l: [number, number][] = [];
    for (let e = offsets[u]!; e < offsets[u + 1]!; e++) l.push([ids[e]!, ws[e]!]);
    return l;
  });
}

describe("buildCsr", () => {
  it("by hand: a merged pair, a self-loop, slices sorted", () => {
    const g = buildCsr(3, [
      { from: 0, to: 2, weight: 0.5 },
      { from: 0, to: 1, weight: 0.2 },
      { from: 0, to: 2, weight: 0.9 },
      { from: 1, to: 1, weight: 1 },
      { from: 2, to: 0, weight: 0.3 },
    ]);
    expect(g.m).toBe(3);
    expect([...g.offsets]).toEqual([0, 2, 2, 3]);
    expect([...g.targets]).toEqual([1, 2, 0]);
    expect([...g.weights]).toEqual([0.2, 0.9, 0.3]);
    expect([...g.inOffsets]).toEqual([0, 1, 2, 3]);
    expect([...g.inSources]).toEqual([2, 0, 0]);
    expect([...g.inWeights]).toEqual([0.3, 0.2, 0.9]);
  });

  it("property: equals the sorted reference, in and out, whatever the edge order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }).chain((n) =>
          fc.tuple(
            fc.constant(n),
            fc.array(
              fc.record({
                from: fc.integer({ min: 0, max: n - 1 }),
                to: fc.integer({ min: 0, max: n - 1 }),
                weight: fc.double({ min: 0, max: 1, noNaN: true }),
              }),
              { maxLength: 400 },
            ),
          ),
        ),
        ([n, edges]) => {
          const g = buildCsr(n, edges);
          const r = reference(n, edges);
          expect(g.m).toBe(r.m);
          expect(lists(g.offsets, g.targets, g.weights, n)).toEqual(r.out);
          expect(lists(g.inOffsets, g.inSources, g.inWeights, n)).toEqual(r.into);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("buildCsrSteps pauses in each pass over 20,000 edges and returns the same arrays", () => {
    let seed = 3;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 8;
    };
    const edges = Array.from({ length: 20_000 }, () => ({
      from: next() % 500,
      to: next() % 500,
      weight: next() / 2 ** 24,
    }));
    const steps = buildCsrSteps(500, edges);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBeGreaterThan(4);
    expect(r.value).toEqual(buildCsr(500, edges));
    const ref = reference(500, edges);
    expect(lists(r.value.offsets, r.value.targets, r.value.weights, 500)).toEqual(ref.out);
  });
});
