/**
 * Two-stage top-N cosine search over L2-normalised float32 vectors (n × d, row-major).
 *
 * Stage 1 (cheap, over all n): every vector is centred on the corpus mean μ, randomly rotated by a
 * randomised Hadamard transform R (`rounds` × [random ±1 diagonal, then a normalised fast Walsh–Hadamard
 * transform], dimension padded to D = next power of two ≥ max(d, 64)) and stored as one sign bit per rotated
 * coordinate plus one scale s_i = ‖R(x_i − μ)‖₁ / D. The query q is rotated (not centred) and scored
 * asymmetrically, float query against binary code:
 *
 *     approx_i = s_i · Σ_j (Rq)_j · sign_ij           ≈ (Rq)·R(x_i − μ) = q·x_i − q·μ
 *
 * (q·μ is the same for every i, so ranking by approx_i ranks by q·x_i). The inner sum is read from per-query
 * lookup tables, one table of 256 partial sums per byte of code, so a vector costs D/8 table reads
 * (codes are stored as 32-bit words, so the byte order of the platform does not matter).
 * Stage 2: the max(shortlist, ⌈shortlistFraction · n⌉) best approximations are re-scored exactly
 * (float32 dot product = cosine for unit vectors) and the top N returned, score descending, id ascending on ties.
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
 * Centring matters: embeddings share a large mean component, so un-centred sign bits are nearly identical
 * for every vector. The rotation spreads energy evenly over coordinates so each bit carries information.
 *
 * Sources: sign random projections (Charikar, "Similarity estimation techniques from rounding algorithms",
 * STOC 2002); randomised Hadamard rotations (Ailon & Chazelle, "The fast Johnson–Lindenstrauss transform",
 * 2009); asymmetric binary scoring with a per-vector scale and exact re-ranking (Gao & Long, "RaBitQ", SIGMOD
 * 2024; its error bound only in the fine stage below); byte lookup tables (Jégou et al., product quantization ADC, 2011).
 *
 * Stage 2 with WebAssembly SIMD (simd/row-dots.ts, on by default where available): the shortlist is scored by the
 * float32 SIMD kernel, whose error against the float64 dotAt is at most ε = dotErrorFactor(d) · max_i ‖x_i‖ · ‖q‖
 * (Cauchy–Schwarz on Σ_j |x_ij q_j|) + dotUnderflowBound; with T the N-th best SIMD score, every vector of the JS top N has a SIMD
 * score ≥ T − 2ε (N candidates have JS scores ≥ T − ε), so exactly those are re-scored with dotAt and the top N
 * taken from them: the result equals the JS path's, scores bit for bit. The kernel copies the vectors into its
 * own WebAssembly.Memory on the first search that re-ranks (not at build: the memory service keeps an index
 * without its float32 vectors and never re-ranks through it) and is freed with the index object.
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
 * IVF stage (n ≥ ivfFrom = 20,000, SIMD available): an inverted-file coarse quantizer before the code scan
 * (Jégou, Douze & Schmid, "Product quantization for nearest neighbor search", TPAMI 2011, §IV: IVFADC; Sivic &
 * Zisserman, "Video Google", 2003). L = ⌈0.5·√n⌉ lists from k-means (spectral/kmeans-pp.ts, seeded `rng`, drawn
 * after the rotation signs) on a sample of 32·L vectors in the first 64 coordinates of R(x − μ) (a random
 * projection); every vector joins its nearest centre. A query ranks the lists by ‖c_l‖² − 2 q·c_l (c_l the mean of
 * list l in the input space, i.e. by ‖q − c_l‖), scores every vector of the nearest lists on its full code (the
 * blocked SIMD kernel over a list-ordered copy of the codes, code-scan.ts `listScan`) until they hold
 * probeFraction · n vectors (at least 2 lists), and re-ranks the shortlist exactly as stage 2 does. probeFraction
 * is measured at build: for 32 sampled indexed vectors, the share of n in the nearest lists up to the farthest one
 * holding one of the vector's exact top-10 (float32 row kernel), the largest share × 1.25. When that exceeds 0.4
 * (data whose neighbours spread over most lists) the index keeps no IVF stage. Measured with
 * bench/vector-index-bench.ts (results in bench/results/vector-index.json).
 *
 * Fine stage (the IVF stage's default scorer, built with it when the SIMD kernels are available): besides its sign
 * bit, every vector keeps a 4-bit scalar code of y = R(x − μ): δ = fineStep · ‖y‖/√D (0.335: the step of the best
 * 16-level uniform quantiser of a gaussian, Max 1960), m_j = min(7, ⌊|y_j|/δ⌋), c_j = 8 + m_j if y_j > 0 else
 * 7 − m_j (so the top bit of c_j is the sign bit), and one scale α = ‖y‖² / (y·(c − 7.5)) — the unbiased choice of
 * RaBitQ (Gao & Long 2024, §3.2: dividing by ⟨ō, o⟩), whose residual e = y − α(c − 7.5) is orthogonal to y, so the
 * estimate has no bias toward the vector's own direction (measured at 100k: mean error −0.007 with the least-squares
 * scale, +0.0003 with this one, sd 0.0036). With z = Rq,
 *
 *     est_i = α_i · Σ_j z_j (c_ij − 7.5)  ≈ z·y_i = q·x_i − q·μ,     z·y_i − est_i = z·e_i,
 *
 * computed as α_i · qs · (S_i − 7.5·K) by the SIMD kernel scan_u4 (simd/u4-scan.ts: z quantised to int16 with step
 * qs, S_i = Σ_j c_ij k_j exact in integers, error ≤ α_i · 3.75 · D · qs). For a random rotation z·e_i behaves as
 * ‖z‖·‖e_i‖/√D times a standard normal (RaBitQ's bound, ibid. §3.2.2; measured at 100k: |z·e_i| / (‖z‖‖e_i‖/√D) has
 * p99 1.97, max 3.39 over 50 queries × 1,000 candidates), so with
 *
 *     bound_i = ε · ‖q‖ · ‖e_i‖ / √D + α_i · 3.75 · D · qs,   ε = fineBound (2),
 *
 * the true score lies in [est_i − bound_i, est_i + bound_i] except with small probability (a probabilistic bound:
 * the rotation is random, the data are not adversarial). Every vector of the probed lists is scored; T is the N-th
 * largest est − bound, and only those with est + bound ≥ T can be in the probed lists' top N (a vector below scores
 * less than N vectors whose scores are ≥ T, while the bounds hold). Those are re-ranked exactly in order of est +
 * bound, 16 rows at a time, stopping when N rows are scored and the next one's est + bound + q·μ is below the N-th
 * exact score (the rest would score below it): the same answer as re-ranking them all, with fewer rows read.
 * At 100k × 512 (clustered) that re-ranks ~100 rows (p50) instead of the 1-bit path's 1,000 of 2 KB each, whose
 * cache misses were most of the query: the 1-bit estimate ranks the true top-10 up to 849th among all n (p99 688),
 * so a bound on it would not cut the re-rank much. Memory: 256 bytes a vector in the kernel's memory (0.125 × the
 * float32 vectors) plus α_i and ‖e_i‖ (8 bytes); the 1-bit list copy is then never made (index total 1.18 × raw at
 * 100k × 512). `ivfFine: false` runs the 1-bit list scan and the shortlist re-rank instead.
 *
 * Full-code scan instead of the prefix cascade: with the SIMD kernels the cascade is used only from
 * n ≥ FULL_SCAN_RATIO · keep (200 × 8 × shortlist, ~400k vectors); below, one blocked pass over the full codes
 * selects the shortlist. At 100k × 512 (anisotropic data, a loaded machine) the full pass took 1.2 ms p50 at
 * recall@10 1.000 against 7.5 ms at 0.983 for the cascade, whose gathers of 8 × shortlist codes and prefix
 * selection cost more than the sequential 6.4 MB read they save.
 *
 * Vectors held once (`vectorStore: "kernel"`, the default with SIMD from SIMD_MIN_VALUES floats): the build copies
 * the vectors into the re-rank kernel's WebAssembly memory and `index.vectors` is a view of that copy, so a caller
 * that keeps index.vectors instead of its own array holds them once. "reference" keeps the caller's array.
 *
 * Contract: the index reads `vectors` (or its kernel copy) for re-ranking; do not mutate it afterwards (the SIMD copy
 * would not see the change). Scores are dot products, i.e. cosines when inputs are unit vectors (not checked,
 * for speed).
 */
import { dotAt } from "../linalg/dot.ts";
import { mulberry32, type Rng } from "../random/rng.ts";
import { type CodeScan, codeScan, type ListScan, listScan, type QuantizedQuery, quantizedErrorBound, quantizeQuery, SCAN_BLOCK } from "../simd/code-scan.ts";
import { dotErrorFactor, dotUnderflowBound, type F32RowDots, f32RowDots, MAX_QUERY_ABS, simdByDefault } from "../simd/row-dots.ts";
import { quantizeU4Query, type U4Scan, u4Scan } from "../simd/u4-scan.ts";
import { kmeansPlusPlus } from "../spectral/kmeans-pp.ts";
import { SearchError } from "./search-error.ts";
import { kthLargestInPlace, type ScoredId, TopK, topKIds } from "./top-k.ts";

export const DEFAULTS = {
  /** Minimum number of vectors re-scored exactly per query. */
  shortlist: 256,
  /** Fraction of n re-scored exactly when larger than `shortlist` (keeps recall flat as n grows). */
  shortlistFraction: 0.01,
  /** Randomised Hadamard rounds. */
  rounds: 3,
  /** Seed of the default rng. */
  seed: 0x5eed,
  /** Stage-0 prefilter: code words read (128 bits). */
  prefilterWords: 4,
  /** Stage-0 prefilter keeps this many × the shortlist. */
  prefilterFactor: 8,
  /** IVF stage from this many vectors on (0 turns it off). */
  ivfFrom: 20_000,
  /** Inverted lists: ⌈ivfListsPerSqrtN · √n⌉. */
  ivfListsPerSqrtN: 0.5,
  /** Coordinates of the rotated, centred vectors the coarse k-means runs on. */
  ivfDims: 64,
  /** k-means training points per list (a seeded sample). */
  ivfTrainPerList: 32,
  /** Lloyd iterations of the coarse k-means. */
  ivfIterations: 8,
  /** Indexed vectors whose exact neighbours calibrate the probe fraction at build. */
  ivfCalibrationQueries: 32,
  /** Their neighbours: the probe must reach each one's top ivfCalibrationK. */
  ivfCalibrationK: 10,
  /** The calibrated fraction is the largest one the calibration queries needed, times this margin. */
  ivfProbeMargin: 1.25,
  /** When the calibrated fraction exceeds this, the index keeps no IVF stage (a full scan costs about as much). */
  ivfMaxProbeFraction: 0.4,
  /** At least this many lists are probed. */
  ivfMinProbes: 2,
  /** 4-bit codes of the IVF stage: quantiser step as a fraction of the vector's RMS rotated coordinate. */
  fineStep: 0.335,
  /**
   * Fine stage: a candidate is re-ranked when est + fineBound · ‖q‖ · ‖e_i‖ / √D reaches the N-th best lower bound.
   * 2: at 100k × 512 no true top-10 was pruned with 1.5 (200 queries) nor 2 (50 queries × 1,000 candidates; 1: recall
   * 0.9995); the margin is for other data.
   */
  fineBound: 2,
} as const;

export interface VectorIndexOptions {
  /** Random source for the rotation signs. Default `mulberry32(DEFAULTS.seed)` (deterministic). */
  readonly rng?: Rng;
  /** Randomised Hadamard rounds (≥ 1). Default 3. */
  readonly rounds?: number;
  /**
   * Build the IVF stage (coarse k-means lists, see the header) when n ≥ this. Default 20,000; 0 or Infinity: never.
   * The k-means draws from `rng` after the rotation signs, so the codes do not depend on it.
   */
  readonly ivfFrom?: number;
  /** Number of inverted lists. Default ⌈0.5 · √n⌉. */
  readonly ivfLists?: number;
  /** Rotated coordinates the coarse k-means runs on (≤ the code bits). Default 64. */
  readonly ivfDims?: number;
  /**
   * Where the float32 vectors live: "kernel" copies them once into the SIMD re-rank kernel's WebAssembly memory
   * and `index.vectors` is a view of that copy (drop your own array to keep one copy); "reference" keeps a
   * reference to the input (the kernel copies it on the first SIMD re-rank, as before). Default "kernel" when
   * SIMD is on by default and n · d ≥ SIMD_MIN_VALUES, else "reference".
   */
  readonly vectorStore?: "kernel" | "reference";
}

export interface PrefilterOptions {
  /**
   * Scan the codes with the WebAssembly SIMD kernel on a 4-bit quantised query (simd/code-scan.ts): approximate
   * scores within scale_i · D · Δ / 2 of the JS table scores (see the header), so the shortlist may differ. Default:
   * available, not turned off by TOOLGRAPH_NO_SIMD=1, and n ≥ SCAN_SIMD_MIN_N; false runs the JS tables.
   */
  readonly scanSimd?: boolean;
  /** Code words (32 bits each) scored by the stage-0 prefilter; 0 turns it off. Default 4 (128 bits). */
  readonly prefilterWords?: number;
  /** The prefilter keeps prefilterFactor × shortlist candidates. Default 8. */
  readonly prefilterFactor?: number;
}

export interface VectorSearchOptions extends PrefilterOptions {
  /** Minimum candidates re-ranked exactly; raised to N when smaller. Default 256. */
  readonly shortlist?: number;
  /**
   * Re-rank max(shortlist, ⌈fraction · n⌉) candidates. Default 0.01 (500 at n = 50k). The fine stage (IVF indexes)
   * re-ranks the candidates its bound keeps instead; there `shortlist` and this only decide whether the whole index
   * is re-ranked (when they reach n).
   */
  readonly shortlistFraction?: number;
  /**
   * Score the shortlist with the WebAssembly SIMD kernel (same result, see the header). Default: when available,
   * not turned off by TOOLGRAPH_NO_SIMD=1, and the index holds at least SIMD_MIN_VALUES floats; true forces it
   * wherever available; false runs the JS loop.
   */
  readonly simd?: boolean;
  /** Search through the IVF stage when the index has one (see the header). Default true; false runs the cascade. */
  readonly ivf?: boolean;
  /** The probed lists hold at least this fraction of n (in (0, 1]). Default: the index's calibrated fraction. */
  readonly ivfProbeFraction?: number;
  /** At least this many lists are probed. Default 2. */
  readonly ivfMinProbes?: number;
  /**
   * Score the probed lists on their 4-bit codes and re-rank the candidates the error bound keeps (the "fine" stage,
   * see the header; default true when the index has it); false: the 1-bit list scan and a shortlist re-rank.
   */
  readonly ivfFine?: boolean;
  /** The fine stage's bound multiplier ε (≥ 0; see the header). Default DEFAULTS.fineBound. */
  readonly fineBound?: number;
}

/**
 * Indexes with fewer vectors scan their codes in JS by default (a kernel memory is not worth it). 1,024: on the
 * 10k-tool latency project's intent memory (3,780 vectors, shortlist 256) the SIMD scan took 0.43–0.47 ms
 * against 0.59–0.97 ms for the JS tables, top-60 recall vs exact 0.9821 against 0.9823.
 */
export const SCAN_SIMD_MIN_N = 1024;

/** Indexes smaller than this many floats (n · d) re-rank in JS by default: a kernel memory is not worth it. */
export const SIMD_MIN_VALUES = 32_768;

export interface VectorIndex {
  /** Number of indexed vectors. */
  readonly n: number;
  /** Input dimension. */
  readonly d: number;
  /** Padded (power-of-two) rotated dimension = number of code bits. */
  readonly bits: number;
  /** The indexed vectors (a reference, row-major n × d). */
  readonly vectors: Float32Array;
  /** Corpus mean (length d). */
  readonly mean: Float64Array;
  /** Rotation signs, rounds × bits, ±1. */
  readonly signs: Float64Array;
  readonly rounds: number;
  /** Sign codes, n × bits/32 words; bit t of word w is rotated coordinate 32w + t (1 = positive). */
  readonly codes: Uint32Array;
  /** Per-vector scale s_i = mean |rotated coordinate|. */
  readonly scales: Float32Array;
  /**
   * The first `prefixWords` words of every code again, contiguous (n × prefixWords): the stage-0 prefilter reads
   * them sequentially, 16 bytes a vector instead of one 16-byte piece of every 64-byte code. Optional (an index
   * without it is scanned in `codes`).
   */
  readonly prefixCodes?: Uint32Array;
  readonly prefixWords?: number;
  /** The IVF stage (n ≥ ivfFrom). */
  readonly ivf?: IvfLists;
}

/** Inverted lists of the IVF stage: list l holds the vectors order[starts[l] .. starts[l] + sizes[l]). */
export interface IvfLists {
  readonly lists: number;
  /** lists × d list centroids in the input space (the mean of each list's vectors; zero for an empty list). */
  readonly centroids: Float32Array;
  /** ‖centroid_l‖². */
  readonly centroidNorms: Float64Array;
  /** First position of each list, a multiple of SCAN_BLOCK (length lists + 1). */
  readonly starts: Int32Array;
  readonly sizes: Int32Array;
  /** Vector id at each position (ascending within a list), −1 for padding. */
  readonly order: Int32Array;
  /** Share of n the probed lists hold by default, calibrated at build (see the header). */
  readonly probeFraction: number;
  /** The fine stage's 4-bit codes (built with the IVF stage when the SIMD kernels are available). */
  readonly fine?: FineCodes;
}

/**
 * 4-bit codes of the rotated centred vectors by list position (see the header, "Fine stage"): position p holds the
 * code of vector order[p] (zero for padding), two coordinates a byte, in the fine kernel's WebAssembly memory.
 */
export interface FineCodes {
  /** positions × bits/2 bytes (a view into the kernel's memory: read it, do not write it). */
  readonly codes: Uint8Array;
  /** Per position: α_i, the estimate's scale. */
  readonly scales: Float32Array;
  /** Per position: ‖e_i‖ = ‖R(x_i − μ) − α_i (c_i − 7.5)‖. */
  readonly residuals: Float32Array;
}

export type VectorHit = ScoredId;

const MODULE = "vector-index";

function checkMatrix(vectors: Float32Array, d: number): number {
  if (!Number.isInteger(d) || d <= 0) throw new SearchError(MODULE, "bad-dimension", `d must be a positive integer, got ${d}`);
  if (vectors.length % d !== 0) {
    throw new SearchError(MODULE, "bad-shape", `vectors.length ${vectors.length} is not a multiple of d = ${d}`);
  }
  return vectors.length / d;
}

function checkQuery(query: ArrayLike<number>, d: number): void {
  if (query.length !== d) throw new SearchError(MODULE, "bad-query", `query length ${query.length} differs from d = ${d}`);
  for (let i = 0; i < d; i++) {
    if (!Number.isFinite(query[i]!)) throw new SearchError(MODULE, "bad-query", `query[${i}] = ${query[i]} is not finite`);
  }
}

function checkTopN(topN: number): void {
  if (!Number.isInteger(topN) || topN < 0) throw new SearchError(MODULE, "bad-top-n", `topN must be a non-negative integer, got ${topN}`);
}

/** In-place normalised fast Walsh–Hadamard transform (length a power of two); orthogonal. */
export function fwht(buf: Float64Array): void {
  const n = buf.length;
  let h0 = 1;
  if (n >= 4) {
    // The first two butterfly levels fused (radix 4): the same sums as two passes with h = 1 and h = 2.
    for (let i = 0; i < n; i += 4) {
      const a = buf[i]!;
      const b = buf[i + 1]!;
      const c = buf[i + 2]!;
      const d = buf[i + 3]!;
      const s0 = a + b;
      const s1 = a - b;
      const s2 = c + d;
      const s3 = c - d;
      buf[i] = s0 + s2;
      buf[i + 1] = s1 + s3;
      buf[i + 2] = s0 - s2;
      buf[i + 3] = s1 - s3;
    }
    h0 = 4;
  }
  for (let h = h0; h < n; h <<= 1) {
    for (let i = 0; i < n; i += h << 1) {
      for (let j = i; j < i + h; j++) {
        const a = buf[j]!;
        const b = buf[j + h]!;
        buf[j] = a + b;
        buf[j + h] = a - b;
      }
    }
  }
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < n; i++) buf[i]! *= s;
}

function rotate(buf: Float64Array, signs: Float64Array, rounds: number): void {
  const D = buf.length;
  for (let r = 0; r < rounds; r++) {
    const o = r * D;
    for (let i = 0; i < D; i++) buf[i]! *= signs[o + i]!;
    fwht(buf);
  }
}

/** Builds the two-stage index over n × d row-major unit vectors. O(n · D log D). */
export function buildVectorIndex(vectors: Float32Array, d: number, options: VectorIndexOptions = {}): VectorIndex {
  const n = checkMatrix(vectors, d);
  const rounds = options.rounds ?? DEFAULTS.rounds;
  if (!Number.isInteger(rounds) || rounds < 1) throw new SearchError(MODULE, "bad-rounds", `rounds must be an integer ≥ 1, got ${rounds}`);
  const rng = options.rng ?? mulberry32(DEFAULTS.seed);
  let D = 64;
  while (D < d) D <<= 1;
  const words = D >> 5;

  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) mean[j]! += vectors[o + j]!;
  }
  if (n > 0) for (let j = 0; j < d; j++) mean[j]! /= n;

  const signs = new Float64Array(rounds * D);
  for (let i = 0; i < signs.length; i++) signs[i] = rng() < 0.5 ? -1 : 1;

  const codes = new Uint32Array(n * words);
  const scales = new Float32Array(n);
  const buf = new Float64Array(D);
  const store = options.vectorStore ?? (n * d >= SIMD_MIN_VALUES && simdByDefault() ? "kernel" : "reference");
  const kernel = store === "kernel" ? makeRowKernel(vectors, n, d) : undefined;
  const ivfFrom = options.ivfFrom ?? DEFAULTS.ivfFrom;
  // The IVF stage searches through the SIMD kernels only, and calibrates with the row kernel.
  const withIvf = kernel !== undefined && ivfFrom > 0 && n >= ivfFrom && D >= 128;
  const P = Math.min(options.ivfDims ?? DEFAULTS.ivfDims, D);
  const projected = withIvf ? new Float64Array(n * P) : undefined;
  const fine = withIvf ? { codes: new Uint8Array(n * (D >> 1)), scales: new Float32Array(n), residuals: new Float32Array(n) } : undefined;
  for (let i = 0; i < n; i++) {
    const o = i * d;
    buf.fill(0);
    for (let j = 0; j < d; j++) buf[j] = vectors[o + j]! - mean[j]!;
    rotate(buf, signs, rounds);
    if (projected) projected.set(buf.subarray(0, P), i * P);
    if (fine) fineCode(buf, fine, i);
    let l1 = 0;
    const co = i * words;
    for (let w = 0; w < words; w++) {
      let word = 0;
      for (let t = 0; t < 32; t++) {
        const v = buf[32 * w + t]!;
        if (v > 0) word |= 1 << t;
        l1 += v < 0 ? -v : v;
      }
      codes[co + w] = word >>> 0;
    }
    scales[i] = l1 / D;
  }
  const prefixWords = Math.min(DEFAULTS.prefilterWords, words);
  const prefixCodes = new Uint32Array(n * prefixWords);
  for (let i = 0; i < n; i++) prefixCodes.set(codes.subarray(i * words, i * words + prefixWords), i * prefixWords);
  const coarse = projected && kernel ? buildIvf(kernel.dots, projected, P, options.ivfLists ?? Math.ceil(DEFAULTS.ivfListsPerSqrtN * Math.sqrt(n)), rng) : undefined;
  const fineScan = coarse && fine ? u4Scan(coarse.order.length, D) : undefined;
  const ivf = coarse && fine && fineScan ? { ...coarse, fine: fineByPosition(fine, coarse.order, D, fineScan) } : coarse;
  const base = { n, d, bits: D, vectors, mean, signs, rounds, codes, scales, prefixCodes, prefixWords, ...(ivf ? { ivf } : {}) };
  if (!kernel) return base;
  // One copy: the index reads the kernel's rows (the kernel is used while index.vectors is that copy).
  const index = { ...base, vectors: kernel.dots.rows };
  rowKernels.set(index, { ...kernel, source: kernel.dots.rows });
  if (ivf?.fine && fineScan) {
    const centroidDots = f32RowDots(ivf.centroids, d);
    fineKernels.set(index, centroidDots ? { scan: fineScan, centroidDots, allLists: Int32Array.from({ length: ivf.lists }, (_, l) => l), source: ivf.fine.codes } : null);
  }
  return index;
}

/**
 * The 4-bit code of the rotated centred vector y = buf (length D) into fine at row i (see the header, "Fine
 * stage"): δ = fineStep · ‖y‖/√D, m_j = min(7, ⌊|y_j|/δ⌋), c_j = 8 + m_j if y_j > 0 else 7 − m_j (the top bit is
 * the sign bit), α = ‖y‖² / (y·(c − 7.5)) (0 when y = 0), ‖e‖ = ‖y − α(c − 7.5)‖.
 */
function fineCode(y: Float64Array, fine: { codes: Uint8Array; scales: Float32Array; residuals: Float32Array }, i: number): void {
  const D = y.length;
  let yy = 0;
  for (let j = 0; j < D; j++) yy += y[j]! * y[j]!;
  const delta = DEFAULTS.fineStep * Math.sqrt(yy / D);
  const o = i * (D >> 1);
  let yc = 0;
  for (let j = 0; j < D; j += 2) {
    const a = y[j]!;
    const b = y[j + 1]!;
    const ma = delta > 0 ? Math.min(7, Math.floor(Math.abs(a) / delta)) : 0;
    const mb = delta > 0 ? Math.min(7, Math.floor(Math.abs(b) / delta)) : 0;
    const ca = a > 0 ? 8 + ma : 7 - ma;
    const cb = b > 0 ? 8 + mb : 7 - mb;
    fine.codes[o + (j >> 1)] = ca | (cb << 4);
    yc += a * (ca - 7.5) + b * (cb - 7.5);
  }
  const alpha = yc > 0 ? yy / yc : 0;
  let ee = 0;
  for (let j = 0; j < D; j += 2) {
    const v = fine.codes[o + (j >> 1)]!;
    ee += (y[j]! - alpha * ((v & 15) - 7.5)) ** 2 + (y[j + 1]! - alpha * ((v >> 4) - 7.5)) ** 2;
  }
  fine.scales[i] = alpha;
  fine.residuals[i] = Math.sqrt(ee);
}

/** The fine codes by id, laid out by list position in the kernel's memory (padding: zero code, zero scale and residual). */
function fineByPosition(byId: { codes: Uint8Array; scales: Float32Array; residuals: Float32Array }, order: Int32Array, D: number, scan: U4Scan): FineCodes {
  const bytes = D >> 1;
  const scales = new Float32Array(order.length);
  const residuals = new Float32Array(order.length);
  for (let p = 0; p < order.length; p++) {
    const id = order[p]!;
    if (id < 0) continue;
    scan.codes.set(byId.codes.subarray(id * bytes, (id + 1) * bytes), p * bytes);
    scales[p] = byId.scales[id]!;
    residuals[p] = byId.residuals[id]!;
  }
  return { codes: scan.codes, scales, residuals };
}

/**
 * The coarse quantizer of the IVF stage: k-means (kmeans-pp.ts, k-means++ seeding, `DEFAULTS.ivfIterations` Lloyd
 * iterations) on a seeded sample of ivfTrainPerList · lists vectors, in the first P coordinates of the rotated
 * centred vectors (a random projection: the rotation spreads every direction evenly, so distances shrink by about
 * √(P/D) alike); every vector then joins its nearest centre (lowest index on ties; the dots x·c in float32 by the
 * SIMD row kernel over the centres when available, else in float64). The list centroids used at
 * query time are the means of the lists' vectors in the input space.
 */
function buildIvf(rows: F32RowDots, projected: Float64Array, P: number, wantedLists: number, rng: Rng): IvfLists | undefined {
  const n = projected.length / P;
  const d = rows.d;
  const vectors = rows.rows;
  if (!(Number.isInteger(wantedLists) && wantedLists >= 1)) throw new SearchError(MODULE, "bad-ivf-lists", `ivfLists must be an integer ≥ 1, got ${wantedLists}`);
  const lists = Math.min(wantedLists, n);
  const train = Math.min(n, DEFAULTS.ivfTrainPerList * lists);
  // A seeded sample without repetition: a partial Fisher–Yates shuffle of the ids.
  const ids = Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < train; k++) {
    const j = k + Math.floor(rng() * (n - k));
    const t = ids[k]!;
    ids[k] = ids[j]!;
    ids[j] = t;
  }
  const sample = new Float64Array(train * P);
  for (let k = 0; k < train; k++) sample.set(projected.subarray(ids[k]! * P, (ids[k]! + 1) * P), k * P);
  // Stop when fewer than 0.5 % of the sample change list: the lists only bound the probe, exactness is the re-rank's.
  const centres = kmeansPlusPlus(sample, P, lists, { rng, maxIterations: DEFAULTS.ivfIterations, changeTolerance: 0.005 }).centroids;
  const half = new Float64Array(lists);
  for (let l = 0; l < lists; l++) {
    let s = 0;
    for (let j = 0; j < P; j++) s += centres[l * P + j]! ** 2;
    half[l] = s / 2;
  }
  // Nearest centre: argmax x·c − ‖c‖²/2 (= argmin ‖x − c‖²), the dots by the SIMD row kernel over the centres.
  const assign = new Int32Array(n);
  const sizes = new Int32Array(lists);
  const centreKernel = f32RowDots(Float32Array.from(centres), P);
  if (centreKernel) {
    const all = Int32Array.from({ length: lists }, (_, l) => l);
    const out = new Float32Array(lists);
    for (let i = 0; i < n; i++) {
      centreKernel.dots(all, projected.subarray(i * P, (i + 1) * P), out);
      let best = 0;
      let bestScore = Number.NEGATIVE_INFINITY;
      for (let l = 0; l < lists; l++) {
        const score = out[l]! - half[l]!;
        if (score > bestScore) {
          bestScore = score;
          best = l;
        }
      }
      assign[i] = best;
      sizes[best]!++;
    }
  }
  for (let i = 0; i < n && !centreKernel; i++) {
    const o = i * P;
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let l = 0; l < lists; l++) {
      const c = l * P;
      let s0 = 0;
      let s1 = 0;
      for (let j = 0; j < P; j += 2) {
        s0 += projected[o + j]! * centres[c + j]!;
        s1 += projected[o + j + 1]! * centres[c + j + 1]!;
      }
      const score = s0 + s1 - half[l]!;
      if (score > bestScore) {
        bestScore = score;
        best = l;
      }
    }
    assign[i] = best;
    sizes[best]!++;
  }
  const starts = new Int32Array(lists + 1);
  for (let l = 0; l < lists; l++) starts[l + 1] = starts[l]! + Math.ceil(sizes[l]! / SCAN_BLOCK) * SCAN_BLOCK;
  const order = new Int32Array(starts[lists]!).fill(-1);
  const fill = starts.slice(0, lists);
  const sums = new Float64Array(lists * d);
  for (let i = 0; i < n; i++) {
    const l = assign[i]!;
    order[fill[l]!++] = i;
    for (let j = 0, o = i * d, c = l * d; j < d; j++) sums[c + j]! += vectors[o + j]!;
  }
  const centroids = new Float32Array(lists * d);
  const centroidNorms = new Float64Array(lists);
  for (let l = 0; l < lists; l++) {
    if (sizes[l] === 0) continue;
    let norm = 0;
    for (let j = 0; j < d; j++) {
      const v = Math.fround(sums[l * d + j]! / sizes[l]!);
      centroids[l * d + j] = v;
      norm += v * v;
    }
    centroidNorms[l] = norm;
  }
  const probeFraction = calibrateProbe(rows, ids.subarray(0, Math.min(n, DEFAULTS.ivfCalibrationQueries)), assign, centroids, centroidNorms, sizes);
  if (probeFraction > DEFAULTS.ivfMaxProbeFraction) return undefined;
  return { lists, centroids, centroidNorms, starts, sizes, order, probeFraction };
}

/**
 * The probe fraction of the IVF stage, measured on the data: for each calibration query (an indexed vector of the
 * seeded training sample), its exact top-K among the other vectors (the float32 row kernel) and the share of n held
 * by the nearest lists up to the farthest-ranked list holding one of them; the largest share times the margin,
 * at most 1. Data with little locality (neighbours spread over many lists) needs a large share, and then the index
 * keeps no IVF stage (buildIvf).
 */
function calibrateProbe(rows: F32RowDots, queries: Int32Array, assign: Int32Array, centroids: Float32Array, norms: Float64Array, sizes: Int32Array): number {
  const { n, d } = rows;
  const L = sizes.length;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const scores = new Float32Array(n);
  const dist = new Float64Array(L);
  const rank = new Int32Array(L);
  let worst = 0;
  for (const s of queries) {
    const q = rows.rows.subarray(s * d, (s + 1) * d);
    rows.dots(all, q, scores);
    scores[s] = Number.NEGATIVE_INFINITY;
    const top = topKIds(Float64Array.from(scores), n, DEFAULTS.ivfCalibrationK, new Float64Array(n));
    for (let l = 0; l < L; l++) {
      let x = 0;
      for (let j = 0; j < d; j++) x += centroids[l * d + j]! * q[j]!;
      dist[l] = sizes[l]! > 0 ? norms[l]! - 2 * x : Number.POSITIVE_INFINITY;
    }
    const byDistance = Array.from({ length: L }, (_, l) => l).sort((a, b) => dist[a]! - dist[b]! || a - b);
    byDistance.forEach((l, r) => {
      rank[l] = r;
    });
    let last = 0;
    for (const id of top) last = Math.max(last, rank[assign[id]!]!);
    let covered = 0;
    for (let r = 0; r <= last; r++) covered += sizes[byDistance[r]!]!;
    worst = Math.max(worst, covered / n);
  }
  return Math.min(1, worst * DEFAULTS.ivfProbeMargin);
}

let tableScratch = new Float64Array(0);

/** The rotated query Rq (length bits). */
function rotatedQuery(index: VectorIndex, query: ArrayLike<number>): Float64Array {
  const buf = new Float64Array(index.bits);
  for (let j = 0; j < index.d; j++) buf[j] = query[j]!;
  rotate(buf, index.signs, index.rounds);
  return buf;
}

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
    s0 += table[b | (c & 255)]! + table[b | 256 | ((c >>> 8) & 255)]! + table[b | 512 | ((c >>> 16) & 255)]! + table[b | 768 | (c >>> 24)]!;
    s1 +=
      table[b | 1024 | (e & 255)]! + table[b | 1280 | ((e >>> 8) & 255)]! + table[b | 1536 | ((e >>> 16) & 255)]! + table[b | 1792 | (e >>> 24)]!;
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
    throw new SearchError(MODULE, "bad-prefilter", `words must be an even integer in [2, ${index.bits >> 5}], got ${words}`);
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
export function codeShortlist(index: VectorIndex, query: ArrayLike<number>, size: number, options: PrefilterOptions = {}): Int32Array {
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
function simdShortlist(index: VectorIndex, scan: CodeScan, r: Float64Array, size: number, pw: number, keep: number): Int32Array {
  const n = index.n;
  const full = quantizeQuery(r, index.bits >> 7);
  if (!(pw > 0 && pw < index.bits >> 5 && n > 2 * keep && n >= FULL_SCAN_RATIO * keep)) return blockedTop(scan, full, n, size);
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
function blockedTop(scan: CodeScan, q: QuantizedQuery, n: number, k: number): Int32Array {
  const nBlocks = Math.ceil(n / SCAN_BLOCK);
  // The sample pass costs samples/n of a full one: n/25 samples, at least 1,024 (10k tools: 0.23 → 0.19 ms against
  // 4,096) and at most PREFIX_SAMPLES (a tighter cut where a full pass is dear).
  const step = Math.ceil(nBlocks / (Math.min(PREFIX_SAMPLES, Math.max(1024, Math.ceil(n / 25))) / SCAN_BLOCK));
  if (step <= 1) return sortedTop(scan.sampleBlocks(q, 1), n, k);
  const sample = scan.sampleBlocks(q, step);
  const sampled = scratchOf(Math.ceil(nBlocks / step) * SCAN_BLOCK, 1);
  let samples = 0;
  for (let b = 0; b < nBlocks; b += step) for (let i = b * SCAN_BLOCK, end = Math.min(n, i + SCAN_BLOCK); i < end; i++) sampled[samples++] = sample[i]!;
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

interface ScanKernel {
  readonly scan: CodeScan;
  /** The codes copied into the kernel (used only while index.codes is still it). */
  readonly source: Uint32Array;
}

/** SIMD code-scan kernels by index object: created on the first SIMD scan, collected with the index. */
const scanKernels = new WeakMap<VectorIndex, ScanKernel | null>();

/**
 * The SIMD kernel of an index, created once by `create` (null remembered when it cannot be) and used only while
 * the array it copied (`source`) is still the index's `current` one.
 */
function cachedKernel<K extends { readonly source: object }>(cache: WeakMap<VectorIndex, K | null>, index: VectorIndex, current: object, create: () => K | undefined): K | undefined {
  let k = cache.get(index);
  if (k === undefined) {
    k = create() ?? null;
    cache.set(index, k);
  }
  return k !== null && k.source === current ? k : undefined;
}

interface ListKernel {
  readonly scan: ListScan;
  /** q · centroid_l for every list. */
  readonly centroidDots: F32RowDots;
  readonly allLists: Int32Array;
  /** The codes the list layout was made from (used only while index.codes is still it). */
  readonly source: Uint32Array;
}

/** The IVF stage's kernels by index object: created on the first IVF search, collected with the index. */
const listKernels = new WeakMap<VectorIndex, ListKernel | null>();

function listKernel(index: VectorIndex): ListKernel | undefined {
  return cachedKernel(listKernels, index, index.codes, () => {
    const ivf = index.ivf;
    if (!ivf) return undefined;
    const scan = listScan(index.codes, index.bits >> 5, index.scales, ivf.order);
    const centroidDots = scan ? f32RowDots(ivf.centroids, index.d) : undefined;
    return scan && centroidDots ? { scan, centroidDots, allLists: Int32Array.from({ length: ivf.lists }, (_, l) => l), source: index.codes } : undefined;
  });
}

let probeOrder = new Float64Array(0);
let probeRanges = new Int32Array(0);

/**
 * The IVF stage (see the header): the lists whose centroids are nearest the query (‖c_l‖² − 2 q·c_l ascending,
 * lower index on ties) until they hold ivfProbeFraction · n vectors and number at least ivfMinProbes; every vector
 * of those lists scored on its full code (the blocked SIMD kernel, 4-bit query); the `size` best of them.
 */
function ivfShortlist(index: VectorIndex, k: ListKernel, q: Float64Array, size: number, options: VectorSearchOptions): Int32Array {
  const ivf = index.ivf!;
  const fraction = options.ivfProbeFraction ?? ivf.probeFraction;
  const minProbes = options.ivfMinProbes ?? DEFAULTS.ivfMinProbes;
  if (!(fraction > 0 && fraction <= 1)) throw new SearchError(MODULE, "bad-ivf-probe", `ivfProbeFraction must be in (0, 1], got ${fraction}`);
  if (!(Number.isInteger(minProbes) && minProbes >= 1)) throw new SearchError(MODULE, "bad-ivf-probe", `ivfMinProbes must be an integer ≥ 1, got ${minProbes}`);
  const order = probedLists(ivf, k.centroidDots, k.allLists, q, Math.max(size, Math.ceil(fraction * index.n)), minProbes);
  const probes = order.length;
  if (probeRanges.length < 2 * ivf.lists) probeRanges = new Int32Array(2 * ivf.lists);
  for (let p = 0; p < probes; p++) {
    probeRanges[2 * p] = ivf.starts[order[p]!]! / SCAN_BLOCK;
    probeRanges[2 * p + 1] = ivf.starts[order[p]! + 1]! / SCAN_BLOCK;
  }
  const hits = k.scan.scanRanges(quantizeQuery(rotatedQuery(index, q), index.bits >> 7), probeRanges, probes);
  if (hits.count <= size) return hits.ids.slice(0, hits.count);
  const vals = scratchOf(hits.count);
  for (let j = 0; j < hits.count; j++) vals[j] = hits.vals[j]!;
  const chosen = topKIds(vals, hits.count, size, scratchOf(hits.count, 1));
  for (let j = 0; j < chosen.length; j++) chosen[j] = hits.ids[chosen[j]!]!;
  return chosen;
}

/**
 * The lists to probe, nearest first (‖c_l‖² − 2 q·c_l ascending, lower index on ties): until they hold `target`
 * vectors and number at least `minProbes` (never an empty list).
 */
function probedLists(ivf: IvfLists, centroidDots: F32RowDots, allLists: Int32Array, q: Float64Array, target: number, minProbes: number): number[] {
  const L = ivf.lists;
  const cd = centroidDots.dots(allLists, q);
  if (probeOrder.length < L) probeOrder = new Float64Array(Math.max(L, 2 * probeOrder.length));
  const dist = probeOrder;
  for (let l = 0; l < L; l++) dist[l] = ivf.sizes[l]! > 0 ? ivf.centroidNorms[l]! - 2 * cd[l]! : Number.POSITIVE_INFINITY;
  // A few lists are probed: select the nearest remaining one each time (a taken list's distance becomes +∞).
  const order: number[] = [];
  let covered = 0;
  while (order.length < L && (covered < target || order.length < minProbes)) {
    let best = -1;
    let bestDist = Number.POSITIVE_INFINITY;
    for (let l = 0; l < L; l++) {
      if (dist[l]! < bestDist) {
        bestDist = dist[l]!;
        best = l;
      }
    }
    if (best < 0) break; // the rest are empty (infinite distance)
    dist[best] = Number.POSITIVE_INFINITY;
    order.push(best);
    covered += ivf.sizes[best]!;
  }
  return order;
}

interface FineKernel {
  readonly scan: U4Scan;
  /** q · centroid_l for every list. */
  readonly centroidDots: F32RowDots;
  readonly allLists: Int32Array;
  /** The fine codes (used only while index.ivf.fine.codes is still this view). */
  readonly source: Uint8Array;
}

/** The fine stage's kernels by index object: made at build (the codes live only in the kernel's memory). */
const fineKernels = new WeakMap<VectorIndex, FineKernel | null>();

function fineKernel(index: VectorIndex): FineKernel | undefined {
  const k = fineKernels.get(index);
  return k && k.source === index.ivf?.fine?.codes ? k : undefined;
}

let fineLower = new Float64Array(0);
let fineUpper = new Float64Array(0);
let fineIds = new Int32Array(0);

/**
 * The fine stage (see the header): the probed lists (as ivfShortlist, target ivfProbeFraction · n) scored on their
 * 4-bit codes, est_p = α_p · qs · (S_p − 7.5·K), bound_p = ε · ‖q‖ · ‖e_p‖ / √D + α_p · 3.75 · D · qs; the ids whose
 * est + bound reaches T, the topN-th largest est − bound (all probed ids when they are at most topN).
 */
function fineCandidates(index: VectorIndex, k: FineKernel, q: Float64Array, topN: number, options: VectorSearchOptions): { ids: Int32Array; upper: Float64Array } {
  const ivf = index.ivf!;
  const fine = ivf.fine!;
  const fraction = options.ivfProbeFraction ?? ivf.probeFraction;
  const minProbes = options.ivfMinProbes ?? DEFAULTS.ivfMinProbes;
  const eps = options.fineBound ?? DEFAULTS.fineBound;
  if (!(fraction > 0 && fraction <= 1)) throw new SearchError(MODULE, "bad-ivf-probe", `ivfProbeFraction must be in (0, 1], got ${fraction}`);
  if (!(Number.isInteger(minProbes) && minProbes >= 1)) throw new SearchError(MODULE, "bad-ivf-probe", `ivfMinProbes must be an integer ≥ 1, got ${minProbes}`);
  if (!(eps >= 0 && Number.isFinite(eps))) throw new SearchError(MODULE, "bad-fine-bound", `fineBound must be a finite number ≥ 0, got ${eps}`);
  const lists = probedLists(ivf, k.centroidDots, k.allLists, q, Math.max(topN, Math.ceil(fraction * index.n)), minProbes);
  if (probeRanges.length < 2 * ivf.lists) probeRanges = new Int32Array(2 * ivf.lists);
  for (let p = 0; p < lists.length; p++) {
    probeRanges[2 * p] = ivf.starts[lists[p]!]!;
    probeRanges[2 * p + 1] = ivf.starts[lists[p]!]! + ivf.sizes[lists[p]!]!;
  }
  const uq = quantizeU4Query(rotatedQuery(index, q), index.bits);
  const { sums, count } = k.scan.scanRanges(uq, probeRanges, lists.length);
  if (fineLower.length < count) {
    fineLower = new Float64Array(Math.max(count, 2 * fineLower.length));
    fineUpper = new Float64Array(fineLower.length);
    fineIds = new Int32Array(fineLower.length);
  }
  const lower = fineLower;
  const upper = fineUpper;
  const ids = fineIds;
  const scales = fine.scales;
  const residuals = fine.residuals;
  const order = ivf.order;
  let qq = 0;
  for (let j = 0; j < index.d; j++) qq += q[j]! * q[j]!;
  const spread = (eps * Math.sqrt(qq)) / Math.sqrt(index.bits);
  const offset = 7.5 * uq.sum;
  const step = uq.step;
  const quantErr = uq.errorBound;
  let c = 0;
  for (let p = 0; p < lists.length; p++) {
    const start = ivf.starts[lists[p]!]!;
    const end = start + ivf.sizes[lists[p]!]!;
    for (let pos = start; pos < end; pos++, c++) {
      const alpha = scales[pos]!;
      const est = alpha * step * (sums[c]! - offset);
      const bound = spread * residuals[pos]! + alpha * quantErr;
      lower[c] = est - bound;
      upper[c] = est + bound;
      ids[c] = order[pos]!;
    }
  }
  if (count <= topN) return { ids: ids.slice(0, count), upper: upper.slice(0, count) };
  const lows = scratchOf(count);
  lows.set(lower.subarray(0, count));
  const cut = kthLargestInPlace(lows, count, topN);
  let m = 0;
  for (let j = 0; j < count; j++) {
    if (upper[j]! >= cut) {
      upper[m] = upper[j]!;
      ids[m++] = ids[j]!;
    }
  }
  return { ids: ids.slice(0, m), upper: upper.slice(0, m) };
}

/** Rows the bounded re-rank scores between two checks of its stopping rule. */
const RERANK_BATCH = 16;

/**
 * Stage 2 of the fine stage: the exact top-N (dotAt's values, by the kernel's dots_f64) of `ids`, re-ranked in order of
 * their upper bounds (est + bound, in the estimate's units: add q·μ for a score), RERANK_BATCH rows at a time, stopping
 * when N rows are scored and the next upper bound + q·μ is below the N-th exact score: every row left would score
 * below it (while the bounds hold), so the answer equals re-ranking them all, with fewer rows read.
 */
function boundedRerank(index: VectorIndex, kernel: RowKernel, ids: Int32Array, upper: Float64Array, q: Float64Array, topN: number): VectorHit[] {
  const m = ids.length;
  const order = Array.from({ length: m }, (_, j) => j).sort((a, b) => upper[b]! - upper[a]! || ids[a]! - ids[b]!);
  let qMean = 0;
  for (let j = 0; j < index.d; j++) qMean += q[j]! * index.mean[j]!;
  const exact = new TopK(Math.min(topN, m));
  const batch = new Int32Array(RERANK_BATCH);
  const values = new Float64Array(RERANK_BATCH);
  for (let start = 0; start < m; start += RERANK_BATCH) {
    if (upper[order[start]!]! + qMean < exact.threshold) break;
    const size = Math.min(RERANK_BATCH, m - start);
    for (let t = 0; t < size; t++) batch[t] = ids[order[start + t]!]!;
    kernel.dots.exactDots(batch, size, q, values);
    for (let t = 0; t < size; t++) exact.offer(batch[t]!, values[t]!);
  }
  return exact.result();
}

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
export function simdScanScores(index: VectorIndex, query: ArrayLike<number>, words: number): { scores: Float64Array; bound: number } | undefined {
  checkQuery(query, index.d);
  if (!Number.isInteger(words) || words <= 0 || words % 4 !== 0 || words > index.bits >> 5) {
    throw new SearchError(MODULE, "bad-prefilter", `words must be a multiple of 4 in [4, ${index.bits >> 5}], got ${words}`);
  }
  const scan = scanKernel(index);
  if (!scan) return undefined;
  const q = quantizeQuery(rotatedQuery(index, query), words >> 2);
  return { scores: Float64Array.from(scan.scanAll(q)), bound: quantizedErrorBound(q) };
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

let idBuffer = new Int32Array(0);
/** A reusable id buffer of at least `size` entries, keeping its first `keepFirst` entries when it grows. */
function idScratch(size: number, keepFirst = 0): Int32Array {
  if (idBuffer.length < size) {
    const grown = new Int32Array(Math.max(size, 2 * idBuffer.length));
    grown.set(idBuffer.subarray(0, keepFirst));
    idBuffer = grown;
  }
  return idBuffer;
}

/** scratch[0] with room for `size` entries, keeping its first `keepFirst` values. */
function growScratch(size: number, keepFirst: number): Float64Array {
  const old = scratch[0];
  if (old.length < size) {
    scratch[0] = new Float64Array(Math.max(size, 2 * old.length));
    scratch[0].set(old.subarray(0, keepFirst));
  }
  return scratch[0];
}

/** Two reusable score buffers per module (the search is synchronous, so they are never shared in flight). */
const scratch: [Float64Array, Float64Array] = [new Float64Array(0), new Float64Array(0)];
function scratchOf(n: number, which: 0 | 1 = 0): Float64Array {
  if (scratch[which].length < n) scratch[which] = new Float64Array(Math.max(n, 2 * scratch[which].length));
  return scratch[which].subarray(0, n);
}

/** Top-N by approximate stage-1 score (after the stage-0 prefilter when n is large) then exact re-ranking. */
export function searchVectorIndex(
  index: VectorIndex,
  query: ArrayLike<number>,
  topN: number,
  options: VectorSearchOptions = {},
): VectorHit[] {
  checkQuery(query, index.d);
  checkTopN(topN);
  if (index.n === 0 || topN === 0) return [];
  const fraction = options.shortlistFraction ?? DEFAULTS.shortlistFraction;
  const wanted = Math.max(topN, options.shortlist ?? DEFAULTS.shortlist, Math.ceil(fraction * index.n));
  const shortlist = Math.min(index.n, wanted);
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const kernel = wantSimd(index, options) ? rowKernel(index) : undefined;
  if (kernel) {
    const fine = shortlist < index.n && index.ivf?.fine && options.ivf !== false && options.ivfFine !== false ? fineKernel(index) : undefined;
    if (fine) {
      const { ids, upper } = fineCandidates(index, fine, q, topN, options);
      return boundedRerank(index, kernel, ids, upper, q, topN);
    }
    const lists = shortlist < index.n && index.ivf && options.ivf !== false && (options.scanSimd ?? simdByDefault()) ? listKernel(index) : undefined;
    const ids =
      shortlist >= index.n ? Int32Array.from({ length: index.n }, (_, i) => i) : lists ? ivfShortlist(index, lists, q, shortlist, options) : codeShortlist(index, q, shortlist, options);
    return simdRerank(index, kernel, ids, q, topN) ?? rerank(index, ids, q, topN);
  }
  if (shortlist >= index.n) {
    const exact = new TopK(Math.min(topN, index.n));
    for (let i = 0; i < index.n; i++) exact.offer(i, dotAt(index.vectors, i * index.d, q, index.d));
    return exact.result();
  }
  return rerank(index, codeShortlist(index, q, shortlist, options), q, topN);
}

function wantSimd(index: VectorIndex, options: { readonly simd?: boolean }): boolean {
  return options.simd ?? (index.n * index.d >= SIMD_MIN_VALUES && simdByDefault());
}

/** Stage 2 alone: the exact top-N of the given ids (as searchVectorIndex re-ranks its shortlist; benchmarks). */
export function rerankIds(index: VectorIndex, ids: Int32Array, query: ArrayLike<number>, topN: number, options: { readonly simd?: boolean } = {}): VectorHit[] {
  checkQuery(query, index.d);
  checkTopN(topN);
  if (ids.length === 0 || topN === 0) return [];
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const kernel = wantSimd(index, options) ? rowKernel(index) : undefined;
  return (kernel && simdRerank(index, kernel, ids, q, topN)) ?? rerank(index, ids, q, topN);
}

/**
 * dotAt(index.vectors, ids[k]·d, q, d) for k < count, bit for bit: through the index's SIMD row kernel (dots_f64)
 * when re-ranking would use it (default: SIMD on and the index large enough), else dotAt itself. For callers that
 * need exact cosines of rows outside the vector channel's hits (the BM25-only and memory candidates of a search).
 */
export function exactRowDots(index: VectorIndex, ids: ArrayLike<number>, count: number, q: ArrayLike<number>, out: Float64Array = new Float64Array(count)): Float64Array {
  checkQuery(q, index.d);
  for (let k = 0; k < count; k++) {
    const id = ids[k]!;
    if (!(Number.isInteger(id) && id >= 0 && id < index.n)) throw new SearchError(MODULE, "bad-id", `id ${id} is not a row of the index (n = ${index.n})`);
  }
  const kernel = count > 0 && wantSimd(index, {}) ? rowKernel(index) : undefined;
  if (kernel) return kernel.dots.exactDots(ids, count, q, out);
  for (let k = 0; k < count; k++) out[k] = dotAt(index.vectors, ids[k]! * index.d, q, index.d);
  return out;
}

/** Exact top-N of `ids` by dotAt (the JS stage 2). */
function rerank(index: VectorIndex, ids: Int32Array, q: Float64Array, topN: number): VectorHit[] {
  const exact = new TopK(Math.min(topN, ids.length));
  for (const id of ids) exact.offer(id, dotAt(index.vectors, id * index.d, q, index.d));
  return exact.result();
}

interface RowKernel {
  readonly dots: F32RowDots;
  /** The array copied into the kernel (re-ranking uses the kernel only while index.vectors is still it). */
  readonly source: Float32Array;
  /** max_i ‖x_i‖₂, rounded up. */
  readonly maxNorm: number;
}

/** SIMD kernels by index object: created on the first SIMD re-rank, collected with the index. */
const rowKernels = new WeakMap<VectorIndex, RowKernel | null>();

function rowKernel(index: VectorIndex): RowKernel | undefined {
  return cachedKernel(rowKernels, index, index.vectors, () => makeRowKernel(index.vectors, index.n, index.d));
}

/** A SIMD row kernel over a copy of the n × d vectors (its `source` is the copy); undefined when unavailable. */
function makeRowKernel(vectors: Float32Array, n: number, d: number): RowKernel | undefined {
  {
    if (!(vectors.length === n * d && n > 0)) return undefined;
    let max = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = i * d; j < (i + 1) * d; j++) s += vectors[j]! * vectors[j]!;
      if (!(s <= max)) max = s; // NaN propagates
    }
    const maxNorm = Math.sqrt(max) * (1 + 1e-9);
    const dots = Number.isFinite(maxNorm) && maxNorm < 1e18 ? f32RowDots(vectors, d) : undefined;
    return dots ? { dots, source: vectors, maxNorm } : undefined;
  }
}

let simdScores = new Float32Array(0);
let simdSelect = new Float64Array(0);

/**
 * Top-N of `ids` equal to rerank's: SIMD scores, then dotAt on every id within 2ε of the N-th best SIMD score
 * (see the header). Undefined when the bound is not finite (the caller then runs the JS re-rank).
 */
let candidateIds = new Int32Array(0);

function simdRerank(index: VectorIndex, kernel: RowKernel, ids: Int32Array, q: Float64Array, topN: number): VectorHit[] | undefined {
  const m = ids.length;
  const top = Math.min(topN, m);
  let qq = 0;
  for (let j = 0; j < index.d; j++) qq += q[j]! * q[j]!;
  const qNorm = Math.sqrt(qq);
  if (!(qNorm < MAX_QUERY_ABS)) return undefined;
  const eps = (dotErrorFactor(index.d) * kernel.maxNorm * qNorm + dotUnderflowBound(index.d, kernel.maxNorm)) * (1 + 1e-9);
  if (simdScores.length < m) {
    simdScores = new Float32Array(Math.max(m, 2 * simdScores.length));
    simdSelect = new Float64Array(simdScores.length);
  }
  const scores = kernel.dots.dots(ids, q, simdScores.subarray(0, m));
  for (let k = 0; k < m; k++) simdSelect[k] = scores[k]!;
  const t = kthLargestInPlace(simdSelect, m, top);
  if (!Number.isFinite(t)) return undefined;
  const cut = t - 2 * eps;
  if (candidateIds.length < m) candidateIds = new Int32Array(Math.max(m, 2 * candidateIds.length));
  let c = 0;
  for (let k = 0; k < m; k++) if (scores[k]! >= cut) candidateIds[c++] = ids[k]!;
  // dotAt's value bit for bit, computed by the kernel (dots_f64) on its copy of the rows
  const values = kernel.dots.exactDots(candidateIds, c, q, simdSelect.subarray(0, c));
  const exact = new TopK(top);
  for (let k = 0; k < c; k++) exact.offer(candidateIds[k]!, values[k]!);
  return exact.result();
}

/**
 * Bytes the index holds: its typed arrays (the vectors counted once, also when the caller keeps a reference) and
 * the WebAssembly memories of the kernels created so far (benchmarks; the memory report).
 */
export function vectorIndexBytes(index: VectorIndex): number {
  let bytes = index.vectors.byteLength + index.mean.byteLength + index.signs.byteLength + index.codes.byteLength + index.scales.byteLength;
  bytes += index.prefixCodes?.byteLength ?? 0;
  bytes += simdScanBytes(index);
  if (index.ivf) bytes += index.ivf.centroids.byteLength + index.ivf.centroidNorms.byteLength + index.ivf.starts.byteLength + index.ivf.sizes.byteLength + index.ivf.order.byteLength;
  const lists = listKernels.get(index);
  if (lists) bytes += lists.scan.bytes + lists.centroidDots.bytes;
  const fine = fineKernels.get(index);
  if (index.ivf?.fine) bytes += index.ivf.fine.scales.byteLength + index.ivf.fine.residuals.byteLength;
  if (fine) bytes += fine.scan.bytes + fine.centroidDots.bytes;
  const row = rowKernels.get(index);
  if (row) bytes += row.dots.bytes - (index.vectors.buffer === row.dots.rows.buffer ? index.vectors.byteLength : 0);
  return bytes;
}

/** Exact top-N by a full float32 dot-product scan (the baseline and the ground truth). */
export function exactTopK(vectors: Float32Array, d: number, query: ArrayLike<number>, topN: number): VectorHit[] {
  const n = checkMatrix(vectors, d);
  checkQuery(query, d);
  checkTopN(topN);
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const heap = new TopK(Math.min(topN, n));
  let bar = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const s = dotAt(vectors, i * d, q, d);
    if (s >= bar) {
      heap.offer(i, s);
      bar = heap.threshold;
    }
  }
  return heap.result();
}
