/**
 * The graph stage of the staged vector index (algorithms/vector/graph.ts) on small anisotropic data, checked against
 * a brute-force float64 scan written here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dotAt } from "../../../algorithms/linalg/dot.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../../../algorithms/search/synthetic-embeddings.ts";
import { buildVectorIndex, searchVectorIndex } from "../../../algorithms/search/vector-index.ts";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";

function bruteForce(X: Float32Array, d: number, q: Float32Array, k: number): number[] {
  const n = X.length / d;
  const scored = Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += X[i * d + j]! * q[j]!;
    return { i, s };
  });
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  return scored.slice(0, k).map((h) => h.i);
}

const QUERIES = 24;

describe.skipIf(!simdAvailable())("vector index graph stage", () => {
  it("property: when kept, mean recall@10 ≥ 0.97 against brute force, every score the exact dot product", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1000, max: 3000 }),
        fc.integer({ min: 5, max: 80 }),
        (seed, n, clusters) => {
          const d = 128;
          const gen = syntheticEmbeddings(d, mulberry32(seed), {
            meanWeight: 1.5,
            spectrumDecay: 1,
            noise: 1.2,
            clusters,
          });
          const X = gen.sample(n);
          const Q = gen.sample(QUERIES);
          // IVF allowed from n = 1,000 but dropped by any calibration (max probe 1e-6): the graph stage is built.
          const index = buildVectorIndex(X, d, {
            ivfFrom: 1000,
            ivfMaxProbeFraction: 1e-6,
            graph: true,
            rng: mulberry32(seed ^ 0x5eed),
          });
          expect(index.ivf).toBeUndefined();
          if (!index.graph) return; // no beam width of the ladder passed the calibration: the scan serves
          // served from compact rows of 3-byte ids: row i is ids offsets[i] .. offsets[i + 1] − 1, ≤ degree of them, not i
          const { offsets, neighbors, degree } = index.graph;
          expect(offsets?.length).toBe(n + 1);
          expect(offsets![0]).toBe(0);
          expect(neighbors.length).toBe(3 * offsets![n]!);
          for (let i = 0; i < n; i++) {
            const row: number[] = [];
            for (let t = offsets![i]!; t < offsets![i + 1]!; t++)
              row.push(neighbors[3 * t]! | (neighbors[3 * t + 1]! << 8) | (neighbors[3 * t + 2]! << 16));
            expect(row.length).toBeGreaterThan(0);
            expect(row.length).toBeLessThanOrEqual(degree);
            for (const v of row) expect(v >= 0 && v < n && v !== i).toBe(true);
          }
          let recall = 0;
          let recall32 = 0;
          for (let r = 0; r < QUERIES; r++) {
            const q = Q.subarray(r * d, (r + 1) * d);
            const truth = new Set(bruteForce(X, d, q, 10));
            const hits = searchVectorIndex(index, q, 10);
            recall += hits.filter((h) => truth.has(h.id)).length / 10;
            const narrow = searchVectorIndex(index, q, 10, { graphBeam: 32 });
            recall32 += narrow.filter((h) => truth.has(h.id)).length / 10;
            for (const h of [...hits, ...narrow]) expect(h.score).toBe(dotAt(X, h.id * d, Float64Array.from(q), d));
          }
          expect(recall / QUERIES).toBeGreaterThanOrEqual(0.97);
          // at a fixed beam of 32 (the calibrated one is wider)
          expect(recall32 / QUERIES).toBeGreaterThanOrEqual(0.95);
        },
      ),
      { numRuns: 6 },
    );
  });

  it("is off by default and rejects a bad beam", () => {
    const d = 64;
    const X = syntheticEmbeddings(d, mulberry32(7), { meanWeight: 1.5, spectrumDecay: 1, noise: 1.2 }).sample(1200);
    expect(buildVectorIndex(X, d, { ivfFrom: 1000, ivfMaxProbeFraction: 1e-6 }).graph).toBeUndefined();
    const index = buildVectorIndex(X, d, { ivfFrom: 1000, ivfMaxProbeFraction: 1e-6, graph: true });
    if (index.graph)
      expect(() => searchVectorIndex(index, X.subarray(0, d), 10, { graphBeam: 0 })).toThrow(/graphBeam/);
  });
});
