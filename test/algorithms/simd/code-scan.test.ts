import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import {
  blockCodes,
  codeScan,
  listScan,
  nibbleTables,
  quantizedErrorBound,
  quantizeQuery,
} from "../../../algorithms/simd/code-scan.ts";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";

/** Σ_j r_j · (bit j of code ? +1 : −1) over the first 128·blocks bits of the code at `o` (the exact inner sum). */
function signDot(r: ArrayLike<number>, codes: Uint32Array, o: number, blocks: number): number {
  let s = 0;
  for (let j = 0; j < 128 * blocks; j++) s += ((codes[o + (j >> 5)]! >>> (j & 31)) & 1 ? 1 : -1) * r[j]!;
  return s;
}

/** The quantised query's u_j read back from its planes. */
function levels(q: ReturnType<typeof quantizeQuery>, j: number): number {
  let u = 0;
  for (let p = 0; p < 4; p++) u |= ((q.planes[(4 * (j >> 7) + p) * 4 + ((j >> 5) & 3)]! >>> (j & 31)) & 1) << p;
  return u;
}

describe("quantizeQuery (4 bit planes)", () => {
  it("by hand: r = [−2, 13, 3.4, −2 …] → lo = −2, Δ = 1, u = [0, 15, 5, 0 …] (15 in every plane, 5 = 0101 in planes 0 and 2)", () => {
    const r = new Float64Array(128).fill(-2);
    r[1] = 13;
    r[2] = 3.4;
    const q = quantizeQuery(r, 1);
    expect([q.lo, q.delta, q.sumU]).toEqual([-2, 1, 20]);
    expect(Array.from(q.planes)).toEqual([0b110, 0, 0, 0, 0b010, 0, 0, 0, 0b110, 0, 0, 0, 0b010, 0, 0, 0]);
    expect(quantizedErrorBound(q)).toBe(64);
  });

  it("a constant query has Δ = 0 and all levels 0", () => {
    const q = quantizeQuery(new Float64Array(256).fill(0.5), 2);
    expect([q.lo, q.delta, q.sumU]).toEqual([0.5, 0, 0]);
    expect(q.planes.every((w) => w === 0)).toBe(true);
  });

  it("property: every level is in [0, 15] and lo + Δ·u_j is within Δ/2 of r_j", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 4 }), (seed, blocks) => {
        const rng = mulberry32(seed);
        const r = Float64Array.from({ length: 128 * blocks }, () => (rng() - 0.3) * 3);
        const q = quantizeQuery(r, blocks);
        let sum = 0;
        for (let j = 0; j < r.length; j++) {
          const u = levels(q, j);
          sum += u;
          expect(Math.abs(q.lo + q.delta * u - r[j]!)).toBeLessThanOrEqual((q.delta / 2) * (1 + 1e-9));
        }
        expect(sum).toBe(q.sumU);
      }),
      { numRuns: 60 },
    );
  });
});

/**
 * The float32 rounding of the kernels' scale·(a·S + c) + b·(scale·P) over 128·blocks bits: eight roundings
 * (a, b, c and scaleP to float32, then a·S, + c, × scale, b·scaleP, +) of at most 2^-24 relative each, on terms no
 * larger than their absolute sum.
 */
function float32Slack(scale: number, q: ReturnType<typeof quantizeQuery>, S: number, P: number): number {
  const a = 2 * q.delta;
  const c = -q.delta * q.sumU - q.lo * 128 * q.blocks;
  return 10 * 2 ** -24 * (Math.abs(scale) * (Math.abs(a * S) + Math.abs(c)) + Math.abs(2 * q.lo * scale * P));
}

describe("blocked codes and nibble tables (FastScan layout)", () => {
  it("by hand: nibble g of vector t in the low half of byte 16g + t, of vector 16 + t in the high half; 33 vectors → 2 blocks", () => {
    const n = 33;
    const codes = new Uint32Array(n * 4);
    codes[0] = 0x21; // vector 0: nibble 0 = 1, nibble 1 = 2
    codes[16 * 4] = 0x3; // vector 16: nibble 0 = 3
    codes[5 * 4 + 3] = 0xf0000000; // vector 5: nibble 31 (bits 124..127) = 15
    codes[32 * 4 + 1] = 0x9; // vector 32 (block 1, t = 0): nibble 8 = 9
    const out = blockCodes(codes, 4, n);
    expect(out.length).toBe(1024);
    expect(out[0]).toBe(0x31);
    expect(out[16]).toBe(0x02);
    expect(out[16 * 31 + 5]).toBe(0x0f);
    expect(out[512 + 16 * 8]).toBe(0x09);
    expect(out.reduce((a: number, v: number) => a + (v !== 0 ? 1 : 0), 0)).toBe(4);
  });

  it("by hand, 256-bit codes: a block takes 1,024 bytes and nibble 32 (bits 128..131, word 4) sits at byte 512 + t", () => {
    const codes = new Uint32Array(2 * 8);
    codes[4] = 0x7; // vector 0, word 4: nibble 32 = 7
    codes[8 + 4] = 0x5; // vector 1, word 4: nibble 32 = 5
    const out = blockCodes(codes, 8, 2);
    expect(out.length).toBe(1024);
    expect([out[512], out[513]]).toEqual([7, 5]);
    expect(out.reduce((a: number, v: number) => a + (v !== 0 ? 1 : 0), 0)).toBe(2);
  });

  it("by hand: u = [0, 15, 5, 0, …] → table 0 = partial sums of (0, 15, 5, 0): c = 2 → 15, 4 → 5, 6 → 20, 15 → 20, 1 → 0; a two-block query fills 1,024 bytes", () => {
    const r = new Float64Array(256).fill(-2);
    r[1] = 13;
    r[2] = 3.4;
    r[129] = 13; // block 1, nibble 32, bit 1
    const lut = nibbleTables(quantizeQuery(r.subarray(0, 128), 1));
    expect([lut[2], lut[4], lut[6], lut[15], lut[1]]).toEqual([15, 5, 20, 20, 0]);
    expect(lut.subarray(16).every((v) => v === 0)).toBe(true);
    const two = nibbleTables(quantizeQuery(r, 2));
    expect(two.length).toBe(1024);
    expect([two[16 * 32 + 2], two[16 * 32 + 3], two[16 * 32 + 1]]).toEqual([15, 15, 0]);
    expect(() => nibbleTables(quantizeQuery(r, 2), new Uint8Array(512))).toThrow(/512 bytes for 2 blocks/);
  });
});

describe.runIf(simdAvailable())("codeScan (SIMD popcount kernel)", () => {
  it("by hand: bits 1 and 2 set, scale 2: S = 15 + 5 = 20, P = 2 → 2 · (1·(2·20 − 20) + (−2)·(2·2 − 128)) = 536 (exact 2 · 268.4)", () => {
    const r = new Float64Array(128).fill(-2);
    r[1] = 13;
    r[2] = 3.4;
    const codes = new Uint32Array([0b110, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff]);
    const scan = codeScan(codes, 4, new Float32Array([2, 0.5]))!;
    const q = quantizeQuery(r, 1);
    // all ones: S = U = 20, P = 128 → 0.5 · (20 − 2·128) = −118 (exact 0.5 · (Σ r) = 0.5 · (−250 + 16.4) = −116.8)
    expect(Array.from(scan.scanAll(q))).toEqual([536, -118]);
    expect(Array.from(scan.scanIds(q, [1, 0, 1], 3, new Float64Array(3)))).toEqual([-118, 536, -118]);
    expect(signDot(r, codes, 0, 1)).toBeCloseTo(268.4, 12);
  });

  it("property: within float32 rounding of scale_i · (Δ(2S − U) + lo(2P − D)) computed in JS, within scale_i · D·Δ/2 of the exact Σ r_j s_j; prefix and full codes; id lists give the same bits", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.constantFrom(1, 2, 4, 16),
        fc.integer({ min: 1, max: 40 }),
        (seed, blocks, n) => {
          const rng = mulberry32(seed);
          const words = 4 * blocks;
          const codes = Uint32Array.from({ length: n * words }, () => (rng() * 2 ** 32) >>> 0);
          if (n > 1) codes.fill(0xffffffff, 0, words); // extremes: all ones, all zeros
          if (n > 2) codes.fill(0, words, 2 * words);
          const scales = Float32Array.from({ length: n }, () => rng() * 2);
          const scan = codeScan(codes, words, scales)!;
          const r = Float64Array.from({ length: 128 * blocks }, () => (rng() - 0.4) * 2);
          for (const b of blocks === 1 ? [1] : [1, blocks]) {
            const q = quantizeQuery(r, b);
            const all = Float64Array.from(scan.scanAll(q));
            const ids = Array.from({ length: 2 * n }, (_, k) => (k * 7 + 3) % n);
            const listed = scan.scanIds(q, ids, ids.length, new Float64Array(ids.length));
            for (let i = 0; i < n; i++) {
              let S = 0;
              let P = 0;
              for (let j = 0; j < 128 * b; j++) {
                const bit = (codes[i * words + (j >> 5)]! >>> (j & 31)) & 1;
                S += bit * levels(q, j);
                P += bit;
              }
              const want = scales[i]! * (2 * q.delta * S + 2 * q.lo * P + (-q.delta * q.sumU - q.lo * 128 * b));
              const slack = float32Slack(scales[i]!, q, S, P);
              expect(Math.abs(all[i]! - want)).toBeLessThanOrEqual(slack);
              expect(Math.fround(all[i]!)).toBe(all[i]); // a float32 value
              const exact = scales[i]! * signDot(r, codes, i * words, b);
              expect(Math.abs(all[i]! - exact)).toBeLessThanOrEqual(
                scales[i]! * quantizedErrorBound(q) * (1 + 1e-9) + slack + 1e-12,
              );
            }
            // the row kernel (gathers by id) and the blocked kernel give the same bits
            for (let k = 0; k < ids.length; k++) expect(listed[k]).toBe(all[ids[k]!]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("property: above(q, cut) returns exactly the vectors scoring ≥ cut, ascending, with their scores; sampleBlocks(q, step) scores the sampled blocks as the full pass does; padding never appears; prefix and full codes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(1, 2),
        (seed, n, step, blocks) => {
          const rng = mulberry32(seed);
          const codes = Uint32Array.from({ length: n * 8 }, () => (rng() * 2 ** 32) >>> 0);
          const scales = Float32Array.from({ length: n }, () => rng());
          const scan = codeScan(codes, 8, scales)!;
          const q = quantizeQuery(
            Float64Array.from({ length: 128 * blocks }, () => rng() - 0.5),
            blocks,
          );
          const all = Float64Array.from(scan.scanAll(q));
          const sample = Float64Array.from(scan.sampleBlocks(q, step));
          for (let i = 0; i < n; i++) if ((i >> 5) % step === 0) expect(sample[i]).toBe(all[i]);
          const sortedScores = Array.from(all).sort((a, b) => a - b);
          for (const cut of [
            Number.NEGATIVE_INFINITY,
            sortedScores[Math.floor(n / 2)]!,
            sortedScores[n - 1]!,
            Number.POSITIVE_INFINITY,
          ]) {
            const hits = scan.above(q, cut);
            const want = Array.from(all.keys()).filter((i) => all[i]! >= cut);
            expect(Array.from(hits.ids.subarray(0, hits.count))).toEqual(want);
            expect(Array.from(hits.vals.subarray(0, hits.count))).toEqual(want.map((i) => all[i]!));
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("codes longer than 16 blocks (2048 bits) or not a multiple of 128 bits are refused (JS fallback)", () => {
    expect(codeScan(new Uint32Array(68), 68, new Float32Array(1))).toBeUndefined();
    expect(codeScan(new Uint32Array(2), 2, new Float32Array(1))).toBeUndefined();
  });

  it("property: listScan scores the vectors of the chosen block ranges of its order with the bits of codeScan, skips padding, and returns ids in scan order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 150 }),
        fc.integer({ min: 1, max: 6 }),
        (seed, n, lists) => {
          const rng = mulberry32(seed);
          const codes = Uint32Array.from({ length: n * 8 }, () => (rng() * 2 ** 32) >>> 0);
          const scales = Float32Array.from({ length: n }, () => rng());
          // a random list of each vector, lists padded to blocks of 32 (as the IVF layout)
          const listOf = Array.from({ length: n }, () => Math.floor(rng() * lists));
          const order: number[] = [];
          const firstBlock: number[] = [];
          for (let l = 0; l < lists; l++) {
            firstBlock.push(order.length / 32);
            for (let i = 0; i < n; i++) if (listOf[i] === l) order.push(i);
            while (order.length % 32 !== 0) order.push(-1);
          }
          firstBlock.push(order.length / 32);
          const ls = listScan(codes, 8, scales, Int32Array.from(order))!;
          const full = codeScan(codes, 8, scales)!;
          const q = quantizeQuery(
            Float64Array.from({ length: 256 }, () => rng() - 0.5),
            2,
          );
          const want = Float64Array.from(full.scanAll(q));
          const chosen = Array.from({ length: lists }, (_, l) => l).filter(() => rng() < 0.6);
          const ranges = Int32Array.from(chosen.flatMap((l) => [firstBlock[l]!, firstBlock[l + 1]!]));
          const hits = ls.scanRanges(q, ranges, chosen.length);
          const expectedIds = chosen.flatMap((l) =>
            order.slice(32 * firstBlock[l]!, 32 * firstBlock[l + 1]!).filter((id) => id >= 0),
          );
          expect(Array.from(hits.ids.subarray(0, hits.count))).toEqual(expectedIds);
          expect(Array.from(hits.vals.subarray(0, hits.count))).toEqual(expectedIds.map((id) => want[id]!));
        },
      ),
      { numRuns: 60 },
    );
  });
});
