import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { appendInt8, dotInt8, dotsInt8, quantizeInt8 } from "../../../algorithms/search/int8-vectors.ts";
import { dotErrorFactor, dotUnderflowBound, simdAvailable } from "../../../algorithms/simd/row-dots.ts";

describe("int8 vectors", () => {
  it("quantises by hand", () => {
    // x = [0.5, -0.25, 1.0]: max 1.0 → scale 1/127; q = [round(63.5)=64, round(-31.75)=-32, 127]
    const q = quantizeInt8(new Float32Array([0.5, -0.25, 1.0]), 3);
    expect(Array.from(q.data)).toEqual([64, -32, 127]);
    expect(q.scales[0]).toBeCloseTo(1 / 127, 7);
    // dot with y = [1, 1, 1]: (64 − 32 + 127)/127 = 159/127
    expect(dotInt8(q, 0, [1, 1, 1])).toBeCloseTo(159 / 127, 6);
  });

  it("a zero vector stays zero", () => {
    const q = quantizeInt8(new Float32Array(4), 4);
    expect(dotInt8(q, 0, [1, 2, 3, 4])).toBe(0);
  });

  it("the dot-product error stays within the bound scale/2 · Σ|y|", () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }),
        (x, y) => {
          const q = quantizeInt8(Float32Array.from(x), 8);
          const exact = x.reduce((s, v, j) => s + Math.fround(v) * y[j]!, 0);
          const bound = (q.scales[0]! / 2) * y.reduce((s, v) => s + Math.abs(v), 0) + 1e-9;
          return Math.abs(dotInt8(q, 0, y) - exact) <= bound;
        },
      ),
    );
  });

  it("without SIMD, dotsInt8 gives dotInt8 bit for bit, for the ids asked, whatever the query's array type", () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }),
        (x, y) => {
          const q = quantizeInt8(Float32Array.from(x), 6, { simd: false }); // 5 vectors of d = 6 (a tail after the unrolled 4)
          expect(q.simd).toBeUndefined();
          const ids = Int32Array.from([4, 0, 2, 2]);
          const expected = Array.from(ids, (i) => dotInt8(q, i, y));
          expect(Array.from(dotsInt8(q, ids, y))).toEqual(expected);
          expect(Array.from(dotsInt8(q, ids, Float32Array.from(y)))).toEqual(
            Array.from(ids, (i) => dotInt8(q, i, Float32Array.from(y))),
          );
        },
      ),
    );
  });

  // The SIMD kernel sums in float32 (another order, another precision): within its stated bound of dotInt8.
  it.runIf(simdAvailable())(
    "with SIMD, dotsInt8 is within scale · (dotErrorFactor(d) · Σ|q_j y_j| + underflow) of dotInt8",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 70 }),
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 70, maxLength: 70 }),
          (d, n, seed, y0) => {
            const rng = mulberry32(seed);
            const x = Float32Array.from({ length: n * d }, () => rng() * 2 - 1);
            const y = y0.slice(0, d);
            const simd = quantizeInt8(x, d, { simd: true });
            const js = quantizeInt8(x, d, { simd: false });
            expect(simd.simd).toBeDefined();
            expect(Array.from(simd.data)).toEqual(Array.from(js.data));
            const ids = Int32Array.from({ length: 2 * n }, (_, k) => (k * 7) % n);
            const got = dotsInt8(simd, ids, y);
            const want = dotsInt8(js, ids, y);
            for (let k = 0; k < ids.length; k++) {
              const i = ids[k]!;
              let abs = 0;
              for (let j = 0; j < d; j++) abs += Math.abs(js.data[i * d + j]! * y[j]!);
              const bound = js.scales[i]! * (dotErrorFactor(d) * abs + dotUnderflowBound(d, 127));
              expect(Math.abs(got[k]! - want[k]!)).toBeLessThanOrEqual(bound);
            }
          },
        ),
      );
    },
  );

  it.runIf(simdAvailable())("with SIMD, a query not representable in float32 runs the JS loop (same values)", () => {
    const x = Float32Array.from({ length: 40 }, (_, i) => Math.sin(i));
    const y = Array.from({ length: 20 }, (_, j) => (j === 3 ? 1e300 : 0.5));
    const ids = [1, 0];
    expect(Array.from(dotsInt8(quantizeInt8(x, 20, { simd: true }), ids, y))).toEqual(
      Array.from(dotsInt8(quantizeInt8(x, 20, { simd: false }), ids, y)),
    );
  });

  it("property: appendInt8 equals quantizeInt8 over all rows (codes, scales), with or without SIMD", () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 0, maxLength: 30 }),
        fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 0, maxLength: 30 }),
        fc.boolean(),
        (a, b, simd) => {
          const d = 3;
          const x = Float32Array.from(a.slice(0, a.length - (a.length % d)));
          const y = Float32Array.from(b.slice(0, b.length - (b.length % d)));
          const all = new Float32Array(x.length + y.length);
          all.set(x);
          all.set(y, x.length);
          const whole = quantizeInt8(all, d, { simd });
          const grown = appendInt8(quantizeInt8(x, d, { simd }), y, { simd });
          expect(grown.n).toBe(whole.n);
          expect(Array.from(grown.data)).toEqual(Array.from(whole.data));
          expect(Array.from(grown.scales)).toEqual(Array.from(whole.scales));
        },
      ),
      { numRuns: 200 },
    );
  });
});
