/**
 * The graph stage's build order (algorithms/vector/graph.ts buildGraph): with the IVF build's k-means cells the
 * vectors are inserted cell by cell from codes held in cell order, and the graph it serves is by id.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { u4GraphScan } from "../../../algorithms/simd/u4-scan.ts";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";
import { buildGraph } from "../../../algorithms/vector/graph.ts";

/** Random codes, scales and mean (seeded); the graph built with `cells` (or none). */
function build(n: number, seed: number, cells?: Int32Array) {
  const D = 64;
  const scan = u4GraphScan(n, D, 8, 1)!;
  const rng = mulberry32(seed);
  const codes = Uint8Array.from({ length: n * (D >> 1) }, () => Math.floor(rng() * 256));
  scan.codes.set(codes);
  const scales = Float32Array.from({ length: n }, () => 0.01 + rng());
  const made = buildGraph({
    n,
    D,
    scan,
    scales,
    residuals: new Float32Array(n),
    rotatedMean: Float64Array.from({ length: D }, () => rng() - 0.5),
    rng: mulberry32(seed ^ 0x9e37),
    ...(cells ? { cells } : {}),
  });
  const { offsets, neighbors, entries } = made.stage;
  const rows = Array.from({ length: n }, (_, i) => {
    const row: number[] = [];
    for (let t = offsets![i]!; t < offsets![i + 1]!; t++)
      row.push(neighbors[3 * t]! | (neighbors[3 * t + 1]! << 8) | (neighbors[3 * t + 2]! << 16));
    return row;
  });
  return { rows, entries: Array.from(entries), codes, scales, made };
}

describe.skipIf(!simdAvailable())("graph build order", () => {
  it("property: every vector in one cell gives the graph built without cells (the same order, positions = ids)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 150 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (n, seed) => {
        const plain = build(n, seed);
        const one = build(n, seed, new Int32Array(n));
        expect(one.rows).toEqual(plain.rows);
        expect(one.entries).toEqual(plain.entries);
      }),
      { numRuns: 30 },
    );
  });

  it("property: with any cells, the served graph is by id: its codes and scales are the input's, rows hold other ids", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 150 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (n, cellCount, seed) => {
          const rng = mulberry32(seed ^ 0x51);
          const cells = Int32Array.from({ length: n }, () => Math.floor(rng() * cellCount));
          const got = build(n, seed, cells);
          expect(Array.from(got.made.stage.codes.subarray(0, got.codes.length))).toEqual(Array.from(got.codes));
          expect(Array.from(got.made.stage.scales)).toEqual(Array.from(got.scales));
          for (let i = 0; i < n; i++) {
            const row = got.rows[i]!;
            expect(new Set(row).size).toBe(row.length);
            for (const v of row) {
              expect(v).not.toBe(i);
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThan(n);
            }
          }
          for (const e of got.entries) expect(e).toBeLessThan(n);
        },
      ),
      { numRuns: 30 },
    );
  });
});
