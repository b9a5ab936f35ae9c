import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../../../algorithms/search/synthetic-embeddings.ts";
import {
  approximateScores,
  buildVectorIndex,
  codeShortlist,
  exactTopK,
  FULL_SCAN_RATIO,
  prefixScores,
  simdScanScores,
} from "../../../algorithms/search/vector-index.ts";
import { setSimdEnabled, simdAvailable } from "../../../algorithms/simd/row-dots.ts";

const sorted = (ids: ArrayLike<number>) => Array.from(ids).sort((a, b) => a - b);

describe.runIf(simdAvailable())("vector index: SIMD code scan (4-bit query)", () => {
  it("property: SIMD scores are within scale_i · D·Δ/2 of the JS table scores (128-bit prefix and full codes), random data", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(100, 128, 300, 512),
        fc.integer({ min: 1, max: 200 }),
        (seed, d, n) => {
          const rng = mulberry32(seed);
          const X = Float32Array.from({ length: n * d }, () => rng() * 2 - 1);
          const index = buildVectorIndex(X, d, { rng: mulberry32(seed ^ 5) });
          const q = Float64Array.from({ length: d }, () => rng() * 2 - 1);
          const words = index.bits >> 5;
          for (const [w, js] of [
            [4, prefixScores(index, q, 4)],
            [words, approximateScores(index, q)],
          ] as const) {
            const simd = simdScanScores(index, q, w)!;
            expect(simd.bound).toBeGreaterThan(0);
            for (let i = 0; i < n; i++) {
              expect(Math.abs(simd.scores[i]! - js[i]!)).toBeLessThanOrEqual(
                index.scales[i]! * simd.bound * (1 + 1e-9) + 1e-12,
              );
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  // d = 256 → 256-bit codes; the 128-bit prefix is stored contiguously (and read strided without it).
  const gen = syntheticEmbeddings(256, mulberry32(5), { clusters: 40, noise: 1.2, meanWeight: 1.5, spectrumDecay: 1 });
  const X = gen.sample(3000);
  const index = buildVectorIndex(X, 256, { rng: mulberry32(2) });

  /**
   * The cascade on SIMD scores: top keep by prefix score (ties: smaller id), then top size by the full code; or,
   * when the cascade would keep a tenth of n or more (n < FULL_SCAN_RATIO · keep), top size by the full code.
   */
  function reference(q: Float32Array, size: number, factor: number): number[] {
    const pre = simdScanScores(index, q, 4)!.scores;
    const full = simdScanScores(index, q, 8)!.scores;
    const keep = Math.ceil(factor * size);
    const first = Array.from(index.n < FULL_SCAN_RATIO * keep ? full : pre, (s, id) => ({ id, s }))
      .sort((a, b) => b.s - a.s || a.id - b.id)
      .slice(0, index.n < FULL_SCAN_RATIO * keep ? size : keep);
    return sorted(
      first
        .map((x) => ({ id: x.id, s: full[x.id]! }))
        .sort((a, b) => b.s - a.s || a.id - b.id)
        .slice(0, size)
        .map((x) => x.id),
    );
  }

  it("property: codeShortlist with scanSimd equals the exhaustive cascade (or, for a large keep, the full-code top) on the SIMD scores, contiguous or strided prefix", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 120 }),
        fc.constantFrom(1, 2, 4, 8),
        fc.integer({ min: 0, max: 1000 }),
        (size, factor, seed) => {
          fc.pre(2 * Math.ceil(factor * size) < 3000);
          const q = syntheticEmbeddings(256, mulberry32(seed), {
            clusters: 40,
            noise: 1.2,
            meanWeight: 1.5,
            spectrumDecay: 1,
          }).sample(1);
          const want = reference(q, size, factor);
          expect(sorted(codeShortlist(index, q, size, { prefilterFactor: factor, scanSimd: true }))).toEqual(want);
          const { prefixCodes: _, ...strided } = index;
          expect(sorted(codeShortlist(strided, q, size, { prefilterFactor: factor, scanSimd: true }))).toEqual(want);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("without the prefilter, the SIMD shortlist is the top by full-code SIMD score", () => {
    const q = gen.sample(1);
    const full = simdScanScores(index, q, 8)!.scores;
    const want = sorted(
      Array.from(full, (s, id) => ({ id, s }))
        .sort((a, b) => b.s - a.s || a.id - b.id)
        .slice(0, 50)
        .map((x) => x.id),
    );
    expect(sorted(codeShortlist(index, q, 50, { prefilterWords: 0, scanSimd: true }))).toEqual(want);
  });

  it("keeps the JS scan's top-10 recall of the shortlist within 2 points (20 queries, shortlist 100)", () => {
    let js = 0;
    let simd = 0;
    for (let t = 0; t < 20; t++) {
      const q = gen.sample(1);
      const exact = new Set(exactTopK(X, 256, q, 10).map((h) => h.id));
      js += Array.from(codeShortlist(index, q, 100, { scanSimd: false })).filter((id) => exact.has(id)).length;
      simd += Array.from(codeShortlist(index, q, 100, { scanSimd: true })).filter((id) => exact.has(id)).length;
    }
    expect(simd / 200).toBeGreaterThanOrEqual(js / 200 - 0.02);
  });

  describe("default", () => {
    afterEach(() => setSimdEnabled(true));
    it("on from n = SCAN_SIMD_MIN_N, off below it and when switched off (setSimdEnabled(false))", () => {
      const big = syntheticEmbeddings(128, mulberry32(8), { clusters: 40, noise: 1.2 });
      const Y = big.sample(5000);
      const bigIndex = buildVectorIndex(Y, 128);
      const small = buildVectorIndex(Y.subarray(0, 128 * 1000), 128);
      let bigDiffers = 0;
      for (let t = 0; t < 10; t++) {
        const q = big.sample(1);
        const simd = sorted(codeShortlist(bigIndex, q, 60, { scanSimd: true }));
        const js = sorted(codeShortlist(bigIndex, q, 60, { scanSimd: false }));
        if (JSON.stringify(simd) !== JSON.stringify(js)) bigDiffers++;
        expect(sorted(codeShortlist(bigIndex, q, 60))).toEqual(simd);
        expect(sorted(codeShortlist(small, q, 60))).toEqual(sorted(codeShortlist(small, q, 60, { scanSimd: false })));
        setSimdEnabled(false);
        expect(sorted(codeShortlist(bigIndex, q, 60))).toEqual(js);
        setSimdEnabled(true);
      }
      expect(bigDiffers).toBeGreaterThan(0); // the two scans really differ somewhere (else this test shows nothing)
    });
  });
});
