/**
 * Recall of the staged vector index on small anisotropic data (a shared mean direction and a power-law spectrum,
 * the shape of sentence embeddings: synthetic-embeddings.ts), checked against a brute-force float64 scan.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dotAt } from "../../../algorithms/linalg/dot.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../../../algorithms/search/synthetic-embeddings.ts";
import { buildVectorIndex, searchVectorIndex } from "../../../algorithms/search/vector-index.ts";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";

/** The exact top-k ids by float64 dot products (ties: smaller id), written here independently of the index. */
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

const QUERIES = 32;
const anisotropic = { meanWeight: 1.5, spectrumDecay: 1, noise: 1.2 };

function dataset(seed: number, n: number, d: number, clusters: number) {
  const gen = syntheticEmbeddings(d, mulberry32(seed), { ...anisotropic, clusters });
  return { X: gen.sample(n), Q: gen.sample(QUERIES) };
}

describe("vector index on anisotropic data", () => {
  it("property: mean recall@10 against brute force ≥ 0.99, every score the exact dot product (JS path)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 300, max: 2500 }),
        fc.constantFrom(32, 64, 100),
        fc.integer({ min: 3, max: 60 }),
        (seed, n, d, clusters) => {
          const { X, Q } = dataset(seed, n, d, clusters);
          const index = buildVectorIndex(X, d);
          let recall = 0;
          for (let r = 0; r < QUERIES; r++) {
            const q = Q.subarray(r * d, (r + 1) * d);
            const hits = searchVectorIndex(index, q, 10, { simd: false, scanSimd: false });
            const truth = new Set(bruteForce(X, d, q, 10));
            recall += hits.filter((h) => truth.has(h.id)).length / 10;
            for (const h of hits) expect(h.score).toBe(dotAt(X, h.id * d, Float64Array.from(q), d));
          }
          expect(recall / QUERIES).toBeGreaterThanOrEqual(0.99);
        },
      ),
      { numRuns: 12 },
    );
  });

  it.skipIf(!simdAvailable())(
    "property: with the SIMD kernels (the IVF stage allowed from n = 1,000, kept or dropped by its calibration), mean recall@10 ≥ 0.99",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          fc.integer({ min: 1000, max: 4000 }),
          fc.integer({ min: 5, max: 80 }),
          (seed, n, clusters) => {
            const d = 128;
            const { X, Q } = dataset(seed, n, d, clusters);
            const index = buildVectorIndex(X, d, { ivfFrom: 1000, rng: mulberry32(seed ^ 0x5eed) });
            let recall = 0;
            for (let r = 0; r < QUERIES; r++) {
              const q = Q.subarray(r * d, (r + 1) * d);
              const truth = new Set(bruteForce(X, d, q, 10));
              recall += searchVectorIndex(index, q, 10).filter((h) => truth.has(h.id)).length / 10;
            }
            expect(recall / QUERIES).toBeGreaterThanOrEqual(0.99);
          },
        ),
        { numRuns: 8 },
      );
    },
  );

  it.skipIf(!simdAvailable())(
    "the counterexamples the property found against a 32-query calibration now reach recall@10 ≥ 0.99",
    () => {
      // [seed, n, clusters]: recall .9875, .984, .978 and .978 when the calibration sampled 32 indexed vectors, or kept
      // the stage at probe fractions up to 0.4 (docs/decisions/ivf-calibration.md).
      const cases = [
        [915342989, 1004, 8],
        [468522009, 3127, 11],
        [331771481, 2467, 10],
        [691566178, 3982, 22],
      ] as const;
      const d = 128;
      for (const [seed, n, clusters] of cases) {
        const { X, Q } = dataset(seed, n, d, clusters);
        const index = buildVectorIndex(X, d, { ivfFrom: 1000, rng: mulberry32(seed ^ 0x5eed) });
        let recall = 0;
        for (let r = 0; r < QUERIES; r++) {
          const q = Q.subarray(r * d, (r + 1) * d);
          const truth = new Set(bruteForce(X, d, q, 10));
          recall += searchVectorIndex(index, q, 10).filter((h) => truth.has(h.id)).length / 10;
        }
        expect(recall / QUERIES, `seed ${seed}`).toBeGreaterThanOrEqual(0.99);
      }
    },
  );

  it.skipIf(!simdAvailable())(
    "ivfMaxProbeFraction 1 keeps the IVF stage whatever its calibration; outside (0, 1] it is rejected",
    () => {
      const d = 128;
      const { X } = dataset(7, 1500, d, 40);
      expect(buildVectorIndex(X, d, { ivfFrom: 1000 }).ivf).toBeUndefined(); // calibrated above the default 0.25
      const kept = buildVectorIndex(X, d, { ivfFrom: 1000, ivfMaxProbeFraction: 1 }).ivf;
      expect(kept).toBeDefined();
      expect(kept!.probeFraction).toBeGreaterThan(0.25);
      for (const bad of [0, 1.5, Number.NaN])
        expect(() => buildVectorIndex(X, d, { ivfFrom: 1000, ivfMaxProbeFraction: bad })).toThrow(
          /ivfMaxProbeFraction/,
        );
    },
  );
});
