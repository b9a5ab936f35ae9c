/**
 * The graph stage's kernels (kernels.wat beam_u4, its build search from u4_lanes, dots_u4u4 and select_u4, through
 * u4GraphScan) against their JS
 * references: the beam search and the neighbour selection of algorithms/vector/graph.ts (beamSearch,
 * selectNeighbours) and Σ_j c_aj · c_bj written here.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { simdAvailable } from "../../../algorithms/simd/row-dots.ts";
import { u4GraphScan } from "../../../algorithms/simd/u4-scan.ts";
import type { GraphStage } from "../../../algorithms/vector/index-types.ts";
import { beamSearch, codeNorms, meanBias, selectNeighbours } from "../../../algorithms/vector/graph.ts";

function pairJs(codes: Uint8Array, a: number, b: number, bytes: number): number {
  let s = 0;
  for (let t = 0; t < bytes; t++) {
    const x = codes[a * bytes + t]!;
    const y = codes[b * bytes + t]!;
    s += (x & 15) * (y & 15) + (x >> 4) * (y >> 4);
  }
  return s;
}

describe.skipIf(!simdAvailable())("graph stage kernels", () => {
  it("dots_u4u4 by hand: all-15 against all-15 and all-1 codes, D = 32 → 225·32 and 15·32", () => {
    const k = u4GraphScan(3, 32, 2, 1)!;
    k.codes.fill(0xff, 0, 16);
    k.codes.fill(0xff, 16, 32);
    k.codes.fill(0x11, 32, 48);
    k.ids.set([1, 2, 0]);
    expect(Array.from(k.graph.pairDots(0, 3).subarray(0, 3))).toEqual([7200, 480, 7200]);
  });

  it("property: dots_u4u4 equals the JS sum for any codes and ids", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (blocks, n, seed) => {
          const D = 32 * blocks;
          const k = u4GraphScan(n, D, 4, 1)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          const a = next() % n;
          const count = 1 + (next() % n);
          const ids = Array.from({ length: count }, () => next() % n);
          k.ids.set(ids);
          const got = Array.from(k.graph.pairDots(a, count).subarray(0, count));
          expect(got).toEqual(ids.map((b) => pairJs(k.codes, a, b, D >> 1)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("property: beam_u4 returns the JS beam search's pool bit for bit (ids, estimates, size)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 48 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (n, degree, entryCount, beam, seed, bar) => {
          const D = 64;
          const k = u4GraphScan(n, D, degree, entryCount)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          for (let i = 0; i < n; i++) {
            // a random number of neighbours (possibly repeated, possibly none), −1 after them
            const m = next() % (degree + 1);
            for (let t = 0; t < degree; t++) k.graph.neighbors[i * degree + t] = t < m ? next() % n : -1;
            k.graph.scales[i] = (next() % 1000) / 997 + 0.01;
          }
          for (let e = 0; e < entryCount; e++) k.graph.entries[e] = next() % n;
          const lanes = new Int16Array(D);
          for (let j = 0; j < D; j++) lanes[j] = (next() % 65535) - 32767;
          k.setQuery(lanes);
          const step = 1 / ((next() % 5000) + 1);
          const offset = (next() % 100000) - 50000;
          const barred = bar ? next() % n : -1;
          const got = k.graph.beam(step, offset, beam, barred);
          const size = got.size;
          const ids = Array.from(got.ids.subarray(0, size));
          const est = Array.from(got.est.subarray(0, size));
          const stage = {
            degree,
            neighbors: k.graph.neighbors,
            entries: k.graph.entries,
            codes: k.codes,
            scales: k.graph.scales,
            residuals: new Float32Array(n),
            beam,
          } satisfies GraphStage;
          const want = beamSearch(stage, k, step, offset, beam, barred);
          expect(size).toBe(want.size);
          expect(ids).toEqual(Array.from(want.ids.subarray(0, want.size)));
          expect(est).toEqual(Array.from(want.est.subarray(0, want.size)));
          if (barred >= 0) expect(ids).not.toContain(barred);
        },
      ),
      { numRuns: 80 },
    );
  });

  it("property: beam_u4 on compact rows (the serving layout) returns the JS beam search's pool bit for bit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 48 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (n, degree, entryCount, beam, seed, bar) => {
          const D = 64;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          // rows of 0 .. degree neighbours (possibly repeated), laid end to end
          const rows = Array.from({ length: n }, () => Array.from({ length: next() % (degree + 1) }, () => next() % n));
          const edges = rows.reduce((a, r) => a + r.length, 0);
          const k = u4GraphScan(n, D, degree, entryCount, edges)!;
          expect(k.graph.selectRoom).toBe(0);
          expect(k.ids.length).toBe(Math.max(degree, entryCount));
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          const offsets = k.graph.offsets!;
          let e = 0;
          for (let i = 0; i < n; i++) {
            offsets[i] = e;
            for (const v of rows[i]!) {
              // 3-byte little-endian ids
              k.graph.neighbors[3 * e] = v & 255;
              k.graph.neighbors[3 * e + 1] = (v >> 8) & 255;
              k.graph.neighbors[3 * e++ + 2] = v >> 16;
            }
            k.graph.scales[i] = (next() % 1000) / 997 + 0.01;
          }
          offsets[n] = e;
          for (let t = 0; t < entryCount; t++) k.graph.entries[t] = next() % n;
          const lanes = new Int16Array(D);
          for (let j = 0; j < D; j++) lanes[j] = (next() % 65535) - 32767;
          k.setQuery(lanes);
          const step = 1 / ((next() % 5000) + 1);
          const offset = (next() % 100000) - 50000;
          const barred = bar ? next() % n : -1;
          const got = k.graph.beam(step, offset, beam, barred);
          const ids = Array.from(got.ids.subarray(0, got.size));
          const est = Array.from(got.est.subarray(0, got.size));
          const stage = {
            degree,
            neighbors: k.graph.neighbors,
            offsets,
            entries: k.graph.entries,
            codes: k.codes,
            scales: k.graph.scales,
            residuals: new Float32Array(n),
            beam,
          } satisfies GraphStage;
          const want = beamSearch(stage, k, step, offset, beam, barred);
          expect(got.size).toBe(want.size);
          expect(ids).toEqual(Array.from(want.ids.subarray(0, want.size)));
          expect(est).toEqual(Array.from(want.est.subarray(0, want.size)));
        },
      ),
      { numRuns: 80 },
    );
  });

  it("compact rows by hand: a 3-byte id above 2^16 is followed from the entry point", () => {
    const n = 2 ** 16 + 10;
    const far = 2 ** 16 + 4; // bytes 0x04 0x00 0x01
    const k = u4GraphScan(n, 32, 2, 1, 2)!;
    const o = k.graph.offsets!;
    // row 0: far, 3; every other row empty
    k.graph.neighbors.set([far & 255, (far >> 8) & 255, far >> 16, 3, 0, 0]);
    o.fill(2);
    o[0] = 0;
    k.graph.entries[0] = 0;
    k.graph.scales.fill(1);
    k.codes.fill(0x11, far * 16, far * 16 + 16); // far's code is all 1, the others all 0
    k.setQuery(new Int16Array(32).fill(1));
    const got = k.graph.beam(1, 0, 4, -1);
    expect(Array.from(got.ids.subarray(0, got.size))).toEqual([far, 0, 3]);
    expect(Array.from(got.est.subarray(0, got.size))).toEqual([32, 0, 0]);
  });

  it("select_u4 by hand: the nearest candidate first, a candidate nearer to a kept one than to p dropped", () => {
    // D = 32, all scales 1: y_i = c_i − 7.5 per coordinate; p = 0 (all 7: y = −0.5), 1 (all 8: y = 0.5, ‖y_1 − y_0‖² = 32),
    // 2 (all 10: y = 2.5, ‖y_2 − y_0‖² = 288, ‖y_2 − y_1‖² = 128 < 288: dominated by 1), 3 (all 4: y = −3.5,
    // ‖y_3 − y_0‖² = 288, ‖y_3 − y_1‖² = 512: kept)
    const k = u4GraphScan(4, 32, 3, 1)!;
    k.codes.fill(0x77, 0, 16);
    k.codes.fill(0x88, 16, 32);
    k.codes.fill(0xaa, 32, 48);
    k.codes.fill(0x44, 48, 64);
    k.graph.scales.fill(1);
    codeNorms(k.codes, k.graph.scales, 4, 32, k.graph.norms, k.graph.sums);
    k.ids.set([3, 2, 1]);
    expect(Array.from(k.graph.select(0, 3, 3))).toEqual([1, 3]);
    expect(Array.from(k.ids.subarray(0, 3))).toEqual([1, 2, 3]);
    k.ids.set([3, 2, 1]);
    expect(Array.from(k.graph.select(0, 3, 1))).toEqual([1]);
  });

  it("property: select_u4 returns the JS selection bit for bit (sorted candidates and kept ids)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 2, max: 60 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.boolean(),
        (blocks, n, limit, seed, coarse) => {
          const D = 32 * blocks;
          const k = u4GraphScan(n, D, 4, 1)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          // coarse: three distinct codes and unit scales, so that equal distances (the id tie-break) occur
          const bytes = D >> 1;
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          if (coarse)
            for (let i = 3; i < n; i++) {
              const j = next() % 3;
              k.codes.copyWithin(i * bytes, j * bytes, (j + 1) * bytes);
            }
          for (let i = 0; i < n; i++) k.graph.scales[i] = coarse ? 1 : (next() % 1000) / 997 + 0.01;
          codeNorms(k.codes, k.graph.scales, n, D, k.graph.norms, k.graph.sums);
          const p = next() % n;
          const count = Math.min(k.graph.selectRoom, 1 + (next() % n));
          // distinct candidates other than p (as the build offers them)
          const pool = Array.from({ length: n }, (_, i) => i).filter((i) => i !== p);
          for (let i = pool.length - 1; i > 0; i--) {
            const j = next() % (i + 1);
            [pool[i], pool[j]] = [pool[j]!, pool[i]!];
          }
          const cand = pool.slice(0, Math.min(count, pool.length));
          k.ids.set(cand);
          const got = Array.from(k.graph.select(p, cand.length, limit));
          const sorted = Array.from(k.ids.subarray(0, cand.length));
          const want = selectNeighbours(k.codes, k.graph.scales, k.graph.norms, k.graph.sums, D, p, cand, limit);
          expect(sorted).toEqual(Array.from(want.sorted));
          expect(got).toEqual(Array.from(want.kept));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("u4_lanes by hand: a's code as the query gives P_ab (all-1 against all-1, all-2, all-15; D = 32)", () => {
    const k = u4GraphScan(3, 32, 2, 1)!;
    k.codes.fill(0x11, 0, 16);
    k.codes.fill(0x22, 16, 32);
    k.codes.fill(0xff, 32, 48);
    k.graph.anchorQuery(0);
    k.ids.set([0, 1, 2]);
    expect(Array.from(k.scanIds(3).subarray(0, 3))).toEqual([32, 64, 480]);
  });

  it("property: after anchorQuery(a), scan_u4_ids returns P_ab = Σ_j c_aj · c_bj for any codes and ids", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 50 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (blocks, n, seed) => {
          const D = 32 * blocks;
          const k = u4GraphScan(n, D, 4, 1)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          const a = next() % n;
          const count = 1 + (next() % n);
          const ids = Array.from({ length: count }, () => next() % n);
          k.graph.anchorQuery(a);
          k.ids.set(ids);
          expect(Array.from(k.scanIds(count).subarray(0, count))).toEqual(
            ids.map((b) => pairJs(k.codes, a, b, D >> 1)),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("meanBias by hand: Rμ = 0.5 everywhere, codes all 8 and all 7 → ±0.5 · 0.5 · 32 = ±8", () => {
    const codes = new Uint8Array(32);
    codes.fill(0x88, 0, 16);
    codes.fill(0x77, 16, 32);
    expect(Array.from(meanBias(codes, new Float64Array(32).fill(0.5), 2, 32))).toEqual([8, -8]);
  });

  it("property: the build search (beam_u4 with an anchor) returns the JS beam search's pool bit for bit", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 120 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 48 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (n, degree, entryCount, beam, seed) => {
          const D = 64;
          const k = u4GraphScan(n, D, degree, entryCount)!;
          let x = seed;
          const next = () => {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            return x >>> 8;
          };
          for (let t = 0; t < k.codes.length; t++) k.codes[t] = next() & 255;
          for (let i = 0; i < n; i++) {
            const m = next() % (degree + 1);
            for (let t = 0; t < degree; t++) k.graph.neighbors[i * degree + t] = t < m ? next() % n : -1;
            k.graph.scales[i] = (next() % 1000) / 997 + 0.01;
          }
          for (let e = 0; e < entryCount; e++) k.graph.entries[e] = next() % n;
          const mean = Float64Array.from({ length: D }, () => ((next() % 2001) - 1000) / 1000);
          codeNorms(k.codes, k.graph.scales, n, D, k.graph.norms, k.graph.sums);
          meanBias(k.codes, mean, n, D, k.graph.bias);
          const a = next() % n;
          k.graph.anchorQuery(a);
          const got = k.graph.beam(1, 0, beam, a, a);
          const ids = Array.from(got.ids.subarray(0, got.size));
          const est = Array.from(got.est.subarray(0, got.size));
          const stage = {
            degree,
            neighbors: k.graph.neighbors,
            entries: k.graph.entries,
            codes: k.codes,
            scales: k.graph.scales,
            residuals: new Float32Array(n),
            beam,
          } satisfies GraphStage;
          const want = beamSearch(stage, k, 1, 0, beam, a, {
            a,
            sums: k.graph.sums,
            bias: k.graph.bias,
            half: 56.25 * D,
          });
          expect(got.size).toBe(want.size);
          expect(ids).toEqual(Array.from(want.ids.subarray(0, want.size)));
          expect(est).toEqual(Array.from(want.est.subarray(0, want.size)));
          expect(ids).not.toContain(a);
          // the estimate is ⟨ŷ_a + Rμ, ŷ_v⟩ of the decoded codes (float64 sums, so up to rounding)
          const bytes = D >> 1;
          const dec = (i: number, j: number) => {
            const v = k.codes[i * bytes + (j >> 1)]!;
            return k.graph.scales[i]! * ((j & 1 ? v >> 4 : v & 15) - 7.5);
          };
          for (let t = 0; t < Math.min(3, got.size); t++) {
            let ip = 0;
            for (let j = 0; j < D; j++) ip += (dec(a, j) + mean[j]!) * dec(ids[t]!, j);
            expect(est[t]!).toBeCloseTo(ip, 6);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("rejects an anchor outside the build layout", () => {
    const k = u4GraphScan(4, 32, 2, 1)!;
    expect(() => k.graph.beam(1, 0, 2, -1, 4)).toThrow(/anchor/);
  });

  it("rejects a beam that is not a positive integer", () => {
    const k = u4GraphScan(4, 32, 2, 1)!;
    expect(() => k.graph.beam(1, 0, 0, -1)).toThrow(/beam/);
  });
});
