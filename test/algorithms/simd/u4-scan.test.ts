import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";
import { laneOf, quantizeU4Query, u4DotJs, u4Scan } from "../../../algorithms/simd/u4-scan.ts";

describe("quantizeU4Query", () => {
  it("by hand: r = [32767, −1, 0.4, …0] → step 1, k = [32767, −1, 0, …], K = 32766, bound 3.75·32", () => {
    const r = new Float64Array(32);
    r[0] = 32767;
    r[1] = -1;
    r[2] = 0.4;
    const q = quantizeU4Query(r, 32);
    expect([q.step, q.sum, q.errorBound]).toEqual([1, 32766, 120]);
    // lanes: coordinate 0 → lane 0, coordinate 1 (odd, byte 0) → lane 16, coordinate 2 (even, byte 1) → lane 1
    expect([q.lanes[0], q.lanes[16], q.lanes[1]]).toEqual([32767, -1, 0]);
  });

  it("laneOf is a permutation of every block of 32 coordinates", () => {
    const lanes = Array.from({ length: 64 }, (_, j) => laneOf(j));
    expect([...lanes].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, j) => j));
    expect(lanes.slice(0, 4)).toEqual([0, 16, 1, 17]);
    expect(lanes[31]).toBe(31);
  });

  it("rejects a length that is not a positive multiple of 32", () => {
    expect(() => quantizeU4Query(new Float64Array(48), 48)).toThrow(RangeError);
  });

  it("property: |Σ_j r_j (c_j − 7.5) − step·(S − 7.5·K)| ≤ errorBound for any codes", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 64, maxLength: 64 }),
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 32, maxLength: 32 }),
        (r, bytes) => {
          const q = quantizeU4Query(r, 64);
          const codes = Uint8Array.from(bytes);
          let exact = 0;
          for (let j = 0; j < 64; j++) exact += r[j]! * (((codes[j >> 1]! >> (4 * (j & 1))) & 15) - 7.5);
          const approx = q.step * (u4DotJs(codes, 0, 64, q) - 7.5 * q.sum);
          expect(Math.abs(approx - exact)).toBeLessThanOrEqual(q.errorBound * (1 + 1e-9) + 1e-12);
        },
      ),
      { numRuns: 200, seed: 1 },
    );
  });
});

describe.runIf(simdAvailable())("u4Scan (WebAssembly SIMD)", () => {
  it("property: the kernel's sums equal the JS reference, over several ranges in order", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(32, 64, 512),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (D, positions, seed) => {
          const scan = u4Scan(positions, D)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x;
          };
          for (let i = 0; i < scan.codes.length; i++) scan.codes[i] = next() & 255;
          const r = Float64Array.from({ length: D }, () => (next() / 2 ** 32) * 2 - 1);
          const q = quantizeU4Query(r, D);
          const a = Math.floor(positions / 3);
          const ranges = Int32Array.from([a, positions, 0, a]);
          const { sums, count } = scan.scanRanges(q, ranges, 2);
          expect(count).toBe(positions);
          const expected = [
            ...Array.from({ length: positions - a }, (_, t) => a + t),
            ...Array.from({ length: a }, (_, t) => t),
          ].map((p) => u4DotJs(scan.codes, p * (D >> 1), D, q));
          expect(Array.from(sums.subarray(0, count))).toEqual(expected);
        },
      ),
      { numRuns: 60, seed: 2 },
    );
  });

  it("extreme values stay exact: every nibble 15 against every lane ±32767", () => {
    const D = 512;
    const scan = u4Scan(1, D)!;
    scan.codes.fill(255);
    const q = quantizeU4Query(new Float64Array(D).fill(-3), D);
    expect(scan.scanRanges(q, Int32Array.from([0, 1]), 1).sums[0]).toBe(-15 * 32767 * D);
  });

  it("rejects ranges outside the codes", () => {
    const scan = u4Scan(4, 32)!;
    const q = quantizeU4Query(new Float64Array(32), 32);
    expect(() => scan.scanRanges(q, Int32Array.from([2, 5]), 1)).toThrow(RangeError);
  });
});

describe.skipIf(!simdAvailable())("u4Scan.scanIds (the gather kernel scan_u4_ids)", () => {
  it("by hand: codes all 1 and all 2 nibbles, query lanes all 3 → S = 3·32 and 6·32, in the order of the ids", () => {
    const k = u4Scan(3, 32)!;
    k.codes.fill(0x11, 0, 16);
    k.codes.fill(0x22, 16, 32);
    k.setQuery(new Int16Array(32).fill(3));
    k.ids[0] = 1;
    k.ids[1] = 0;
    k.ids[2] = 1;
    expect(Array.from(k.scanIds(3).subarray(0, 3))).toEqual([192, 96, 192]);
  });

  it("property: S of any ids (repeats allowed) equals u4DotJs", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 40 * 64, maxLength: 40 * 64 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 128, maxLength: 128 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
        (n, bytes, r, picks) => {
          const k = u4Scan(n, 128)!;
          k.codes.set(bytes.slice(0, n * 64));
          const q = quantizeU4Query(r, 128);
          k.setQuery(q);
          const ids = picks.map((p) => p % n);
          k.ids.set(ids.slice(0, n));
          const count = Math.min(ids.length, n);
          const sums = k.scanIds(count);
          for (let t = 0; t < count; t++) expect(sums[t]).toBe(u4DotJs(k.codes, ids[t]! * 64, 128, q));
        },
      ),
      { numRuns: 50 },
    );
  });
});
