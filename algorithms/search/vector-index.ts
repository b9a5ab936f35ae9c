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
 * Centring matters: embeddings share a large mean component, so un-centred sign bits are nearly identical
 * for every vector. The rotation spreads energy evenly over coordinates so each bit carries information.
 *
 * Sources: sign random projections (Charikar, "Similarity estimation techniques from rounding algorithms",
 * STOC 2002); randomised Hadamard rotations (Ailon & Chazelle, "The fast Johnson–Lindenstrauss transform",
 * 2009); asymmetric binary scoring with a per-vector scale and exact re-ranking (Gao & Long, "RaBitQ", SIGMOD
 * 2024; its error bound only in the fine stage below); byte lookup tables (Jégou et al., product quantization ADC, 2011).
 *
 * Vectors held once (`vectorStore: "kernel"`, the default with SIMD from SIMD_MIN_VALUES floats): the build copies
 * the vectors into the re-rank kernel's WebAssembly memory and `index.vectors` is a view of that copy, so a caller
 * that keeps index.vectors instead of its own array holds them once. "reference" keeps the caller's array.
 *
 * Contract: the index reads `vectors` (or its kernel copy) for re-ranking; do not mutate it afterwards (the SIMD copy
 * would not see the change). Scores are dot products, i.e. cosines when inputs are unit vectors (not checked,
 * for speed).
 *
 * Layout: this file builds the index and routes a query through its stages; each stage lives in its own file under
 * algorithms/vector/: index-types.ts (the index shape, DEFAULTS and options), rotation.ts (the randomised Hadamard
 * transform), sign-codes.ts (stages 0 and 1: the 1-bit codes, their tables, prefix cascade and SIMD scans),
 * ivf.ts (the inverted lists and their probe calibration), fine-codes.ts (the 4-bit codes and the bounded re-rank),
 * exact-rerank.ts (stage 2: the exact re-rank and the float32 row kernel), graph.ts (the opt-in graph stage where the
 * IVF calibration drops the IVF stage), scratch.ts (reusable buffers and the per-index kernel caches). Measurements
 * and the choice of defaults: docs/decisions/vector-index-anisotropic.md, docs/decisions/vector-index-graph.md.
 */
import { dotAt } from "../linalg/dot.ts";
import { mulberry32 } from "../random/rng.ts";
import { f32RowDots, simdByDefault } from "../simd/row-dots.ts";
import { u4GraphScan, u4Scan } from "../simd/u4-scan.ts";
import { makeRowKernelSteps, rerank, rowKernel, rowKernels, simdRerank, wantSimd } from "../vector/exact-rerank.ts";
import {
  boundedRerank,
  fineByPosition,
  fineCandidates,
  fineCode,
  fineKernel,
  fineKernels,
} from "../vector/fine-codes.ts";
import {
  checkMatrix,
  checkQuery,
  checkTopN,
  DEFAULTS,
  type GraphStage,
  MODULE,
  SIMD_MIN_VALUES,
  type VectorHit,
  type VectorIndex,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from "../vector/index-types.ts";
import { buildGraph, calibrateBeam, graphKernel, graphKernels, graphSearch } from "../vector/graph.ts";
import { buildIvfSteps, ivfShortlist, listKernel, listKernels } from "../vector/ivf.ts";
import { rotate } from "../vector/rotation.ts";
import { codeShortlist, signCode, simdScanBytes } from "../vector/sign-codes.ts";
import { SearchError } from "./search-error.ts";
import { TopK } from "./top-k.ts";

export { APPEND_ROWS_PER_STEP, appendVectorIndex, appendVectorIndexSteps } from "../vector/append.ts";
export { exactRowDots, exactTopK, rerankIds } from "../vector/exact-rerank.ts";
export {
  DEFAULTS,
  type FineCodes,
  type IvfLists,
  type PrefilterOptions,
  SCAN_SIMD_MIN_N,
  SIMD_MIN_VALUES,
  type VectorHit,
  type VectorIndex,
  type VectorIndexOptions,
  type VectorSearchOptions,
} from "../vector/index-types.ts";
export { fwht } from "../vector/rotation.ts";
export {
  approximateScores,
  codeShortlist,
  FULL_SCAN_RATIO,
  prefixScores,
  simdScanBytes,
  simdScanScores,
} from "../vector/sign-codes.ts";

/** Builds the two-stage index over n × d row-major unit vectors. O(n · D log D). */
export function buildVectorIndex(vectors: Float32Array, d: number, options: VectorIndexOptions = {}): VectorIndex {
  const steps = buildVectorIndexSteps(vectors, d, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The steps of a sub-build (the IVF stage's), each a pause of buildVectorIndexSteps reporting `rows` coded. */
function* pausing<T>(steps: Generator<void, T, void>, rows: number): Generator<number, T, void> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    yield rows;
  }
}

/** Rows of the coding pass between two pauses of buildVectorIndexSteps. */
export const BUILD_ROWS_PER_STEP = 64;

/**
 * buildVectorIndex as a generator that pauses (yields the rows coded so far) after every `rowsPerStep` rows of
 * the mean, after the mean, through the SIMD row kernel's set-up (yielding 0: after every `rowsPerStep` rows of
 * its norm pass, its memory's allocation and every `rowsPerStep` rows copied into it, then after the coding
 * pass's arrays are allocated) and after every `rowsPerStep` rows of the coding pass, so a caller can return to
 * its event loop between steps (no step holds it for long: docs/decisions/gateway-first-answer.md); the index
 * is the generator's return value, identical to buildVectorIndex's (same work in the same order). The IVF
 * stage (n ≥ ivfFrom) pauses too (yielding n): after its k-means, through its assignment and list sums, after
 * each calibration query (ivf.ts buildIvfSteps), and once more after the fine codes are laid out by list.
 */
export function* buildVectorIndexSteps(
  vectors: Float32Array,
  d: number,
  options: VectorIndexOptions = {},
  rowsPerStep: number = BUILD_ROWS_PER_STEP,
): Generator<number, VectorIndex, void> {
  if (!(Number.isInteger(rowsPerStep) && rowsPerStep >= 1))
    throw new SearchError(MODULE, "bad-rows-per-step", `rowsPerStep must be an integer ≥ 1, got ${rowsPerStep}`);
  const n = checkMatrix(vectors, d);
  const rounds = options.rounds ?? DEFAULTS.rounds;
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new SearchError(MODULE, "bad-rounds", `rounds must be an integer ≥ 1, got ${rounds}`);
  const rng = options.rng ?? mulberry32(DEFAULTS.seed);
  let D = 64;
  while (D < d) D <<= 1;
  const words = D >> 5;

  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) mean[j]! += vectors[o + j]!;
    if ((i + 1) % rowsPerStep === 0 && i + 1 < n) yield 0;
  }
  if (n > 0) for (let j = 0; j < d; j++) mean[j]! /= n;
  yield 0;

  const signs = new Float64Array(rounds * D);
  for (let i = 0; i < signs.length; i++) signs[i] = rng() < 0.5 ? -1 : 1;

  const codes = new Uint32Array(n * words);
  const scales = new Float32Array(n);
  const buf = new Float64Array(D);
  const store = options.vectorStore ?? (n * d >= SIMD_MIN_VALUES && simdByDefault() ? "kernel" : "reference");
  const kernel = store === "kernel" ? yield* pausing(makeRowKernelSteps(vectors, n, d, rowsPerStep), 0) : undefined;
  const ivfFrom = options.ivfFrom ?? DEFAULTS.ivfFrom;
  // The IVF stage searches through the SIMD kernels only, and calibrates with the row kernel.
  const withIvf = kernel !== undefined && ivfFrom > 0 && n >= ivfFrom && D >= 128;
  const P = Math.min(options.ivfDims ?? DEFAULTS.ivfDims, D);
  const projected = withIvf ? new Float64Array(n * P) : undefined;
  const fine = withIvf
    ? { codes: new Uint8Array(n * (D >> 1)), scales: new Float32Array(n), residuals: new Float32Array(n) }
    : undefined;
  if (kernel) yield 0;
  for (let i = 0; i < n; i++) {
    const o = i * d;
    buf.fill(0);
    for (let j = 0; j < d; j++) buf[j] = vectors[o + j]! - mean[j]!;
    rotate(buf, signs, rounds);
    if (projected) projected.set(buf.subarray(0, P), i * P);
    if (fine) fineCode(buf, fine, i);
    scales[i] = signCode(buf, codes, i * words, words);
    if ((i + 1) % rowsPerStep === 0 && i + 1 < n) yield i + 1;
  }
  yield n;
  const prefixWords = Math.min(DEFAULTS.prefilterWords, words);
  const prefixCodes = new Uint32Array(n * prefixWords);
  for (let i = 0; i < n; i++) prefixCodes.set(codes.subarray(i * words, i * words + prefixWords), i * prefixWords);
  const built =
    projected && kernel
      ? yield* pausing(
          buildIvfSteps(
            kernel.dots,
            projected,
            P,
            options.ivfLists ?? Math.ceil(DEFAULTS.ivfListsPerSqrtN * Math.sqrt(n)),
            rng,
            options.ivfMaxProbeFraction,
            options.graph === true ? DEFAULTS.graphCalibrationQueries : 0,
          ),
          n,
        )
      : undefined;
  const coarse = built?.lists;
  const fineScan = coarse && fine ? u4Scan(coarse.order.length, D) : undefined;
  const ivf =
    coarse && fine && fineScan ? { ...coarse, fine: fineByPosition(fine, coarse.order, D, fineScan) } : coarse;
  if (built) yield n;
  const base = {
    n,
    d,
    bits: D,
    vectors,
    mean,
    signs,
    rounds,
    codes,
    scales,
    prefixCodes,
    prefixWords,
    ...(ivf ? { ivf } : {}),
  };
  if (!kernel) return base;
  // The graph stage where the IVF calibration dropped the IVF stage (neighbours spread over most lists).
  const buildScan =
    built && !coarse && fine && options.graph === true
      ? u4GraphScan(n, D, Math.min(DEFAULTS.graphDegree, Math.max(1, n - 1)), Math.min(n, DEFAULTS.graphEntries))
      : undefined;
  let graph: GraphStage | undefined;
  let graphScan: ReturnType<typeof buildGraph>["scan"] | undefined;
  if (built && fine && buildScan) {
    buildScan.codes.set(fine.codes);
    const rotatedMean = new Float64Array(D);
    rotatedMean.set(mean);
    rotate(rotatedMean, signs, rounds);
    // The build kernel is dropped here: the graph is served from the compact copy buildGraph returns.
    const made = buildGraph({
      n,
      D,
      scan: buildScan,
      scales: fine.scales,
      residuals: fine.residuals,
      rotatedMean,
      rng,
      ...(built.cells ? { cells: built.cells } : {}),
    });
    const beam = calibrateBeam(
      { ...base, vectors: kernel.dots.rows },
      { ...made.stage, beam: 0 },
      made.scan,
      kernel,
      built.calibration.queries.subarray(0, DEFAULTS.graphCalibrationQueries),
      built.calibration.truth.slice(0, DEFAULTS.graphCalibrationQueries),
    );
    // No ladder width reached the calibration recall: the graph is not worth its searches.
    if (beam !== undefined) {
      graph = { ...made.stage, beam };
      graphScan = made.scan;
    }
  }
  // One copy: the index reads the kernel's rows (the kernel is used while index.vectors is that copy). Where the graph
  // serves, the prefilter's contiguous prefix copy is dropped (the cascade, graph: false, reads the prefix strided).
  const { prefixCodes: _, prefixWords: __, ...unprefixed } = base;
  const index = graph ? { ...unprefixed, vectors: kernel.dots.rows, graph } : { ...base, vectors: kernel.dots.rows };
  rowKernels.set(index, { ...kernel, source: kernel.dots.rows });
  if (graph && graphScan) graphKernels.set(index, { scan: graphScan, source: graph.codes });
  if (ivf?.fine && fineScan) {
    const centroidDots = f32RowDots(ivf.centroids, d);
    fineKernels.set(
      index,
      centroidDots
        ? {
            scan: fineScan,
            centroidDots,
            allLists: Int32Array.from({ length: ivf.lists }, (_, l) => l),
            source: ivf.fine.codes,
          }
        : null,
    );
  }
  return index;
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
  const minimum =
    options.shortlist ?? Math.ceil(DEFAULTS.shortlist * Math.sqrt(Math.max(1, DEFAULTS.shortlistBits / index.bits)));
  const wanted = Math.max(topN, minimum, Math.ceil(fraction * index.n));
  const shortlist = Math.min(index.n, wanted);
  const q = query instanceof Float64Array ? query : Float64Array.from(query as ArrayLike<number>);
  const kernel = wantSimd(index, options) ? rowKernel(index) : undefined;
  if (kernel) {
    const graph = shortlist < index.n && index.graph && options.graph !== false ? graphKernel(index) : undefined;
    if (graph && index.graph) {
      const beam = options.graphBeam ?? index.graph.beam;
      if (!(Number.isInteger(beam) && beam >= 1))
        throw new SearchError(MODULE, "bad-graph-beam", `graphBeam must be an integer ≥ 1, got ${beam}`);
      const eps = options.fineBound ?? DEFAULTS.fineBound;
      if (!(eps >= 0 && Number.isFinite(eps)))
        throw new SearchError(MODULE, "bad-fine-bound", `fineBound must be a finite number ≥ 0, got ${eps}`);
      return graphSearch(index, index.graph, graph.scan, kernel, q, topN, beam, eps);
    }
    const fine =
      shortlist < index.n && index.ivf?.fine && options.ivf !== false && options.ivfFine !== false
        ? fineKernel(index)
        : undefined;
    if (fine) {
      const { ids, upper } = fineCandidates(index, fine, q, topN, options);
      return boundedRerank(index, kernel, ids, upper, q, topN);
    }
    const lists =
      shortlist < index.n && index.ivf && options.ivf !== false && (options.scanSimd ?? simdByDefault())
        ? listKernel(index)
        : undefined;
    const ids =
      shortlist >= index.n
        ? Int32Array.from({ length: index.n }, (_, i) => i)
        : lists
          ? ivfShortlist(index, lists, q, shortlist, options)
          : codeShortlist(index, q, shortlist, options);
    return simdRerank(index, kernel, ids, q, topN) ?? rerank(index, ids, q, topN);
  }
  if (shortlist >= index.n) {
    const exact = new TopK(Math.min(topN, index.n));
    for (let i = 0; i < index.n; i++) exact.offer(i, dotAt(index.vectors, i * index.d, q, index.d));
    return exact.result();
  }
  return rerank(index, codeShortlist(index, q, shortlist, options), q, topN);
}

/**
 * Bytes the index holds: its typed arrays (the vectors counted once, also when the caller keeps a reference) and
 * the WebAssembly memories of the kernels created so far (benchmarks; the memory report).
 */
export function vectorIndexBytes(index: VectorIndex): number {
  let bytes =
    index.vectors.byteLength +
    index.mean.byteLength +
    index.signs.byteLength +
    index.codes.byteLength +
    index.scales.byteLength;
  bytes += index.prefixCodes?.byteLength ?? 0;
  bytes += simdScanBytes(index);
  if (index.ivf)
    bytes +=
      index.ivf.centroids.byteLength +
      index.ivf.centroidNorms.byteLength +
      index.ivf.starts.byteLength +
      index.ivf.sizes.byteLength +
      index.ivf.order.byteLength;
  const lists = listKernels.get(index);
  if (lists) bytes += lists.scan.bytes + lists.centroidDots.bytes;
  const fine = fineKernels.get(index);
  if (index.ivf?.fine) bytes += index.ivf.fine.scales.byteLength + index.ivf.fine.residuals.byteLength;
  if (fine) bytes += fine.scan.bytes + fine.centroidDots.bytes;
  // The graph's codes, neighbour lists, scales and entry points live in its kernel's memory (counted with it).
  if (index.graph) bytes += index.graph.residuals.byteLength;
  const graph = graphKernels.get(index);
  if (graph) bytes += graph.scan.bytes;
  const row = rowKernels.get(index);
  if (row) bytes += row.dots.bytes - (index.vectors.buffer === row.dots.rows.buffer ? index.vectors.byteLength : 0);
  return bytes;
}
