/**
 * WebAssembly SIMD scans of 1-bit sign codes against a 4-bit quantised query (RaBitQ's query quantisation:
 * Gao & Long, "RaBitQ", SIGMOD 2024, §3.3), the kernels `scan_codes` and `scan_blocked` of kernels.wat.
 *
 * A code b ∈ {0,1}^D stands for the signs s_j = 2b_j − 1; the JS scan computes Σ_j r_j · s_j for the rotated
 * query r through byte tables. Here r is quantised to B = 4 unsigned bit planes: with lo = min_j r_j,
 * Δ = (max_j r_j − lo) / 15 and u_j = round((r_j − lo) / Δ) ∈ [0, 15], r_j = lo + Δ·u_j + e_j with |e_j| ≤ Δ/2, so
 *
 *   Σ_j r_j s_j = Σ_j (lo + Δ u_j)(2b_j − 1) + Σ_j e_j s_j
 *               = Δ·(2·S − U) + lo·(2·P − D) + E,        S = Σ_j u_j b_j,  U = Σ_j u_j,  P = popcount(b),
 *
 * with |E| ≤ D·Δ/2 (worst case: every e_j at ±Δ/2 with the sign of s_j; for independent rounding errors it is
 * about Δ·√(D/12)). Both kernels compute S exactly in integers and return, in float32 with a, b, c, scale_i
 * and scaleP_i = scale_i·P rounded to float32,
 *
 *   scale_i · (a·S + c) + b · scaleP_i,     a = 2Δ, b = 2·lo, c = −Δ·U − lo·D,
 *
 * in the same operation order, so the two give the same bits for the same vector and query. The SIMD score
 * differs from the JS table score by at most
 *
 *   scale_i · D · Δ / 2      (+ float32 rounding: eight roundings of at most 2⁻²⁴ relative on terms no larger
 *                             than |scale_i·a·S| + |scale_i·c| + |b·scale_i·P|),
 *
 * `quantizedErrorBound(q)` = D·Δ/2. D is the number of code bits scanned (128 for the prefix stage), and lo, Δ
 * are taken over those coordinates only.
 *
 * `scan_codes` scores the codes of listed ids, read row by row (S = Σ_{p<4} 2^p · popcount(plane_p AND b):
 * v128.and, i8x16.popcnt, widening pairwise adds; it touches the code 8 ids ahead so gathered cache misses
 * overlap). Whole scans (of a prefix or of the full codes) run `scan_blocked`, FastScan-style (André, Kermarrec
 * & Le Scouarnec, VLDB 2015; Faiss IndexPQFastScan): the codes of 32 vectors are transposed into one block
 * (`blockCodes`; its first 512 bytes are the 128-bit prefixes), and per group g of 4 code bits a 16-entry table
 * of Σ_{bit t of c} u_{4g+t} (`nibbleTables`, ≤ 60, one byte) is looked up for 16 vectors at once with
 * i8x16.swizzle; it can keep the vectors at or above a cut inside the kernel (`above`), so JS never loops over
 * n scores.
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
   * Scores of all n vectors on their first q.blocks·128 code bits (the blocked kernel, float32 arithmetic). The
   * result is a view into the kernel's memory, valid until the next call.
   */
  scanAll(q: QuantizedQuery): Float64Array;
  /** Scores of the given vectors on their first q.blocks·128 code bits (row kernel, float64); out[k] for ids[k]. */
  scanIds(q: QuantizedQuery, ids: ArrayLike<number>, count: number, out: Float64Array): Float64Array;
  /**
   * Blocked-kernel scores (float32) on the first q.blocks·128 code bits of the vectors of blocks 0, step,
   * 2·step, … (32 vectors a block: vector i is in block ⌊i/32⌋); entries of other blocks are stale. A view into the
   * kernel's memory, valid until the next call.
   */
  sampleBlocks(q: QuantizedQuery, step: number): Float32Array;
  /**
   * The vectors whose blocked-kernel score (first q.blocks·128 bits) is ≥ cut, ascending: ids[0 .. count) and
   * their scores vals[0 .. count), plus every vector's score in `scores` (views into the kernel's memory, valid
   * until the next call).
   */
  above(q: QuantizedQuery, cut: number): { ids: Int32Array; vals: Float32Array; count: number; scores: Float32Array };
}

/** Vectors per block of the blocked layout. */
export const SCAN_BLOCK = 32;

/**
 * n codes of `words` 32-bit words in the blocked layout of the kernel `scan_blocked`: block B takes 16·8·words
 * bytes; its byte 16g + t holds nibble g (code bits 4g .. 4g + 3, bit t of word w = code bit 32w + t) of vector
 * 32B + t in its low half and of vector 32B + 16 + t in its high half; vectors past n are zero. The first 512
 * bytes of a block are the 128-bit prefixes.
 */
export function blockCodes(codes: Uint32Array, words: number, n: number): Uint8Array {
  const stride = 128 * words;
  const out = new Uint8Array(Math.ceil(n / SCAN_BLOCK) * stride);
  for (let i = 0; i < n; i++) {
    const at = (i >> 5) * stride + (i & 15);
    const shift = (i & 16) !== 0 ? 4 : 0;
    for (let g = 0; g < 8 * words; g++)
      out[at + 16 * g]! |= ((codes[i * words + (g >> 3)]! >>> ((g & 7) * 4)) & 15) << shift;
  }
  return out;
}

/** lut[16g + c] = Σ_{bit t of c} u_{4g+t} (g < 32·blocks) for the 4-bit levels u of a quantised query. */
export function nibbleTables(q: QuantizedQuery, out: Uint8Array = new Uint8Array(512 * q.blocks)): Uint8Array {
  if (out.length < 512 * q.blocks)
    throw new RangeError(`code-scan: a table of ${out.length} bytes for ${q.blocks} blocks`);
  const u = [0, 0, 0, 0];
  for (let g = 0; g < 32 * q.blocks; g++) {
    for (let t = 0; t < 4; t++) {
      const j = 4 * g + t;
      let level = 0;
      for (let p = 0; p < QUERY_BITS; p++)
        level |= ((q.planes[(4 * (j >> 7) + p) * 4 + ((j >> 5) & 3)]! >>> (j & 31)) & 1) << p;
      u[t] = level;
    }
    for (let c = 0; c < 16; c++)
      out[16 * g + c] = (c & 1 ? u[0]! : 0) + (c & 2 ? u[1]! : 0) + (c & 4 ? u[2]! : 0) + (c & 8 ? u[3]! : 0);
  }
  return out;
}

/**
 * A kernel over copies of n codes of `words` 32-bit words (row by row for gathers by id, and blocked for scans)
 * and the scales; undefined when SIMD or the memory is unavailable or the codes are too long.
 */
export function codeScan(codes: Uint32Array, words: number, scales: Float32Array): CodeScan | undefined {
  const n = scales.length;
  if (words % 4 !== 0 || words / 4 > MAX_SCAN_BLOCKS || codes.length !== n * words) return undefined;
  const codeBlocks = words / 4;
  const nBlocks = Math.ceil(n / SCAN_BLOCK);
  const padded = nBlocks * SCAN_BLOCK;
  const stride = 128 * words;
  const codesAt = 0;
  const blockedAt = align(4 * n * words);
  // The 128-bit prefixes again, blocked contiguously (512 bytes a block): a prefix scan then reads memory in
  // order instead of the first quarter of every 2 KiB block (measured 0.21 against ~0.3 ms at 100k × 512 bits).
  const prefixAt = blockedAt + align(stride * nBlocks);
  const hasPrefix = codeBlocks > 1;
  const scalesAt = prefixAt + (hasPrefix ? align(512 * nBlocks) : 0);
  const paddedScalesAt = scalesAt + align(4 * n);
  // scale_i · popcount of the first 128·k bits of code i, k = 1 .. codeBlocks (one padded array per k)
  const scalePAt = paddedScalesAt + align(4 * padded);
  const lutAt = scalePAt + codeBlocks * align(4 * padded);
  const tmpAt = lutAt + 512 * MAX_SCAN_BLOCKS;
  const blockScoresAt = tmpAt + 64;
  const hitIdsAt = blockScoresAt + align(4 * padded);
  const hitValsAt = hitIdsAt + align(4 * n);
  const planesAt = hitValsAt + align(4 * n);
  const idsAt = planesAt + 64 * MAX_SCAN_BLOCKS;
  const outAt = idsAt + 4 * CHUNK;
  const at = kernelInstance(outAt + 8 * Math.max(n, CHUNK));
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  new Uint32Array(buffer, codesAt, n * words).set(codes);
  new Float32Array(buffer, scalesAt, n).set(scales);
  const blockedCodes = blockCodes(codes, words, n);
  new Uint8Array(buffer, blockedAt, stride * nBlocks).set(blockedCodes);
  if (hasPrefix) {
    const prefixes = new Uint8Array(buffer, prefixAt, 512 * nBlocks);
    for (let b = 0; b < nBlocks; b++) prefixes.set(blockedCodes.subarray(b * stride, b * stride + 512), b * 512);
  }
  new Float32Array(buffer, paddedScalesAt, n).set(scales);
  for (let k = 1; k <= codeBlocks; k++) {
    const scaleP = new Float32Array(buffer, scalePAt + (k - 1) * align(4 * padded), n);
    for (let i = 0; i < n; i++) {
      let pop = 0;
      for (let w = 0; w < 4 * k; w++) pop += popcount32(codes[i * words + w]!);
      scaleP[i] = scales[i]! * pop;
    }
  }
  const planes = new Uint32Array(buffer, planesAt, 16 * MAX_SCAN_BLOCKS);
  const idView = new Int32Array(buffer, idsAt, CHUNK);
  const outView = new Float64Array(buffer, outAt, Math.max(n, CHUNK));
  const lut = new Uint8Array(buffer, lutAt, 512 * MAX_SCAN_BLOCKS);
  const blockScores = new Float32Array(buffer, blockScoresAt, padded);
  const hitIds = new Int32Array(buffer, hitIdsAt, n);
  const hitVals = new Float32Array(buffer, hitValsAt, n);
  const kernel = at.exports.scan_codes!;
  const blockKernel = at.exports.scan_blocked as unknown as (...args: number[]) => number;
  const scalePOf = (q: QuantizedQuery) => scalePAt + (q.blocks - 1) * align(4 * padded);
  const checkBlocks = (q: QuantizedQuery) => {
    if (q.blocks < 1 || q.blocks > codeBlocks)
      throw new RangeError(`code-scan: ${q.blocks} blocks, codes have ${codeBlocks}`);
  };
  const coefficients = (q: QuantizedQuery) => {
    checkBlocks(q);
    planes.set(q.planes);
    return [2 * q.delta, 2 * q.lo, -q.delta * q.sumU - q.lo * 128 * q.blocks] as const;
  };
  const runBlocked = (q: QuantizedQuery, step: number, cut: number, collect: boolean): number => {
    checkBlocks(q);
    if (!(Number.isInteger(step) && step >= 1))
      throw new RangeError(`code-scan: step must be an integer ≥ 1, got ${step}`);
    if (Number.isNaN(cut)) throw new RangeError("code-scan: cut is NaN");
    if (n === 0) return 0;
    nibbleTables(q, lut);
    const [a, b, c] = [2 * q.delta, 2 * q.lo, -q.delta * q.sumU - q.lo * 128 * q.blocks];
    const prefixOnly = hasPrefix && q.blocks === 1;
    return blockKernel(
      prefixOnly ? prefixAt : blockedAt,
      prefixOnly ? 512 : stride,
      512 * q.blocks,
      lutAt,
      paddedScalesAt,
      scalePOf(q),
      a,
      b,
      c,
      0,
      step,
      nBlocks,
      n,
      tmpAt,
      blockScoresAt,
      cut,
      collect ? hitIdsAt : -1,
      hitValsAt,
    );
  };
  return {
    n,
    bytes: buffer.byteLength,
    scanAll(q) {
      runBlocked(q, 1, 0, false);
      for (let i = 0; i < n; i++) outView[i] = blockScores[i]!;
      return outView.subarray(0, n);
    },
    scanIds(q, ids, count, out) {
      const [a, b, c] = coefficients(q);
      for (let start = 0; start < count; start += CHUNK) {
        const m = Math.min(CHUNK, count - start);
        for (let k = 0; k < m; k++) {
          const id = ids[start + k]!;
          if (!(id >= 0 && id < n && Number.isInteger(id)))
            throw new RangeError(`code-scan: id ${id} is not in [0, ${n})`);
          idView[k] = id;
        }
        kernel(codesAt, 4 * words, q.blocks, idsAt, m, planesAt, scalesAt, scalePOf(q), a, b, c, outAt, tmpAt);
        out.set(outView.subarray(0, m), start);
      }
      return out;
    },
    sampleBlocks(q, step) {
      runBlocked(q, step, 0, false);
      return blockScores.subarray(0, n);
    },
    above(q, cut) {
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

/**
 * A blocked scan of the full codes in a given order (the inverted lists of an IVF stage): position p of the layout
 * holds vector `order[p]`, or nothing when order[p] = −1 (padding, so that every list starts a block of
 * SCAN_BLOCK). A range of blocks is scored by `scan_blocked` with the same formula and bits as `CodeScan`; a
 * padding position has a NaN scale, so it never passes a cut.
 */
export interface ListScan {
  /** Positions (padded). */
  readonly positions: number;
  /** Size of the kernel's memory. */
  readonly bytes: number;
  /**
   * Scores every position of blocks [ranges[2k], ranges[2k + 1]) for k < rangeCount on all code bits of q (q.blocks
   * must be the codes' 128-bit blocks) and returns the vectors (ids, not positions) with their scores, in scan
   * order: ids[0 .. count), vals[0 .. count) (views into the kernel's memory, valid until the next call).
   */
  scanRanges(
    q: QuantizedQuery,
    ranges: Int32Array,
    rangeCount: number,
  ): { ids: Int32Array; vals: Float32Array; count: number };
}

/** A ListScan over n codes of `words` words laid out in `order` (length a multiple of SCAN_BLOCK); undefined when unavailable. */
export function listScan(
  codes: Uint32Array,
  words: number,
  scales: Float32Array,
  order: Int32Array,
): ListScan | undefined {
  const n = scales.length;
  const P = order.length;
  if (words % 4 !== 0 || words / 4 > MAX_SCAN_BLOCKS || codes.length !== n * words || P % SCAN_BLOCK !== 0)
    return undefined;
  const codeBlocks = words / 4;
  const nBlocks = P / SCAN_BLOCK;
  const stride = 128 * words;
  const blockedAt = 0;
  const scalesAt = align(stride * nBlocks);
  const scalePAt = scalesAt + align(4 * P);
  const lutAt = scalePAt + align(4 * P);
  const tmpAt = lutAt + 512 * MAX_SCAN_BLOCKS;
  const scoresAt = tmpAt + 64;
  const hitIdsAt = scoresAt + align(4 * P);
  const hitValsAt = hitIdsAt + align(4 * P);
  const at = kernelInstance(hitValsAt + align(4 * P));
  if (!at) return undefined;
  const buffer = at.memory.buffer;
  const ordered = new Uint32Array(P * words);
  const sc = new Float32Array(buffer, scalesAt, P);
  const scP = new Float32Array(buffer, scalePAt, P);
  for (let p = 0; p < P; p++) {
    const id = order[p]!;
    if (id < 0) {
      sc[p] = Number.NaN;
      scP[p] = Number.NaN;
      continue;
    }
    if (!(id < n)) throw new RangeError(`code-scan: order[${p}] = ${id} is not a vector in [0, ${n})`);
    ordered.set(codes.subarray(id * words, (id + 1) * words), p * words);
    let pop = 0;
    for (let w = 0; w < words; w++) pop += popcount32(codes[id * words + w]!);
    sc[p] = scales[id]!;
    scP[p] = scales[id]! * pop;
  }
  new Uint8Array(buffer, blockedAt, stride * nBlocks).set(blockCodes(ordered, words, P));
  const lut = new Uint8Array(buffer, lutAt, 512 * MAX_SCAN_BLOCKS);
  const hitPositions = new Int32Array(buffer, hitIdsAt, P);
  const hitVals = new Float32Array(buffer, hitValsAt, P);
  const blockKernel = at.exports.scan_blocked as unknown as (...args: number[]) => number;
  return {
    positions: P,
    bytes: buffer.byteLength,
    scanRanges(q, ranges, rangeCount) {
      if (q.blocks !== codeBlocks)
        throw new RangeError(`code-scan: a list scan reads all ${codeBlocks} blocks, got ${q.blocks}`);
      nibbleTables(q, lut);
      const a = 2 * q.delta;
      const b = 2 * q.lo;
      const c = -q.delta * q.sumU - q.lo * 128 * q.blocks;
      let count = 0;
      for (let k = 0; k < rangeCount; k++) {
        const first = ranges[2 * k]!;
        const end = ranges[2 * k + 1]!;
        if (!(Number.isInteger(first) && Number.isInteger(end) && first >= 0 && end <= nBlocks && first <= end))
          throw new RangeError(`code-scan: block range [${first}, ${end}) outside [0, ${nBlocks})`);
        count += blockKernel(
          blockedAt,
          stride,
          stride,
          lutAt,
          scalesAt,
          scalePAt,
          a,
          b,
          c,
          first,
          1,
          end,
          P,
          tmpAt,
          scoresAt,
          Number.NEGATIVE_INFINITY,
          hitIdsAt + 4 * count,
          hitValsAt + 4 * count,
        );
      }
      for (let k = 0; k < count; k++) hitPositions[k] = order[hitPositions[k]!]!;
      return { ids: hitPositions, vals: hitVals, count };
    },
  };
}
