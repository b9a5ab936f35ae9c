import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../../../algorithms/search/synthetic-embeddings.ts";
import { buildVectorIndex, buildVectorIndexSteps, searchVectorIndex } from "../../../algorithms/search/vector-index.ts";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";
import { DEFAULTS } from "../../../algorithms/vector/index-types.ts";

function unitMatrix(n: number, d: number, seed: number): Float32Array {
  const rng = mulberry32(seed);
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const v = rng() - 0.5;
      out[i * d + j] = v;
      s += v * v;
    }
    const norm = Math.sqrt(s) || 1;
    for (let j = 0; j < d; j++) out[i * d + j]! /= norm;
  }
  return out;
}

describe("buildVectorIndexSteps", () => {
  it("pauses through the mean and every rowsPerStep rows, and returns the index buildVectorIndex builds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (n, rowsPerStep, seed) => {
          const d = 24;
          const vectors = unitMatrix(n, d, seed);
          const steps = buildVectorIndexSteps(vectors, d, { vectorStore: "reference" }, rowsPerStep);
          const pauses: number[] = [];
          let r = steps.next();
          while (!r.done) {
            pauses.push(r.value);
            r = steps.next();
          }
          // Hand-computed: 0 at each multiple of rowsPerStep below n in the mean and 0 after it, then each
          // multiple of rowsPerStep below n in the coding pass, then n.
          const expected = [0];
          for (let k = rowsPerStep; k < n; k += rowsPerStep) expected.push(0);
          for (let k = rowsPerStep; k < n; k += rowsPerStep) expected.push(k);
          expected.push(n);
          expect(pauses).toEqual(expected);
          const whole = buildVectorIndex(vectors, d, { vectorStore: "reference" });
          expect(Array.from(r.value.codes)).toEqual(Array.from(whole.codes));
          expect(Array.from(r.value.scales)).toEqual(Array.from(whole.scales));
          expect(Array.from(r.value.mean)).toEqual(Array.from(whole.mean));
          if (n > 0) {
            const q = vectors.subarray(0, d);
            expect(searchVectorIndex(r.value, q, 5)).toEqual(searchVectorIndex(whole, q, 5));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it.skipIf(!simdAvailable())("pauses inside the IVF stage too, and returns the same lists and answers", () => {
    const d = 128;
    const n = 2500;
    const X = syntheticEmbeddings(d, mulberry32(11), { clusters: 20, noise: 0.5 }).sample(n);
    const options = { ivfFrom: 1000 };
    const steps = buildVectorIndexSteps(X, d, options, 500);
    const pauses: number[] = [];
    let r = steps.next();
    while (!r.done) {
      pauses.push(r.value);
      r = steps.next();
    }
    const whole = buildVectorIndex(X, d, options);
    expect(whole.ivf).toBeDefined(); // clustered data: the calibration keeps the IVF stage
    // 0 through the set-up: 4 + 1 in the mean (at 500 … 2000, after it), 4 in the row kernel's norm pass, 5 in
    // its copy (after the allocation, then after each 500 rows but the last), 1 after the coding arrays;
    // then 500 … 2000 and n for the coding pass; then n at least once per calibration query of the IVF stage
    const setUp = 4 + 1 + 4 + 5 + 1;
    expect(pauses.slice(0, setUp + 5)).toEqual([...new Array<number>(setUp).fill(0), 500, 1000, 1500, 2000, n]);
    expect(pauses.slice(setUp + 4).every((p) => p === n)).toBe(true);
    expect(pauses.length - setUp - 4).toBeGreaterThan(DEFAULTS.ivfCalibrationQueries);
    // The same index bit for bit: codes, scales, mean and the kernel's copy of the vectors.
    expect(Array.from(r.value.codes)).toEqual(Array.from(whole.codes));
    expect(Array.from(r.value.scales)).toEqual(Array.from(whole.scales));
    expect(Array.from(r.value.mean)).toEqual(Array.from(whole.mean));
    expect(Array.from(r.value.vectors)).toEqual(Array.from(X));
    const ivf = r.value.ivf!;
    expect(Array.from(ivf.order)).toEqual(Array.from(whole.ivf!.order));
    expect(Array.from(ivf.centroids)).toEqual(Array.from(whole.ivf!.centroids));
    expect(ivf.probeFraction).toBe(whole.ivf!.probeFraction);
    expect(Array.from(ivf.fine!.codes)).toEqual(Array.from(whole.ivf!.fine!.codes));
    for (let k = 0; k < 5; k++) {
      const q = X.subarray(k * 97 * d, (k * 97 + 1) * d);
      expect(searchVectorIndex(r.value, q, 10)).toEqual(searchVectorIndex(whole, q, 10));
    }
  });

  it("refuses a step size that is not a positive integer, naming it", () => {
    expect(() => buildVectorIndexSteps(new Float32Array(4), 4, {}, 0).next()).toThrow(/rowsPerStep/);
  });
});
