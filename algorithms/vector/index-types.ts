/**
 * The shape of the staged vector index (algorithms/search/vector-index.ts has the overview and the entry points):
 * the index object, its DEFAULTS, the build and search options, and the argument checks every stage shares.
 * Each default's reason is in the comment beside it; the measurements are in docs/decisions/vector-index-anisotropic.md
 * and bench/results/vector-index-*.json.
 */
import type { Rng } from "../random/rng.ts";
import { SearchError } from "../search/search-error.ts";
import type { ScoredId } from "../search/top-k.ts";

export const DEFAULTS = {
  /** Minimum number of vectors re-scored exactly per query. */
  shortlist: 256,
  /**
   * The minimum shortlist holds for codes of this many bits; shorter codes (d < 512) re-rank
   * ⌈shortlist · √(shortlistBits / D)⌉: the 1-bit estimate's error grows as 1/√D. On anisotropic data, d ≤ 128, n ≈ 2k,
   * 256 rows gave recall@10 0.9875–0.994 and 512 gave 1.000 (docs/decisions/vector-index-anisotropic.md).
   */
  shortlistBits: 512,
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
  /**
   * Indexed vectors whose exact neighbours calibrate the probe fraction at build. 128, not 32: the fraction is the
   * largest one the sample needed, and with 32 the rare query whose neighbours sit in several lists was missed often
   * enough that held-out recall@10 fell to .978–.988 on small anisotropic sets (docs/decisions/ivf-calibration.md).
   */
  ivfCalibrationQueries: 128,
  /** Their neighbours: the probe must reach each one's top ivfCalibrationK. */
  ivfCalibrationK: 10,
  /** The calibrated fraction is the largest one the calibration queries needed, times this margin. */
  ivfProbeMargin: 1.25,
  /**
   * When the calibrated fraction exceeds this, the index keeps no IVF stage: at 100k × 512 a probe of 0.25 of n costs
   * as much as the full-code scan and 0.3–0.4 more (docs/decisions/ivf-calibration.md).
   */
  ivfMaxProbeFraction: 0.25,
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
  /** Graph stage (built when the IVF calibration drops the IVF stage): edges per vector. */
  graphDegree: 32,
  /** Edges a vector gets when it is inserted (its list may grow to graphDegree by later insertions). */
  graphInsertEdges: 16,
  /** Pool of the beam search that finds an inserting vector's candidates (hnswlib's efConstruction). */
  graphBuildPool: 64,
  /** Entry points of the beam search (the first vectors inserted). */
  graphEntries: 1,
  /**
   * With the IVF build's k-means cells (the graph is built where that stage is dropped): this share of the vectors
   * is inserted first, in a random order (the long edges), then the rest cell by cell, so that successive insertions
   * search the same region and find its codes in the caches (docs/decisions/vector-index-graph.md).
   */
  graphRandomHead: 0.1,
  /** The first this many IVF calibration queries (and their exact top-10) calibrate the graph's beam width. */
  graphCalibrationQueries: 128,
  /**
   * The calibrated beam width is the smallest of the ladder whose recall@10 over the calibration queries reaches this
   * (0.999 of 128 × 10 neighbours: at most one missed), times graphBeamMargin.
   */
  graphCalibrationRecall: 0.999,
  /** See graphCalibrationRecall: 1 (measured: the fresh queries' recall at the width found was no lower). */
  graphBeamMargin: 1,
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
   * Keep the IVF stage only when its calibrated probe fraction is at most this (in (0, 1]). Default 0.25: above it the
   * full-code scan is faster. 1 keeps it on any data (to measure its speed–recall frontier).
   */
  readonly ivfMaxProbeFraction?: number;
  /**
   * Where the float32 vectors live: "kernel" copies them once into the SIMD re-rank kernel's WebAssembly memory
   * and `index.vectors` is a view of that copy (drop your own array to keep one copy); "reference" keeps a
   * reference to the input (the kernel copies it on the first SIMD re-rank, as before). Default "kernel" when
   * SIMD is on by default and n · d ≥ SIMD_MIN_VALUES, else "reference".
   */
  readonly vectorStore?: "kernel" | "reference";
  /**
   * Build the graph stage where the IVF calibration drops the IVF stage (algorithms/vector/graph.ts). Default false
   * (its build does not yet fit the budget, docs/decisions/vector-index-graph.md): the full-code scan there.
   */
  readonly graph?: boolean;
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
  /** Minimum candidates re-ranked exactly; raised to N when smaller. Default 256 (scaled up for d < 512: DEFAULTS.shortlistBits). */
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
  /** Search through the graph stage when the index has one. Default true; false runs the cascade. */
  readonly graph?: boolean;
  /** The graph stage's beam width (an integer ≥ 1). Default: the index's calibrated width. */
  readonly graphBeam?: number;
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
  /** The graph stage (n ≥ ivfFrom and the IVF stage dropped by its calibration). */
  readonly graph?: GraphStage;
}

/** The graph stage (algorithms/vector/graph.ts): a proximity graph over the 4-bit codes. */
export interface GraphStage {
  /** Most edges a vector has. */
  readonly degree: number;
  /**
   * Neighbour ids (a view into the kernel's memory: read it only): n × degree int32, −1 padding at the end of a row,
   * or, with `offsets`, compact rows of 3-byte little-endian ids (a Uint8Array; i's neighbours are the ids
   * offsets[i] .. offsets[i + 1] − 1, i.e. bytes 3·offsets[i] .. 3·offsets[i + 1]).
   */
  readonly neighbors: Int32Array | Uint8Array;
  /** Row starts of the compact rows (n + 1, in ids; a view into the kernel's memory), when the rows are compact. */
  readonly offsets?: Int32Array;
  /** Entry points of the beam search (a view into the kernel's memory: read it only). */
  readonly entries: Int32Array;
  /** n × bits/2 bytes of 4-bit codes by id (a view into the kernel's memory: read it, do not write it). */
  readonly codes: Uint8Array;
  /** α_i (a view into the kernel's memory) and ‖e_i‖ by id (fine-codes.ts). */
  readonly scales: Float32Array;
  readonly residuals: Float32Array;
  /** The beam width searches use by default, calibrated at build. */
  readonly beam: number;
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

export const MODULE = "vector-index";

export function checkMatrix(vectors: Float32Array, d: number): number {
  if (!Number.isInteger(d) || d <= 0)
    throw new SearchError(MODULE, "bad-dimension", `d must be a positive integer, got ${d}`);
  if (vectors.length % d !== 0) {
    throw new SearchError(MODULE, "bad-shape", `vectors.length ${vectors.length} is not a multiple of d = ${d}`);
  }
  return vectors.length / d;
}

export function checkQuery(query: ArrayLike<number>, d: number): void {
  if (query.length !== d)
    throw new SearchError(MODULE, "bad-query", `query length ${query.length} differs from d = ${d}`);
  for (let i = 0; i < d; i++) {
    if (!Number.isFinite(query[i]!))
      throw new SearchError(MODULE, "bad-query", `query[${i}] = ${query[i]} is not finite`);
  }
}

export function checkTopN(topN: number): void {
  if (!Number.isInteger(topN) || topN < 0)
    throw new SearchError(MODULE, "bad-top-n", `topN must be a non-negative integer, got ${topN}`);
}
