import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { dotAt } from "../../../algorithms/linalg/dot.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { KERNELS_WASM_BASE64 } from "../../../algorithms/simd/kernels-wasm.ts";
import {
  CHUNK,
  dotErrorFactor,
  dotUnderflowBound,
  f32RowDots,
  f32RowDotsSteps,
  int8RowDots,
  setSimdEnabled,
  simdAvailable,
  simdByDefault,
} from "../../../algorithms/simd/row-dots.ts";
import { assembleKernels } from "../../../bench/build-simd-kernels.ts";

function lcg(seed: number): () => number {
  const rng = mulberry32(seed);
  return () => rng() * 2 - 1;
}

describe("SIMD kernels: build", () => {
  it("the committed bytes are kernels.wat assembled (npx tsx bench/build-simd-kernels.ts)", async () => {
    const wat = readFileSync(new URL("../../../algorithms/simd/kernels.wat", import.meta.url), "utf8");
    const bytes = await assembleKernels(wat);
    expect(Buffer.from(bytes).toString("base64")).toBe(KERNELS_WASM_BASE64);
  });

  it("Node 20 runs them (WebAssembly SIMD is on by default)", () => {
    expect(simdAvailable()).toBe(true);
  });
});

describe("SIMD kernels: process switch", () => {
  afterEach(() => setSimdEnabled(true));
  it("setSimdEnabled(false) turns the default off, true restores it", () => {
    setSimdEnabled(false);
    expect(simdByDefault()).toBe(false);
    setSimdEnabled(true);
    expect(simdByDefault()).toBe(simdAvailable());
  });
});

describe.runIf(simdAvailable())("SIMD kernels: float32 rows", () => {
  it("by hand: [1..5]·[1,1,1,1,1] = 15, [1..5]·[2,0,0,0,-1] = −3 (a scalar tail after one 4-block)", () => {
    const k = f32RowDots(new Float32Array([1, 2, 3, 4, 5, 0, 0, 0, 0, 1]), 5)!;
    expect(Array.from(k.dots([0, 1, 0], [1, 1, 1, 1, 1]))).toEqual([15, 1, 15]);
    expect(Array.from(k.dots([0], [2, 0, 0, 0, -1]))).toEqual([-3]);
  });

  it("the error bound is about 2.6e-6 of Σ|x_j q_j| at d = 512", () => {
    expect(dotErrorFactor(512)).toBeGreaterThan(2.5e-6);
    expect(dotErrorFactor(512)).toBeLessThan(2.7e-6);
  });

  it("equals dotAt within dotErrorFactor(d) · Σ_j |x_j q_j| + underflow, for every d (16-blocks, 4-blocks, tails)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.double({ min: -8, max: 8, noNaN: true }),
        (d, n, seed, e) => {
          const r = lcg(seed);
          const rows = Float32Array.from({ length: n * d }, () => r() * 2 ** e);
          const q = Float64Array.from({ length: d }, () => r());
          const ids = Int32Array.from({ length: 3 * n }, (_, k) => (k * 5 + 1) % n);
          const got = f32RowDots(rows, d)!.dots(ids, q);
          for (let k = 0; k < ids.length; k++) {
            const o = ids[k]! * d;
            let abs = 0;
            let maxAbs = 0;
            for (let j = 0; j < d; j++) {
              abs += Math.abs(rows[o + j]! * q[j]!);
              maxAbs = Math.max(maxAbs, Math.abs(rows[o + j]!));
            }
            expect(Math.abs(got[k]! - dotAt(rows, o, q, d))).toBeLessThanOrEqual(
              dotErrorFactor(d) * abs + dotUnderflowBound(d, maxAbs),
            );
          }
        },
      ),
    );
  });

  it("scores more ids than one chunk, in order", () => {
    const d = 3;
    const n = 10;
    const rows = Float32Array.from({ length: n * d }, (_, i) => Math.floor(i / d)); // row i = [i, i, i]
    const ids = Int32Array.from({ length: CHUNK + 5 }, (_, k) => k % n);
    const got = f32RowDots(rows, d)!.dots(ids, [1, 1, 1]);
    expect(got.length).toBe(CHUNK + 5);
    for (let k = 0; k < ids.length; k++) expect(got[k]).toBe(3 * (k % n));
  });

  it("exactDots equals dotAt bit for bit (float64, four accumulators, tail into the first), for every d, more ids than one chunk", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 70 }), (seed, d) => {
        const r = lcg(seed);
        const n = 9;
        const rows = Float32Array.from({ length: n * d }, () => r() * 10 ** Math.floor(3 * r()));
        rows[0] = -0;
        const q = Float64Array.from({ length: d }, () => r() * 1e3);
        const k = f32RowDots(rows, d)!;
        const ids = Array.from({ length: CHUNK + 5 }, (_, t) => (t * 5) % n);
        const got = k.exactDots(ids, ids.length, q);
        for (let t = 0; t < ids.length; t++) expect(Object.is(got[t], dotAt(rows, ids[t]! * d, q, d))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("by hand: exactDots of [1, 2, 3, 4, 5] · [0.1, 0.2, 0.3, 0.4, 0.5] sums as dotAt: ((0.1 + 5·0.5) + 2·0.2) + (3·0.3 + 4·0.4)", () => {
    const k = f32RowDots(Float32Array.from([1, 2, 3, 4, 5]), 5)!;
    const q = [0.1, 0.2, 0.3, 0.4, 0.5];
    expect(k.exactDots([0], 1, q)[0]).toBe(0.1 + 5 * 0.5 + 2 * 0.2 + (3 * 0.3 + 4 * 0.4));
    expect(() => k.exactDots([1], 1, q)).toThrow(/not a row index/);
  });

  it("f32RowDotsSteps pauses after the allocation and after each rowsPerStep rows copied but the last, and returns f32RowDots's kernel", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 12 }),
        (seed, n, rowsPerStep) => {
          const r = lcg(seed);
          const d = 7;
          const rows = Float32Array.from({ length: n * d }, () => r());
          const steps = f32RowDotsSteps(rows, d, rowsPerStep);
          let pauses = 0;
          let it = steps.next();
          while (!it.done) {
            pauses++;
            it = steps.next();
          }
          // Hand-computed: ⌈n / rowsPerStep⌉ chunks, a pause before each when there is more than one.
          expect(pauses).toBe(rowsPerStep < n ? Math.ceil(n / rowsPerStep) : 0);
          const whole = f32RowDots(rows, d)!;
          const k = it.value!;
          expect(Array.from(k.rows)).toEqual(Array.from(whole.rows));
          expect(Array.from(k.rows)).toEqual(Array.from(rows));
          const ids = Array.from({ length: n }, (_, t) => t);
          const q = Array.from({ length: d }, () => r());
          expect(Array.from(k.dots(ids, q))).toEqual(Array.from(whole.dots(ids, q)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("rejects an id outside [0, n)", () => {
    const k = f32RowDots(new Float32Array(8), 4)!;
    expect(() => k.dots([2], [0, 0, 0, 0])).toThrow(/row-dots: id 2/);
    expect(() => k.dots([-1], [0, 0, 0, 0])).toThrow(RangeError);
  });
});

describe.runIf(simdAvailable())("SIMD kernels: int8 rows", () => {
  it("by hand: scale · Σ a_j y_j with negative codes and a tail", () => {
    const k = int8RowDots(2, 5)!;
    k.data.set([127, -128, 3, -4, 5, 1, 1, 1, 1, 1]);
    k.scales.set([0.5, 2]);
    // row 0: 127 + 128·2 + 3·0 − 4·1 + 5·(−1) = 374 → ·0.5 = 187; row 1: 1 − 2 + 0 + 1 − 1 = −1 → ·2 = −2
    expect(Array.from(k.dots([0, 1], [1, -2, 0, 1, -1]))).toEqual([187, -2]);
  });
});
