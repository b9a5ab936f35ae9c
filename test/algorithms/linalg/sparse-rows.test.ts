import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildSparseRows, SparseRowsError } from "../../../algorithms/linalg/sparse-rows.ts";
import { buildSymmetricCsr, weightedDegrees } from "../../../algorithms/linalg/symmetric-csr.ts";

function dense(a: { n: number; offsets: Uint32Array; targets: Uint32Array; weights: Float64Array }): number[][] {
  const m = Array.from({ length: a.n }, () => new Array<number>(a.n).fill(0));
  for (let u = 0; u < a.n; u++)
    for (let j = a.offsets[u]!; j < a.offsets[u + 1]!; j++) m[u]![a.targets[j]!] = a.weights[j]!;
  return m;
}

describe("buildSparseRows", () => {
  it("merges duplicates by max or sum, drops self-pairs and zeros", () => {
    const us = [0, 0, 1, 2, 2, 1];
    const vs = [1, 1, 1, 0, 1, 2];
    const ws = [0.2, 0.5, 0.9, 0.3, 0, 0.4];
    expect(dense(buildSparseRows(3, us, vs, ws, "max"))).toEqual([
      [0, 0.5, 0],
      [0, 0, 0.4],
      [0.3, 0, 0],
    ]);
    // sum: 0.2 + 0.5 = 0.7
    expect(dense(buildSparseRows(3, us, vs, ws, "sum"))[0]![1]).toBeCloseTo(0.7, 15);
  });

  it("rows come out sorted by column (property)", () => {
    const arb = fc
      .integer({ min: 1, max: 20 })
      .chain((n) =>
        fc
          .array(
            fc.tuple(
              fc.integer({ min: 0, max: n - 1 }),
              fc.integer({ min: 0, max: n - 1 }),
              fc.double({ min: 0, max: 1, noNaN: true }),
            ),
            { maxLength: 60 },
          )
          .map((t) => ({ n, t })),
      );
    fc.assert(
      fc.property(arb, ({ n, t }) => {
        const r = buildSparseRows(
          n,
          t.map((x) => x[0]),
          t.map((x) => x[1]),
          t.map((x) => x[2]),
          "sum",
        );
        for (let u = 0; u < n; u++)
          for (let j = r.offsets[u]! + 1; j < r.offsets[u + 1]!; j++)
            expect(r.targets[j]! > r.targets[j - 1]!).toBe(true);
        // Sum merge preserves total weight of kept (non-self) triples.
        const kept = t.filter((x) => x[0] !== x[1]).reduce((s, x) => s + x[2], 0);
        expect(r.weights.reduce((s, x) => s + x, 0)).toBeCloseTo(kept, 9);
      }),
      { numRuns: 100, seed: 1 },
    );
  });

  it("empty matrix", () => {
    const r = buildSparseRows(0, [], [], [], "max");
    expect(r.offsets.length).toBe(1);
    expect(r.targets.length).toBe(0);
  });

  it("rejects out-of-range ids, negative weights and length mismatch", () => {
    expect(() => buildSparseRows(2, [0], [2], [1], "max")).toThrow(/column 2 outside 0..1/);
    expect(() => buildSparseRows(2, [0], [1], [-1], "max")).toThrow(SparseRowsError);
    expect(() => buildSparseRows(2, [0], [1, 0], [1], "max")).toThrow(/lengths differ/);
  });
});

describe("buildSymmetricCsr", () => {
  it("sums both orientations into one symmetric entry", () => {
    // {0,1}: 0.25 + 0.5 = 0.75; {1,2}: 1
    const a = buildSymmetricCsr(3, [0, 1, 2], [1, 0, 1], [0.25, 0.5, 1]);
    expect(dense(a)).toEqual([
      [0, 0.75, 0],
      [0.75, 0, 1],
      [0, 1, 0],
    ]);
    expect(Array.from(weightedDegrees(a))).toEqual([0.75, 1.75, 1]);
  });

  it("isolated node has an empty row and degree 0", () => {
    const a = buildSymmetricCsr(3, [0], [1], [1]);
    expect(a.offsets[3]! - a.offsets[2]!).toBe(0);
    expect(weightedDegrees(a)[2]).toBe(0);
  });

  it("reports mismatched lengths", () => {
    expect(() => buildSymmetricCsr(2, [0], [1], [])).toThrow(/lengths differ/);
  });
});
