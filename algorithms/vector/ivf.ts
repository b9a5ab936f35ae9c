/**
 * The IVF stage of the staged vector index: coarse k-means lists, their probe calibration at build, and the
 * lists a query probes.
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * IVF stage (n ≥ ivfFrom = 20,000, SIMD available): an inverted-file coarse quantizer before the code scan
 * (Jégou, Douze & Schmid, "Product quantization for nearest neighbor search", TPAMI 2011, §IV: IVFADC; Sivic &
 * Zisserman, "Video Google", 2003). L = ⌈0.5·√n⌉ lists from k-means (spectral/kmeans-pp.ts, seeded `rng`, drawn
 * after the rotation signs) on a sample of 32·L vectors in the first 64 coordinates of R(x − μ) (a random
 * projection); every vector joins its nearest centre. A query ranks the lists by ‖c_l‖² − 2 q·c_l (c_l the mean of
 * list l in the input space, i.e. by ‖q − c_l‖), scores every vector of the nearest lists on its full code (the
 * blocked SIMD kernel over a list-ordered copy of the codes, code-scan.ts `listScan`) until they hold
 * probeFraction · n vectors (at least 2 lists), and re-ranks the shortlist exactly as stage 2 does. probeFraction
 * is measured at build: for 128 sampled indexed vectors, the share of n in the nearest lists up to the farthest one
 * holding one of the vector's exact top-10 (float32 row kernel), the largest share × 1.25 (the sample stops early
 * once the stage is dropped). When that exceeds 0.25 (`ivfMaxProbeFraction`; data whose neighbours spread over many
 * lists, where the full-code scan is faster) the index keeps no IVF stage: docs/decisions/ivf-calibration.md.
 * Measured with bench/vector-index-bench.ts (bench/results/vector-index-*.json); on anisotropic data no probe width
 * trades well (probe 0.05 of n: recall@10 .66; 0.3: .95 at the cost of a full scan):
 * docs/decisions/vector-index-anisotropic.md.
 */
import type { Rng } from "../random/rng.ts";
import { SearchError } from "../search/search-error.ts";
import { topKIds } from "../search/top-k.ts";
import { type ListScan, listScan, quantizeQuery, SCAN_BLOCK } from "../simd/code-scan.ts";
import { type F32RowDots, f32RowDots } from "../simd/row-dots.ts";
import { kmeansPlusPlusSteps } from "../spectral/kmeans-pp.ts";
import { DEFAULTS, type IvfLists, MODULE, type VectorIndex, type VectorSearchOptions } from "./index-types.ts";
import { rotatedQuery } from "./rotation.ts";
import { cachedKernel, scratchOf } from "./scratch.ts";

/**
 * The coarse quantizer of the IVF stage: k-means (kmeans-pp.ts, k-means++ seeding, `DEFAULTS.ivfIterations` Lloyd
 * iterations) on a seeded sample of ivfTrainPerList · lists vectors, in the first P coordinates of the rotated
 * centred vectors (a random projection: the rotation spreads every direction evenly, so distances shrink by about
 * √(P/D) alike); every vector then joins its nearest centre (lowest index on ties; the dots x·c in float32 by the
 * SIMD row kernel over the centres when available, else in float64). The list centroids used at
 * query time are the means of the lists' vectors in the input space.
 */
export function buildIvf(
  rows: F32RowDots,
  projected: Float64Array,
  P: number,
  wantedLists: number,
  rng: Rng,
  maxProbeFraction: number = DEFAULTS.ivfMaxProbeFraction,
  measureWhenDropped = 0,
): { lists?: IvfLists; calibration: IvfCalibration; cells?: Int32Array } {
  const steps = buildIvfSteps(rows, projected, P, wantedLists, rng, maxProbeFraction, measureWhenDropped);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Rows of the IVF build's assignment pass between two pauses of buildIvfSteps (and 4× that of its list sums). */
export const IVF_ROWS_PER_STEP = 1024;

/**
 * buildIvf as a generator (the same work in the same order, the same lists): it pauses after the k-means, every
 * IVF_ROWS_PER_STEP rows of the assignment, every 4 · IVF_ROWS_PER_STEP rows of the list sums and after each
 * calibration query (a scan of all n rows), so that a caller can return to its event loop between steps.
 * `measureWhenDropped`: calibration queries measured even once the stage is known to be dropped (the graph stage
 * calibrates its beam on them); the calibration stops there. When the stage is dropped, `cells` is each vector's
 * k-means list (the graph stage inserts cell by cell: algorithms/vector/graph.ts).
 */
export function* buildIvfSteps(
  rows: F32RowDots,
  projected: Float64Array,
  P: number,
  wantedLists: number,
  rng: Rng,
  maxProbeFraction: number = DEFAULTS.ivfMaxProbeFraction,
  measureWhenDropped = 0,
): Generator<void, { lists?: IvfLists; calibration: IvfCalibration; cells?: Int32Array }, void> {
  const n = projected.length / P;
  const d = rows.d;
  const vectors = rows.rows;
  if (!(Number.isInteger(wantedLists) && wantedLists >= 1))
    throw new SearchError(MODULE, "bad-ivf-lists", `ivfLists must be an integer ≥ 1, got ${wantedLists}`);
  if (!(maxProbeFraction > 0 && maxProbeFraction <= 1))
    throw new SearchError(MODULE, "bad-ivf-probe", `ivfMaxProbeFraction must be in (0, 1], got ${maxProbeFraction}`);
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
  const centres = (yield* kmeansPlusPlusSteps(sample, P, lists, {
    rng,
    maxIterations: DEFAULTS.ivfIterations,
    changeTolerance: 0.005,
  })).centroids;
  yield;
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
      if ((i + 1) % IVF_ROWS_PER_STEP === 0) yield;
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
    if ((i + 1) % IVF_ROWS_PER_STEP === 0) yield;
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
    if ((i + 1) % (4 * IVF_ROWS_PER_STEP) === 0) yield;
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
  const calibration = yield* calibrateProbe(
    rows,
    ids.slice(0, Math.min(n, DEFAULTS.ivfCalibrationQueries)),
    assign,
    centroids,
    centroidNorms,
    sizes,
    maxProbeFraction,
    measureWhenDropped,
  );
  const probeFraction = calibration.probeFraction;
  if (probeFraction > maxProbeFraction) return { calibration, cells: assign };
  return { lists: { lists, centroids, centroidNorms, starts, sizes, order, probeFraction }, calibration };
}

/** The IVF calibration's measurements: its queries (indexed ids), their exact top-K among the others, the fraction. */
export interface IvfCalibration {
  readonly queries: Int32Array;
  readonly truth: Int32Array[];
  readonly probeFraction: number;
}

/**
 * The probe fraction of the IVF stage, measured on the data: for each calibration query (an indexed vector of the
 * seeded training sample), its exact top-K among the other vectors (the float32 row kernel) and the share of n held
 * by the nearest lists up to the farthest-ranked list holding one of them; the largest share times the margin,
 * at most 1. Data with little locality (neighbours spread over many lists) needs a large share, and then the index
 * keeps no IVF stage (buildIvf).
 */
function* calibrateProbe(
  rows: F32RowDots,
  queries: Int32Array,
  assign: Int32Array,
  centroids: Float32Array,
  norms: Float64Array,
  sizes: Int32Array,
  maxProbeFraction: number,
  measureWhenDropped: number,
): Generator<void, IvfCalibration, void> {
  const { n, d } = rows;
  const L = sizes.length;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const scores = new Float32Array(n);
  const dist = new Float64Array(L);
  const rank = new Int32Array(L);
  let worst = 0;
  const truth: Int32Array[] = [];
  for (const s of queries) {
    const q = rows.rows.subarray(s * d, (s + 1) * d);
    rows.dots(all, q, scores);
    scores[s] = Number.NEGATIVE_INFINITY;
    const top = topKIds(Float64Array.from(scores), n, DEFAULTS.ivfCalibrationK, new Float64Array(n));
    truth.push(top);
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
    yield;
    // The stage is dropped whatever the other queries need: stop once those the caller wants anyway are measured.
    if (worst * DEFAULTS.ivfProbeMargin > maxProbeFraction && truth.length >= measureWhenDropped) break;
  }
  return {
    queries: queries.slice(0, truth.length),
    truth,
    probeFraction: Math.min(1, worst * DEFAULTS.ivfProbeMargin),
  };
}

export interface ListKernel {
  readonly scan: ListScan;
  /** q · centroid_l for every list. */
  readonly centroidDots: F32RowDots;
  readonly allLists: Int32Array;
  /** The codes the list layout was made from (used only while index.codes is still it). */
  readonly source: Uint32Array;
}

/** The IVF stage's kernels by index object: created on the first IVF search, collected with the index. */
export const listKernels = new WeakMap<VectorIndex, ListKernel | null>();

export function listKernel(index: VectorIndex): ListKernel | undefined {
  return cachedKernel(listKernels, index, index.codes, () => {
    const ivf = index.ivf;
    if (!ivf) return undefined;
    const scan = listScan(index.codes, index.bits >> 5, index.scales, ivf.order);
    const centroidDots = scan ? f32RowDots(ivf.centroids, index.d) : undefined;
    return scan && centroidDots
      ? { scan, centroidDots, allLists: Int32Array.from({ length: ivf.lists }, (_, l) => l), source: index.codes }
      : undefined;
  });
}

let probeOrder = new Float64Array(0);

let ranges = new Int32Array(0);

/**
 * The probed lists as [start, end) pairs for the scan kernels, in a reused buffer: "blocks" in SCAN_BLOCK units over
 * the padded lists (the 1-bit blocked scan), "positions" over each list's vectors only (the 4-bit scan).
 */
export function probeRanges(ivf: IvfLists, lists: readonly number[], unit: "blocks" | "positions"): Int32Array {
  if (ranges.length < 2 * ivf.lists) ranges = new Int32Array(2 * ivf.lists);
  for (let p = 0; p < lists.length; p++) {
    const l = lists[p]!;
    ranges[2 * p] = unit === "blocks" ? ivf.starts[l]! / SCAN_BLOCK : ivf.starts[l]!;
    ranges[2 * p + 1] = unit === "blocks" ? ivf.starts[l + 1]! / SCAN_BLOCK : ivf.starts[l]! + ivf.sizes[l]!;
  }
  return ranges;
}

/** Vectors the probed lists must hold: max(wanted, ⌈ivfProbeFraction · n⌉), the fraction checked. */
export function probeTarget(index: VectorIndex, options: VectorSearchOptions, wanted: number): number {
  const fraction = options.ivfProbeFraction ?? index.ivf!.probeFraction;
  if (!(fraction > 0 && fraction <= 1))
    throw new SearchError(MODULE, "bad-ivf-probe", `ivfProbeFraction must be in (0, 1], got ${fraction}`);
  return Math.max(wanted, Math.ceil(fraction * index.n));
}

/** Lists probed at least (options.ivfMinProbes, checked; default DEFAULTS.ivfMinProbes). */
export function probeMinimum(options: VectorSearchOptions): number {
  const minProbes = options.ivfMinProbes ?? DEFAULTS.ivfMinProbes;
  if (!(Number.isInteger(minProbes) && minProbes >= 1))
    throw new SearchError(MODULE, "bad-ivf-probe", `ivfMinProbes must be an integer ≥ 1, got ${minProbes}`);
  return minProbes;
}

/**
 * The IVF stage (see the header): the lists whose centroids are nearest the query (‖c_l‖² − 2 q·c_l ascending,
 * lower index on ties) until they hold ivfProbeFraction · n vectors and number at least ivfMinProbes; every vector
 * of those lists scored on its full code (the blocked SIMD kernel, 4-bit query); the `size` best of them.
 */
export function ivfShortlist(
  index: VectorIndex,
  k: ListKernel,
  q: Float64Array,
  size: number,
  options: VectorSearchOptions,
): Int32Array {
  const ivf = index.ivf!;
  const order = probedLists(
    ivf,
    k.centroidDots,
    k.allLists,
    q,
    probeTarget(index, options, size),
    probeMinimum(options),
  );
  const hits = k.scan.scanRanges(
    quantizeQuery(rotatedQuery(index, q), index.bits >> 7),
    probeRanges(ivf, order, "blocks"),
    order.length,
  );
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
export function probedLists(
  ivf: IvfLists,
  centroidDots: F32RowDots,
  allLists: Int32Array,
  q: Float64Array,
  target: number,
  minProbes: number,
): number[] {
  const L = ivf.lists;
  const cd = centroidDots.dots(allLists, q);
  if (probeOrder.length < L) probeOrder = new Float64Array(Math.max(L, 2 * probeOrder.length));
  const dist = probeOrder;
  for (let l = 0; l < L; l++)
    dist[l] = ivf.sizes[l]! > 0 ? ivf.centroidNorms[l]! - 2 * cd[l]! : Number.POSITIVE_INFINITY;
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
