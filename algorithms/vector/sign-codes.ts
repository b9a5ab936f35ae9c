/**
 * Stages 0 and 1 of the staged vector index: 1-bit sign codes of the rotated centred vectors, scored against
 * the rotated query through byte tables (JS) or WebAssembly SIMD scans, and the shortlist they select.
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * Prefilter (large n): reading all D/8 code bytes of every vector costs ~1 ns a byte, 6 ms at n = 100k,
 * D = 512. When n > 2 · prefilterFactor · shortlist, a stage 0 first scores every vector on its first
 * `prefilterWords` code words only (128 bits by default: the rotated coordinates are exchangeable, so a prefix
 * is itself a random projection of dimension 128) and keeps prefilterFactor × shortlist of them (8 × by default)
 * for the full-code stage — a cascade of ever more exact scorers, as in multi-stage binary-code search
 * (Norouzi, Punjani & Fleet, "Fast search in Hamming space with multi-index hashing", CVPR 2012, use code
 * substrings the same way). The prefixes are also stored contiguously (16 bytes a vector, read sequentially),
 * and the stage-0 selection does not write n scores: every ⌈n/4096⌉-th vector is scored first, the keep/n
 * quantile of that sample (lowered by a margin) is a cut, and the scan keeps only the vectors at or above it
 * before the exact selection — the same set as selecting over all n (checked: when fewer than `keep` pass,
 * every score is selected). The recall of the cascade against the exact scan is measured in
 * bench/vector-index-bench.ts and bench/memory.ts.
 *
 * Stages 0 and 1 with WebAssembly SIMD (simd/code-scan.ts, on by default from n = SCAN_SIMD_MIN_N where available;
 * `scanSimd: false` or TOOLGRAPH_NO_SIMD=1 runs the tables): the rotated query r = Rq is quantised to 4 bit
 * planes, u_j = round((r_j − lo)/Δ) ∈ [0, 15], lo = min_j r_j, Δ = (max_j r_j − lo)/15 (over the D bits the stage
 * reads: D = 128 for the prefix, all bits for stage 1), and with s_j = 2b_j − 1,
 *
 *     Σ_j r_j s_j ≈ Σ_j (lo + Δ u_j)(2b_j − 1) = Δ·(2·Σ_j u_j b_j − Σ_j u_j) + lo·(2·popcount(b) − D),
 *
 * Σ_j u_j b_j = Σ_p 2^p · popcount(plane_p AND b) in integers (v128.and, i8x16.popcnt) — RaBitQ's query
 * quantisation (Gao & Long 2024, §3.3). Since |r_j − lo − Δu_j| ≤ Δ/2, each approximate score moves by at most
 * scale_i · D · Δ/2 from the table score (worst case; about scale_i · Δ · √(D/12) for independent rounding
 * errors), so the shortlist may differ from the JS one; `simdScanScores` returns the scores with that bound
 * (property-tested). Measured with bench/vector-index-bench.ts: recall@10 of the whole search changes by
 * ≤ 0.003 (d = 512, n = 10k and 100k). Whole scans run FastScan-style (code-scan.ts `scan_blocked`: codes in
 * blocks of 32 vectors, nibble lookup tables through i8x16.swizzle, the same integer S as the popcount kernel,
 * the score in float32 in the same operation order as the row kernel, so both give the same bits) and keep the
 * vectors at or above a sampled cut inside the kernel: at n = 100k the 128-bit prefix pass takes ~0.2 ms against
 * ~1 ms for the popcount kernel and its JS cut. Below n = FULL_SCAN_RATIO · keep one blocked pass over the full
 * codes replaces the cascade (cheaper than the random reads, and exact on the full-code scores; see "Full-code
 * scan" below): codeShortlist at 10k × 512 0.29 → 0.18 ms (random data). The kernel copies codes, prefixes and scales into its own memory on the
 * first SIMD scan (kept by index object in a WeakMap, used only while index.codes is the copied array).
 *
 * Full-code scan instead of the prefix cascade: with the SIMD kernels the cascade is used only from
 * n ≥ FULL_SCAN_RATIO · keep (200 × 8 × shortlist, ~400k vectors); below, one blocked pass over the full codes
 * selects the shortlist. At 100k × 512 (anisotropic data, a loaded machine) the full pass took 1.2 ms p50 at
 * recall@10 1.000 against 7.5 ms at 0.983 for the cascade, whose gathers of 8 × shortlist codes and prefix
 * selection cost more than the sequential 6.4 MB read they save.
 */

import { SearchError } from "../search/search-error.ts";
import { kthLargestInPlace, topKIds } from "../search/top-k.ts";
import {
  type CodeScan,
  codeScan,
  type QuantizedQuery,
  quantizedErrorBound,
  quantizeQuery,
  SCAN_BLOCK,
} from "../simd/code-scan.ts";
import { simdByDefault } from "../simd/row-dots.ts";
import {
  checkQuery,
  checkTopN,
  DEFAULTS,
  MODULE,
  type PrefilterOptions,
  SCAN_SIMD_MIN_N,
  type VectorIndex,
} from "./index-types.ts";
import { rotatedQuery } from "./rotation.ts";
import { cachedKernel, growScratch, idScratch, scratchOf } from "./scratch.ts";

let tableScratch = new Float64Array(0);

/** Per-query lookup tables: table[k·256 + c] = Σ_t (bit t of c ? +1 : −1) · (Rq)_{8k+t}, k = code byte. */
function queryTables(index: VectorIndex, query: ArrayLike<number>): Float64Array {
  return tablesOf(rotatedQuery(index, query));
}

function tablesOf(buf: Float64Array): Float64Array {
  const D = buf.length;
  const bytes = D >> 3;
  // Every entry is written below, so one buffer is reused across queries (searches are synchronous).
  if (tableScratch.length < bytes * 256) tableScratch = new Float64Array(bytes * 256);
  const table = tableScratch;
  for (let k = 0; k < bytes; k++) {
    const o = k * 256;
    let base = 0;
    for (let t = 0; t < 8; t++) base -= buf[8 * k + t]!;
    table[o] = base;
    for (let c = 1; c < 256; c++) {
      const low = c & -c; // lowest set bit
      table[o + c] = table[o + (c ^ low)]! + 2 * buf[8 * k + (31 - Math.clz32(low))]!;
    }
  }
  return table;
}

/**
 * Stage-1 score of vector i before its scale: Σ over code bytes of the table entry, 4 bytes per 32-bit word,
 * two words per step into two accumulators (words is even: D ≥ 64).
 */
function approxOne(table: Float64Array, codes: Uint32Array, co: number, words: number): number {
  let s0 = 0;
  let s1 = 0;
  for (let w = 0; w < words; w += 2) {
    const c = codes[co + w]!;
    const e = codes[co + w + 1]!;
    const b = w << 10;
    s0 +=
      table[b | (c & 255)]! +
      table[b | 256 | ((c >>> 8) & 255)]! +
      table[b | 512 | ((c >>> 16) & 255)]! +
      table[b | 768 | (c >>> 24)]!;
    s1 +=
      table[b | 1024 | (e & 255)]! +
      table[b | 1280 | ((e >>> 8) & 255)]! +
      table[b | 1536 | ((e >>> 16) & 255)]! +
      table[b | 1792 | (e >>> 24)]!;
  }
  return s0 + s1;
}

/** approxOne(table, codes, o, 4) unrolled, summed in the same order (bit-identical): the prefilter's inner loop. */
function approx128(T: Float64Array, codes: Uint32Array, o: number): number {
  const a = codes[o]!;
  const b = codes[o + 1]!;
  const c = codes[o + 2]!;
  const e = codes[o + 3]!;
  const A = T[a & 255]! + T[256 | ((a >>> 8) & 255)]! + T[512 | ((a >>> 16) & 255)]! + T[768 | (a >>> 24)]!;
  const B = T[1024 | (b & 255)]! + T[1280 | ((b >>> 8) & 255)]! + T[1536 | ((b >>> 16) & 255)]! + T[1792 | (b >>> 24)]!;
  const C = T[2048 | (c & 255)]! + T[2304 | ((c >>> 8) & 255)]! + T[2560 | ((c >>> 16) & 255)]! + T[2816 | (c >>> 24)]!;
  const E = T[3072 | (e & 255)]! + T[3328 | ((e >>> 8) & 255)]! + T[3584 | ((e >>> 16) & 255)]! + T[3840 | (e >>> 24)]!;
  return A + C + (B + E);
}

/**
 * Stage 1's code of one rotated centred vector `buf` (D = 32 · words coordinates): bit t of word w is set when
 * buf[32w + t] > 0, written at codes[at … at + words); returns the vector's scale ‖buf‖₁ / D (the 1-bit estimate's
 * factor). One place for the build and for an append, so that appended codes are the build's own.
 */
export function signCode(buf: Float64Array, codes: Uint32Array, at: number, words: number): number {
  let l1 = 0;
  for (let w = 0; w < words; w++) {
    let word = 0;
    for (let t = 0; t < 32; t++) {
      const v = buf[32 * w + t]!;
      if (v > 0) word |= 1 << t;
      l1 += v < 0 ? -v : v;
    }
    codes[at + w] = word >>> 0;
  }
  return l1 / (32 * words);
}

/** Stage 1 alone: approximate scores approx_i (rank-equivalent to q·x_i), for diagnostics and tests. */
export function approximateScores(index: VectorIndex, query: ArrayLike<number>): Float64Array {
  checkQuery(query, index.d);
  const table = queryTables(index, query);
  const words = index.bits >> 5;
  const out = new Float64Array(index.n);
  const codes = index.codes;
  const scales = index.scales;
  for (let i = 0; i < index.n; i++) out[i] = approxOne(table, codes, i * words, words) * scales[i]!;
  return out;
}

/** Stage-0 scores alone: the first `words` code words of every vector, times its scale (diagnostics, tests). */
export function prefixScores(index: VectorIndex, query: ArrayLike<number>, words: number): Float64Array {
  checkQuery(query, index.d);
  if (!Number.isInteger(words) || words <= 0 || words % 2 !== 0 || words > index.bits >> 5) {
    throw new SearchError(
      MODULE,
      "bad-prefilter",
      `words must be an even integer in [2, ${index.bits >> 5}], got ${words}`,
    );
  }
  const table = queryTables(index, query);
  const stride = index.bits >> 5;
  const out = new Float64Array(index.n);
  for (let i = 0; i < index.n; i++) out[i] = approxOne(table, index.codes, i * stride, words) * index.scales[i]!;
  return out;
}

/**
 * The `size` ids with the best stage-1 approximate scores (ties: smaller id), in no particular order, through
 * the stage-0 prefix prefilter when n is large (see the header). All ids when size ≥ n.
 */
export function codeShortlist(
  index: VectorIndex,
  query: ArrayLike<number>,
  size: number,
  options: PrefilterOptions = {},
): Int32Array {
  checkQuery(query, index.d);
  checkTopN(size);
  const n = index.n;
  if (size >= n) return Int32Array.from({ length: n }, (_, i) => i);
  if (size === 0) return new Int32Array(0);
  const words = index.bits >> 5;
  const pw = options.prefilterWords ?? DEFAULTS.prefilterWords;
  const factor = options.prefilterFactor ?? DEFAULTS.prefilterFactor;
  if (!Number.isInteger(pw) || pw < 0 || pw % 2 !== 0) {
    throw new SearchError(MODULE, "bad-prefilter", `prefilterWords must be an even integer ≥ 0, got ${pw}`);
  }
  if (!(factor >= 1)) throw new SearchError(MODULE, "bad-prefilter", `prefilterFactor must be ≥ 1, got ${factor}`);
  const keep = Math.ceil(factor * size);
  const scan = (options.scanSimd ?? (n >= SCAN_SIMD_MIN_N && simdByDefault())) ? scanKernel(index) : undefined;
  if (scan && pw % 4 === 0) return simdShortlist(index, scan, rotatedQuery(index, query), size, pw, keep);
  const table = queryTables(index, query);
  const codes = index.codes;
  const scales = index.scales;
  if (!(pw > 0 && pw < words && n > 2 * keep)) {
    const scores = scratchOf(n);
    for (let i = 0; i < n; i++) scores[i] = approxOne(table, codes, i * words, words) * scales[i]!;
    return topKIds(scores, n, size, scratchOf(n, 1));
  }
  const first = prefixShortlist(index, table, pw, keep);
  const refined = scratchOf(first.length);
  for (let j = 0; j < first.length; j++) {
    const id = first[j]!;
    refined[j] = approxOne(table, codes, id * words, words) * scales[id]!;
  }
  const chosen = topKIds(refined, first.length, size, scratchOf(first.length, 1));
  const out = new Int32Array(chosen.length);
  for (let j = 0; j < chosen.length; j++) out[j] = first[chosen[j]!]!;
  return out;
}

/**
 * codeShortlist with the SIMD scans (pw a multiple of 4). Below n = FULL_SCAN_RATIO · keep (see the header), one
 * blocked pass over the full codes is cheaper than the prefix pass plus the random reads of the cascade, and exact
 * on the full-code scores: it is used instead. Otherwise the cascade: the `keep` best prefix scores, re-scored on the full codes by
 * the row kernel (same formula, same bits), the `size` best of those.
 */
function simdShortlist(
  index: VectorIndex,
  scan: CodeScan,
  r: Float64Array,
  size: number,
  pw: number,
  keep: number,
): Int32Array {
  const n = index.n;
  const full = quantizeQuery(r, index.bits >> 7);
  if (!(pw > 0 && pw < index.bits >> 5 && n > 2 * keep && n >= FULL_SCAN_RATIO * keep))
    return blockedTop(scan, full, n, size);
  const first = blockedTop(scan, quantizeQuery(r, pw >> 2), n, keep);
  const refined = scan.scanIds(full, first, first.length, scratchOf(first.length));
  const chosen = topKIds(refined, first.length, size, scratchOf(first.length, 1));
  const out = new Int32Array(chosen.length);
  for (let j = 0; j < chosen.length; j++) out[j] = first[chosen[j]!]!;
  return out;
}

/** The cascade is used from n ≥ FULL_SCAN_RATIO · keep (see simdShortlist). */
export const FULL_SCAN_RATIO = 200;

/**
 * The k ids with the best blocked-kernel scores on q's bits (ties: smaller id), ascending — the same set as
 * topKIds over all n scores, without returning them to JS: a regular sample of the blocks of 32 vectors is scored
 * first, the k/n quantile of those scores lowered by the margin of prefixShortlist is the cut,
 * and one pass scores every vector and keeps those at or above it inside the kernel. When fewer than k pass
 * (improbable), all n scores are selected from.
 */
export function blockedTop(scan: CodeScan, q: QuantizedQuery, n: number, k: number): Int32Array {
  const nBlocks = Math.ceil(n / SCAN_BLOCK);
  // The sample pass costs samples/n of a full one: n/25 samples, at least 1,024 (10k tools: 0.23 → 0.19 ms against
  // 4,096) and at most PREFIX_SAMPLES (a tighter cut where a full pass is dear).
  const step = Math.ceil(nBlocks / (Math.min(PREFIX_SAMPLES, Math.max(1024, Math.ceil(n / 25))) / SCAN_BLOCK));
  if (step <= 1) return sortedTop(scan.sampleBlocks(q, 1), n, k);
  const sample = scan.sampleBlocks(q, step);
  const sampled = scratchOf(Math.ceil(nBlocks / step) * SCAN_BLOCK, 1);
  let samples = 0;
  for (let b = 0; b < nBlocks; b += step)
    for (let i = b * SCAN_BLOCK, end = Math.min(n, i + SCAN_BLOCK); i < end; i++) sampled[samples++] = sample[i]!;
  const expected = (k * samples) / n;
  const rank = Math.min(samples, Math.ceil(1.2 * expected + 3 * Math.sqrt(expected)) + 1);
  const cut = kthLargestInPlace(sampled, samples, rank);
  const hits = scan.above(q, cut);
  if (hits.count < k) return sortedTop(hits.scores, n, k);
  const vals = scratchOf(hits.count);
  for (let j = 0; j < hits.count; j++) vals[j] = hits.vals[j]!;
  const first = topKIds(vals, hits.count, k, scratchOf(hits.count, 1));
  for (let j = 0; j < first.length; j++) first[j] = hits.ids[first[j]!]!;
  return first;
}

/** topKIds over n float32 scores. */
function sortedTop(scores: Float32Array, n: number, k: number): Int32Array {
  const all = scratchOf(n);
  for (let i = 0; i < n; i++) all[i] = scores[i]!;
  return topKIds(all, n, k, scratchOf(n, 1));
}

/** Stage-0 samples: every ⌈n / PREFIX_SAMPLES⌉-th vector estimates the cut before the scan. */
const PREFIX_SAMPLES = 4096;

/**
 * The ids of the `keep` best prefix scores (ties: smaller id), ascending — the same set as topKIds over all n
 * prefix scores, without writing them all: a regular sample of the vectors is scored first and its cut at the
 * keep/n quantile, lowered by a margin (+20 % and three binomial standard deviations), bounds the scan, which
 * keeps only the vectors scoring at least that cut; the exact selection then runs on those. Every vector of
 * the true top `keep` (and every tie of its last score) scores ≥ the true cut ≥ the sampled one, so when at
 * least `keep` vectors pass, the result is exact; otherwise (improbable) all n are scored and selected.
 */
function prefixShortlist(index: VectorIndex, table: Float64Array, pw: number, keep: number): Int32Array {
  const n = index.n;
  const scales = index.scales;
  const contiguous = index.prefixCodes !== undefined && index.prefixWords === pw;
  const codes = contiguous ? index.prefixCodes! : index.codes;
  const stride = contiguous ? pw : index.bits >> 5;
  const step = Math.ceil(n / PREFIX_SAMPLES);
  const samples = Math.ceil(n / step);
  const sampled = scratchOf(samples, 1);
  for (let s = 0; s < samples; s++) {
    const i = s * step;
    sampled[s] = approxOne(table, codes, i * stride, pw) * scales[i]!;
  }
  const expected = (keep * samples) / n;
  const rank = Math.min(samples, Math.ceil(1.2 * expected + 3 * Math.sqrt(expected)) + 1);
  const cut = kthLargestInPlace(sampled, samples, rank);
  let ids = idScratch(keep + (keep >> 1));
  let vals = scratchOf(ids.length);
  let c = 0;
  const unrolled = contiguous && pw === 4;
  for (let i = 0, o = 0; i < n; i++, o += stride) {
    const v = (unrolled ? approx128(table, codes, o) : approxOne(table, codes, o, pw)) * scales[i]!;
    if (v >= cut) {
      if (c === ids.length) {
        ids = idScratch(2 * c, c);
        vals = growScratch(2 * c, c);
      }
      ids[c] = i;
      vals[c++] = v;
    }
  }
  if (c < keep) {
    const all = scratchOf(n);
    for (let i = 0; i < n; i++) all[i] = approxOne(table, codes, i * stride, pw) * scales[i]!;
    return topKIds(all, n, keep, scratchOf(n, 1));
  }
  const chosen = topKIds(vals, c, keep, scratchOf(c, 1));
  for (let j = 0; j < chosen.length; j++) chosen[j] = ids[chosen[j]!]!;
  return chosen;
}

interface ScanKernel {
  readonly scan: CodeScan;
  /** The codes copied into the kernel (used only while index.codes is still it). */
  readonly source: Uint32Array;
}

/** SIMD code-scan kernels by index object: created on the first SIMD scan, collected with the index. */
const scanKernels = new WeakMap<VectorIndex, ScanKernel | null>();

/** Bytes of the SIMD code-scan kernel's memory (its copies of codes, prefixes and scales, and buffers), 0 when none was made. */
export function simdScanBytes(index: VectorIndex): number {
  const k = scanKernels.get(index);
  return k ? k.scan.bytes : 0;
}

function scanKernel(index: VectorIndex): CodeScan | undefined {
  return cachedKernel(scanKernels, index, index.codes, () => {
    const scan = index.n > 0 ? codeScan(index.codes, index.bits >> 5, index.scales) : undefined;
    return scan ? { scan, source: index.codes } : undefined;
  })?.scan;
}

/**
 * SIMD scan scores of all n vectors on their first `words` code words (a multiple of 4), and the bound D·Δ/2
 * (D = 32·words) such that |score_i − JS score_i| ≤ scale_i · bound (diagnostics, tests); undefined without SIMD.
 */
export function simdScanScores(
  index: VectorIndex,
  query: ArrayLike<number>,
  words: number,
): { scores: Float64Array; bound: number } | undefined {
  checkQuery(query, index.d);
  if (!Number.isInteger(words) || words <= 0 || words % 4 !== 0 || words > index.bits >> 5) {
    throw new SearchError(
      MODULE,
      "bad-prefilter",
      `words must be a multiple of 4 in [4, ${index.bits >> 5}], got ${words}`,
    );
  }
  const scan = scanKernel(index);
  if (!scan) return undefined;
  const q = quantizeQuery(rotatedQuery(index, query), words >> 2);
  return { scores: Float64Array.from(scan.scanAll(q)), bound: quantizedErrorBound(q) };
}
