/**
 * WebAssembly SIMD scan of 1-bit sign codes against a 4-bit quantised query (RaBitQ's query quantisation:
 * Gao & Long, "RaBitQ", SIGMOD 2024, §3.3), the kernel `scan_codes` of kernels.wat.
 *
 * A code b ∈ {0,1}^D stands for the signs s_j = 2b_j − 1; the JS scan computes Σ_j r_j · s_j for the rotated
 * query r through byte tables. Here r is quantised to B = 4 unsigned bit planes: with lo = min_j r_j,
 * Δ = (max_j r_j − lo) / 15 and u_j = round((r_j − lo) / Δ) ∈ [0, 15], r_j = lo + Δ·u_j + e_j with |e_j| ≤ Δ/2, so
 *
 *   Σ_j r_j s_j = Σ_j (lo + Δ u_j)(2b_j − 1) + Σ_j e_j s_j
 *               = Δ·(2·S − U) + lo·(2·P − D) + E,        S = Σ_j u_j b_j,  U = Σ_j u_j,  P = popcount(b),
 *
 * with |E| ≤ D·Δ/2 (worst case: every e_j at ±Δ/2 with the sign of s_j; for independent rounding errors it is
 * about Δ·√(D/12)). S = Σ_{p<4} 2^p · popcount(plane_p AND b) is computed exactly in integers (v128.and,
 * i8x16.popcnt, widening pairwise adds); the kernel returns scale_i · (a·S + b·P + c) in float64 with a = 2Δ,
 * b = 2·lo, c = −Δ·U − lo·D. So for vector i the SIMD score differs from the JS table score by at most
 *
 *   scale_i · D · Δ / 2      (+ float64 rounding, ~1e-15 relative),
 *
 * `quantizedErrorBound(q)` = D·Δ/2. D is the number of code bits scanned (128 for the prefix stage), and lo, Δ
 * are taken over those coordinates only.
 *
 * 128-bit prefixes are scanned by a second kernel, `scan_blocked`, FastScan-style (André, Kermarrec & Le
 * Scouarnec, VLDB 2015; Faiss IndexPQFastScan): the prefixes of 32 vectors are transposed into one 512-byte
 * block (`blockPrefixes`), and per group g of 4 code bits a 16-entry table of Σ_{bit t of c} u_{4g+t}
 * (`nibbleTables`, ≤ 60, one byte) is looked up for 16 vectors at once with i8x16.swizzle. It computes the same
 * integer S, then the score in float32 (six roundings, ≤ 8·2⁻²⁴ of the terms' magnitude more), and can keep
 * the vectors at or above a cut inside the kernel (`prefixAbove`), so JS never loops over n scores.
 */
import { align, CHUNK, kernelInstance } from "./row-dots.ts";

/** Bit planes of the query. */
export const QUERY_BITS = 4;
const LEVELS = (1 << QUERY_BITS) - 1;
/** Most 128-bit blocks a code may have (the kernel's integer sums are exact up to 31). */
export const MAX_SCAN_BLOCKS = 16;

export interface QuantizedQuery {
  /** 128-bit blocks (D / 128). */
  readonly blocks: number;
  /** blocks × 4 planes × 4 words: word w of plane p of block k at (4k + p)·4 + w; bit t = coordinate 128k + 32w + t. */
  readonly planes: Uint32Array;
  readonly lo: number;
  readonly delta: number;
  /** Σ_j u_j. */
  readonly sumU: number;
}

/** Quantises r[0 .. 128·blocks) to 4 bit planes (see the header). r must be finite. */
export function quantizeQuery(r: ArrayLike<number>, blocks: number): QuantizedQuery {
  const D = 128 * blocks;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < D; j++) {
    const v = r[j]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const delta = hi > lo ? (hi - lo) / LEVELS : 0;
  const planes = new Uint32Array(blocks * 16);
  let sumU = 0;
  for (let j = 0; j < D; j++) {
    let u = delta > 0 ? Math.round((r[j]! - lo) / delta) : 0;
    if (u > LEVELS) u = LEVELS;
    sumU += u;
    const k = j >> 7;
    const w = (j >> 5) & 3;
    const bit = 1 << (j & 31);
    for (let p = 0; p < QUERY_BITS; p++) if ((u >> p) & 1) planes[(4 * k + p) * 4 + w]! |= bit;
  }
  return { blocks, planes, lo, delta, sumU };
}

/** Worst-case |SIMD − exact| of Σ_j r_j s_j before the scale: D·Δ/2 (see the header). */
export function quantizedErrorBound(q: QuantizedQuery): number {
  return (128 * q.blocks * q.delta) / 2;
}

export interface CodeScan {
  readonly n: number;
  /** Size of the kernel's memory (the copies and buffers). */
  readonly bytes: number;
  /**
   * Scores of all n vectors on their first q.blocks·128 bits, read from `prefix` when it has exactly that
   * many words a vector, else from the full codes. The result is a view into the kernel's memory, valid until
   * the next call.
   */
  scanAll(q: QuantizedQuery): Float64Array;
  /** Scores of the given vectors on their first q.blocks·128 code bits (full codes); out[k] for ids[k]. */
  scanIds(q: QuantizedQuery, ids: ArrayLike<number>, count: number, out: Float64Array): Float64Array;
  /** Whether the prefixes are held in the blocked layout of `prefixSample` / `prefixAbove` (128-bit prefixes). */
  readonly blockedPrefix: boolean;
  /**
   * Blocked-prefix scores (float32) of the vectors of blocks 0, step, 2·step, … (32 vectors a block: vector i is
   * in block ⌊i/32⌋); entries of other blocks are stale. A view into the kernel's memory, valid until the next call.
   * q must have one block (128 bits).
   */
  prefixSample(q: QuantizedQuery, step: number): Float32Array;
  /**
   * The vectors whose blocked-prefix score is ≥ cut, ascending: ids[0 .. count) and their scores vals[0 .. count)
   * (views into the kernel's memory, valid until the next call). Also leaves every score in `prefixSample(q, 1)`'s
   * array.
   */
  prefixAbove(q: QuantizedQuery, cut: number): { ids: Int32Array; vals: Float32Array; count: number; scores: Float32Array };
}

/** Vectors per block of the blocked prefix layout. */
export const PREFIX_BLOCK = 32;

/**
 * The 128-bit prefixes (4 words a vector, n vectors) in the blocked layout of the kernel `scan_blocked`: byte
 * 512B + 16g + t holds nibble g (bits 4g .. 4g + 3) of vector 32B + t in its low half and of vector 32B + 16 + t
 * in its high half; vectors past n are zero.
 */
export function blockPrefixes(prefix: Uint32Array, n: number): Uint8Array {
  const blocks = Math.ceil(n / PREFIX_BLOCK);
  const out = new Uint8Array(blocks * 512);
  for (let i = 0; i < n; i++) {
    const at = (i >> 5) * 512 + (i & 15);
    const high = (i & 16) !== 0;
    for (let g = 0; g < 32; g++) {
      const nib = (prefix[i * 4 + (g >> 3)]! >>> ((g & 7) * 4)) & 15;
      out[at + 16 * g]! |= high ? nib << 4 : nib;
    }
  }
  return out;
}

/** lut[16g + c] = Σ_{bit t of c} u_{4g+t} for the 4-bit query u of a one-block (128-bit) quantised query. */
export function nibbleTables(q: QuantizedQuery, out: Uint8Array = new Uint8Array(512)): Uint8Array {
  if (q.blocks !== 1) throw new RangeError(`code-scan: nibble tables need a one-block query, got ${q.blocks}`);
  for (let g = 0; g < 32; g++) {
    const u = [0, 0, 0, 0];
    for (let t = 0; t < 4; t++) {
      const j = 4 * g + t;
      for (let p = 0; p < QUERY_BITS; p++) if ((q.planes[p * 4 + (j >> 5)]! >>> (j & 31)) & 1) u[t]! += 1 << p;
    }
    for (let c = 0; c < 16; c++) out[16 * g + c] = (c & 1 ? u[0]! : 0) + (c & 2 ? u[1]! : 0) + (c & 4 ? u[2]! : 0) + (c & 8 ? u[3]! : 0);
  }
  return out;
}

/**
 * A kernel over copies of n codes of `words` 32-bit words, optional contiguous prefixes of `prefixWords`
 * words, and the scales; undefined when SIMD or the memory is unavailable or the codes are too long.
 */
export function codeScan(codes: Uint32Array, words: number, scales: Float32Array, prefix?: Uint32Array, prefixWords = 0): CodeScan | undefined {
  const n = scales.length;
  if (words % 4 !== 0 || words / 4 > MAX_SCAN_BLOCKS || codes.length !== n * words) return undefined;
  // 128-bit prefixes are kept in the blocked layout of scan_blocked only (not row by row as well).
  const blocked = prefix !== undefined && prefixWords === 4 && prefix.length === n * 4 && n > 0;
  const nBlocks = blocked ? Math.ceil(n / PREFIX_BLOCK) : 0;
  const padded = nBlocks * PREFIX_BLOCK;
  const codesAt = 0;
  const blockedAt = align(4 * n * words);
  const scalesAt = blockedAt + align(512 * nBlocks);
  const paddedScalesAt = scalesAt + align(4 * n);
  const scalePAt = paddedScalesAt + align(4 * padded);
  const lutAt = scalePAt + align(4 * padded);
  const tmpAt = lutAt + 512;
  const blockScoresAt = tmpAt + 64;
  const hitIdsAt = blockScoresAt + align(4 * padded);
  const hitValsAt = hitIdsAt + align(4 * n);
  const planesAt = hitValsAt + align(blocked ? 4 * n : 0);
  const idsAt = planesAt + 64 * MAX_SCAN_BLOCKS;
  const outAt = idsAt + 4 * CHUNK;
  const at = kernelInstance(outAt + 8 * Math.max(n, CHUNK));
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  new Uint32Array(buffer, codesAt, n * words).set(codes);
  new Float32Array(buffer, scalesAt, n).set(scales);
  if (blocked) {
    new Uint8Array(buffer, blockedAt, 512 * nBlocks).set(blockPrefixes(prefix, n));
    new Float32Array(buffer, paddedScalesAt, n).set(scales);
    const scaleP = new Float32Array(buffer, scalePAt, n);
    for (let i = 0; i < n; i++) {
      let pop = 0;
      for (let w = 0; w < 4; w++) pop += popcount32(prefix[i * 4 + w]!);
      scaleP[i] = scales[i]! * pop;
    }
  }
  const planes = new Uint32Array(buffer, planesAt, 16 * MAX_SCAN_BLOCKS);
  const idView = new Int32Array(buffer, idsAt, CHUNK);
  const outView = new Float64Array(buffer, outAt, Math.max(n, CHUNK));
  const lut = new Uint8Array(buffer, lutAt, 512);
  const blockScores = new Float32Array(buffer, blockScoresAt, padded);
  const hitIds = new Int32Array(buffer, hitIdsAt, blocked ? n : 0);
  const hitVals = new Float32Array(buffer, hitValsAt, blocked ? n : 0);
  const kernel = at.exports.scan_codes!;
  const blockKernel = at.exports.scan_blocked as unknown as (...args: number[]) => number;
  const coefficients = (q: QuantizedQuery) => {
    if (q.blocks < 1 || q.blocks > words / 4) throw new RangeError(`code-scan: ${q.blocks} blocks, codes have ${words / 4}`);
    planes.set(q.planes);
    return [2 * q.delta, 2 * q.lo, -q.delta * q.sumU - q.lo * 128 * q.blocks] as const;
  };
  const runBlocked = (q: QuantizedQuery, step: number, cut: number, collect: boolean): number => {
    if (!blocked) throw new RangeError("code-scan: no blocked prefixes (they need 4 prefix words a vector)");
    if (!(Number.isInteger(step) && step >= 1)) throw new RangeError(`code-scan: step must be an integer ≥ 1, got ${step}`);
    nibbleTables(q, lut);
    const [a, b, c] = [2 * q.delta, 2 * q.lo, -q.delta * q.sumU - q.lo * 128];
    return blockKernel(blockedAt, lutAt, paddedScalesAt, scalePAt, a, b, c, 0, step, nBlocks, n, tmpAt, blockScoresAt, cut, collect ? hitIdsAt : -1, hitValsAt);
  };
  return {
    n,
    bytes: buffer.byteLength,
    blockedPrefix: blocked,
    scanAll(q) {
      if (blocked && q.blocks === 1) {
        runBlocked(q, 1, 0, false);
        for (let i = 0; i < n; i++) outView[i] = blockScores[i]!;
        return outView.subarray(0, n);
      }
      const [a, b, c] = coefficients(q);
      kernel(codesAt, 4 * words, q.blocks, -1, n, planesAt, scalesAt, a, b, c, outAt, tmpAt);
      return outView.subarray(0, n);
    },
    scanIds(q, ids, count, out) {
      const [a, b, c] = coefficients(q);
      for (let start = 0; start < count; start += CHUNK) {
        const m = Math.min(CHUNK, count - start);
        for (let k = 0; k < m; k++) {
          const id = ids[start + k]!;
          if (!(id >= 0 && id < n && Number.isInteger(id))) throw new RangeError(`code-scan: id ${id} is not in [0, ${n})`);
          idView[k] = id;
        }
        kernel(codesAt, 4 * words, q.blocks, idsAt, m, planesAt, scalesAt, a, b, c, outAt, tmpAt);
        out.set(outView.subarray(0, m), start);
      }
      return out;
    },
    prefixSample(q, step) {
      runBlocked(q, step, 0, false);
      return blockScores.subarray(0, n);
    },
    prefixAbove(q, cut) {
      if (Number.isNaN(cut)) throw new RangeError("code-scan: cut is NaN");
      const count = runBlocked(q, 1, cut, true);
      return { ids: hitIds, vals: hitVals, count, scores: blockScores.subarray(0, n) };
    },
  };
}

function popcount32(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
