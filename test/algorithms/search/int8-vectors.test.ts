import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dotInt8, dotsInt8, quantizeInt8 } from "../../../algorithms/search/int8-vectors.ts";

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
      fc.property(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }), fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }), (x, y) => {
        const q = quantizeInt8(Float32Array.from(x), 8);
        const exact = x.reduce((s, v, j) => s + Math.fround(v) * y[j]!, 0);
        const bound = (q.scales[0]! / 2) * y.reduce((s, v) => s + Math.abs(v), 0) + 1e-9;
        return Math.abs(dotInt8(q, 0, y) - exact) <= bound;
      }),
    );
  });

  it("dotsInt8 gives dotInt8 bit for bit, for the ids asked, whatever the query's array type", () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 30, maxLength: 30 }), fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 6, maxLength: 6 }), (x, y) => {
        const q = quantizeInt8(Float32Array.from(x), 6); // 5 vectors of d = 6 (a tail after the unrolled 4)
        const ids = Int32Array.from([4, 0, 2, 2]);
        const expected = Array.from(ids, (i) => dotInt8(q, i, y));
        expect(Array.from(dotsInt8(q, ids, y))).toEqual(expected);
        expect(Array.from(dotsInt8(q, ids, Float32Array.from(y)))).toEqual(Array.from(ids, (i) => dotInt8(q, i, Float32Array.from(y))));
      }),
    );
  });
});
