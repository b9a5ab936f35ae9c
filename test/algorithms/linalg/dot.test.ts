import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dotAt, rowDot } from "../../../algorithms/linalg/dot.ts";

describe("dotAt", () => {
  it("hand-computed: row 1 of [[1,2,3,4,5],[6,7,8,9,10]] · [1,0,-1,2,0.5] = 6 − 8 + 18 + 5 = 21 (tail term included)", () => {
    const m = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(dotAt(m, 5, [1, 0, -1, 2, 0.5], 5)).toBe(21);
    expect(dotAt(Int8Array.from([-3, 2, 1]), 0, Float32Array.from([2, 2, 2]), 3)).toBe(0);
    expect(dotAt([], 0, [], 0)).toBe(0);
  });
  it("property: equals the naive sum for any length", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -100, max: 100 }), { maxLength: 40 }), (xs) => {
        const b = xs.map((x, j) => (x % 7) - j);
        const naive = xs.reduce((t, x, j) => t + x * b[j]!, 0);
        expect(dotAt(xs, 0, b, xs.length)).toBe(naive);
      }),
    );
  });
});

describe("rowDot", () => {
  it("hand-computed: row 1 of a 2×3 matrix · [1, 0, 2] = 4 + 12 = 16; a query of another length gives 0", () => {
    const m = Float32Array.from([1, 2, 3, 4, 5, 6]);
    expect(rowDot(m, 3, 1, [1, 0, 2])).toBe(16);
    expect(rowDot(m, 3, 0, [1, 1, 1])).toBe(6);
    expect(rowDot(m, 3, 1, [1, 0])).toBe(0);
  });
});
