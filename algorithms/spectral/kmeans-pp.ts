/**
 * k-means (Lloyd's iteration) with k-means++ seeding.
 *
 *   minimise  inertia = Σ_i ‖x_i − c_{a(i)}‖²
 *
 * Seeding (k-means++): the first centre is a uniformly drawn point; each next centre is point i with
 * probability D(i)² / Σ_j D(j)², D(i) = distance to the nearest centre chosen so far. Lloyd's iteration then
 * alternates assignment (nearest centre, lowest index on ties) and update (centre = mean of its points) until
 * no assignment changes, or maxIterations. An emptied cluster is re-seeded with the point farthest from its
 * centre (lowest index on ties). With `restarts` > 1 the run with the lowest inertia wins (first on ties).
 * Deterministic for a given rng sequence.
 *
 * The assignment step skips the distance scan of a point whose centre cannot have changed, by Hamerly's bounds
 * (Hamerly, "Making k-means even faster", SDM 2010): an upper bound u_i on its distance to its centre and a lower
 * bound l_i on its distance to any other, moved after each update by the centres' displacements δ (u_i += δ_a(i),
 * l_i −= max_c δ_c); when u_i < l_i (with a rounding margin) the scan is skipped. The assignments, and so the
 * iterations and the result, are those of the plain scan.
 *
 * kmeansPlusPlusSteps is the same computation as a generator: it pauses whenever about `workPerStep` (default
 * KMEANS_WORK_PER_STEP) coordinate operations (points × centres × dim in a scan, points × dim in a pass) were done
 * since the last pause, inside the seeding, each Lloyd iteration's assignment and update and the final inertia, so
 * a caller can return to its event loop between steps. Pausing changes no operation and no order: the result is
 * kmeansPlusPlus's, bit for bit.
 *
 * Source: Arthur & Vassilvitskii, "k-means++: the advantages of careful seeding" (SODA 2007);
 * Lloyd, "Least squares quantization in PCM" (1982).
 */
import { AlgorithmError } from "../errors.ts";
import type { Rng } from "../random/rng.ts";

export const DEFAULTS = {
  maxIterations: 100,
  restarts: 1,
} as const;

export interface KmeansOptions {
  /** Stop when at most this fraction of the points changed cluster in an iteration. Default 0 (no change). */
  readonly changeTolerance?: number;
  /** Random source for seeding, uniform in [0, 1). Required: algorithms never use Math.random. */
  readonly rng: Rng;
  /** Maximum Lloyd iterations per run. Default 100. */
  readonly maxIterations?: number;
  /** Independent seedings; the lowest-inertia run is kept. Default 1. */
  readonly restarts?: number;
  /** kmeansPlusPlusSteps pauses about every this many coordinate operations. Default KMEANS_WORK_PER_STEP. */
  readonly workPerStep?: number;
}

export interface KmeansResult {
  /** Cluster index 0..k−1 per point. */
  readonly assignments: Int32Array;
  /** k × dim centres, row-major. A centre may be a duplicate when there are fewer than k distinct points. */
  readonly centroids: Float64Array;
  /** Σ of squared distances of points to their centres. */
  readonly inertia: number;
  /** Lloyd iterations of the kept run. */
  readonly iterations: number;
  /** True when assignments stopped changing before maxIterations. */
  readonly converged: boolean;
}

/** Coordinate operations between two pauses of kmeansPlusPlusSteps (≈ 1–3 ms of one core). */
export const KMEANS_WORK_PER_STEP = 1 << 21;

/** The work done since the last pause, shared by the phases of one kmeansPlusPlusSteps run. */
interface Pace {
  work: number;
  readonly limit: number;
}

/** Adds `cost` to the work since the last pause; true (and the count restarts) once it reaches the limit. */
function due(pace: Pace, cost: number): boolean {
  pace.work += cost;
  if (pace.work < pace.limit) return false;
  pace.work = 0;
  return true;
}

export class KmeansError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("kmeans-pp", code, message);
    this.name = "KmeansError";
  }
}

function sqDist(data: Float64Array, i: number, cents: Float64Array, c: number, dim: number): number {
  let s = 0;
  const a = i * dim;
  const b = c * dim;
  for (let d = 0; d < dim; d++) {
    const t = data[a + d]! - cents[b + d]!;
    s += t * t;
  }
  return s;
}

function* seedPlusPlus(
  data: Float64Array,
  n: number,
  dim: number,
  k: number,
  rng: Rng,
  pace: Pace,
): Generator<void, Float64Array, void> {
  const cents = new Float64Array(k * dim);
  const first = Math.min(n - 1, Math.floor(rng() * n));
  cents.set(data.subarray(first * dim, first * dim + dim), 0);
  const d2 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    d2[i] = sqDist(data, i, cents, 0, dim);
    if (due(pace, dim)) yield;
  }
  for (let c = 1; c < k; c++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += d2[i]!;
    let pick = n - 1;
    if (total > 0) {
      let r = rng() * total;
      for (let i = 0; i < n; i++) {
        r -= d2[i]!;
        if (r < 0) {
          pick = i;
          break;
        }
      }
      // Guard against rounding landing on a zero-weight tail: take the last point with positive weight.
      while (d2[pick]! === 0 && pick > 0) pick--;
    } else {
      pick = Math.min(n - 1, Math.floor(rng() * n));
    }
    cents.set(data.subarray(pick * dim, pick * dim + dim), c * dim);
    for (let i = 0; i < n; i++) {
      const d = sqDist(data, i, cents, c, dim);
      if (d < d2[i]!) d2[i] = d;
      if (due(pace, dim)) yield;
    }
  }
  return cents;
}

/** Moves each empty cluster's centre onto the point farthest from its own centre (distinct points, lowest index on ties). */
function* reseedEmpty(
  data: Float64Array,
  n: number,
  dim: number,
  k: number,
  cents: Float64Array,
  counts: Float64Array,
  assign: Int32Array,
  pace: Pace,
): Generator<void, void, void> {
  const dist = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    dist[i] = sqDist(data, i, cents, assign[i]!, dim);
    if (due(pace, dim)) yield;
  }
  for (let c = 0; c < k; c++) {
    if (counts[c]! > 0) continue;
    if (due(pace, n)) yield;
    let far = 0;
    let farD = -1;
    for (let i = 0; i < n; i++) {
      if (dist[i]! > farD) {
        farD = dist[i]!;
        far = i;
      }
    }
    dist[far] = -1;
    cents.set(data.subarray(far * dim, far * dim + dim), c * dim);
  }
}

function* lloyd(
  data: Float64Array,
  n: number,
  dim: number,
  k: number,
  cents: Float64Array,
  maxIterations: number,
  changeTolerance: number,
  pace: Pace,
): Generator<void, KmeansResult, void> {
  const allowed = Math.floor(changeTolerance * n);
  const assign = new Int32Array(n).fill(-1);
  const counts = new Float64Array(k);
  // Hamerly's bounds (see the header): upper[i] ≥ ‖x_i − c_a(i)‖, lower[i] ≤ min_{c ≠ a(i)} ‖x_i − c‖.
  const upper = new Float64Array(n);
  const lower = new Float64Array(n);
  const old = new Float64Array(k * dim);
  const moved = new Float64Array(k);
  let bounded = false;
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    let changed = 0;
    for (let i = 0; i < n; i++) {
      if (due(pace, bounded ? 1 : k * dim)) yield;
      if (bounded) {
        if (upper[i]! * SLACK < lower[i]!) continue;
        upper[i] = Math.sqrt(sqDist(data, i, cents, assign[i]!, dim));
        pace.work += dim;
        if (upper[i]! * SLACK < lower[i]!) continue;
        pace.work += k * dim;
      }
      let best = 0;
      let bestD = Number.POSITIVE_INFINITY;
      let secondD = Number.POSITIVE_INFINITY;
      for (let c = 0; c < k; c++) {
        const d = sqDist(data, i, cents, c, dim);
        if (d < bestD) {
          secondD = bestD;
          bestD = d;
          best = c;
        } else if (d < secondD) secondD = d;
      }
      upper[i] = Math.sqrt(bestD);
      lower[i] = Math.sqrt(secondD);
      if (assign[i] !== best) {
        assign[i] = best;
        changed++;
      }
    }
    if (changed <= allowed) {
      converged = true;
      break;
    }
    // Update step.
    old.set(cents);
    cents.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assign[i]!;
      counts[c]!++;
      for (let d = 0; d < dim; d++) cents[c * dim + d]! += data[i * dim + d]!;
      if (due(pace, dim)) yield;
    }
    let empty = false;
    for (let c = 0; c < k; c++) {
      const cnt = counts[c]!;
      if (cnt > 0) for (let d = 0; d < dim; d++) cents[c * dim + d]! /= cnt;
      else empty = true;
    }
    if (empty) yield* reseedEmpty(data, n, dim, k, cents, counts, assign, pace);
    // Move the bounds by how far the centres moved (triangle inequality).
    let maxMove = 0;
    for (let c = 0; c < k; c++) {
      moved[c] = Math.sqrt(sqDist(old, c, cents, c, dim));
      if (moved[c]! > maxMove) maxMove = moved[c]!;
    }
    for (let i = 0; i < n; i++) {
      upper[i]! += moved[assign[i]!]!;
      lower[i]! -= maxMove;
    }
    bounded = true;
  }
  let inertia = 0;
  for (let i = 0; i < n; i++) {
    inertia += sqDist(data, i, cents, assign[i]!, dim);
    if (due(pace, dim)) yield;
  }
  return { assignments: assign, centroids: cents, inertia, iterations, converged };
}

/**
 * A point keeps its centre without a scan only when upper · SLACK < lower: strictly nearer than any other centre by
 * more than the rounding of the bounds (a few ulps per iteration, far below 1e-9 relative), so the scan would pick
 * the same centre, ties included.
 */
const SLACK = 1 + 1e-9;

/**
 * Clusters the n = data.length / dim points stored row-major in `data` into k groups.
 * Throws on k outside 1..n, dim < 1, a length not divisible by dim, or non-finite coordinates.
 */
export function kmeansPlusPlus(data: Float64Array, dim: number, k: number, options: KmeansOptions): KmeansResult {
  const steps = kmeansPlusPlusSteps(data, dim, k, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * kmeansPlusPlus as a generator that pauses about every KMEANS_WORK_PER_STEP coordinate operations (see the
 * header); its return value is kmeansPlusPlus's result. Invalid input throws at the first `next()`.
 */
export function* kmeansPlusPlusSteps(
  data: Float64Array,
  dim: number,
  k: number,
  options: KmeansOptions,
): Generator<void, KmeansResult, void> {
  if (!Number.isInteger(dim) || dim < 1) throw new KmeansError("bad-dim", `dim must be a positive integer, got ${dim}`);
  if (data.length % dim !== 0)
    throw new KmeansError("bad-data", `data length ${data.length} is not a multiple of dim ${dim}`);
  const n = data.length / dim;
  if (n === 0) {
    if (k !== 0) throw new KmeansError("bad-k", `k must be 0 for no points, got ${k}`);
    return {
      assignments: new Int32Array(0),
      centroids: new Float64Array(0),
      inertia: 0,
      iterations: 0,
      converged: true,
    };
  }
  if (!Number.isInteger(k) || k < 1 || k > n)
    throw new KmeansError("bad-k", `k must be an integer in 1..${n}, got ${k}`);
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i]!)) throw new KmeansError("bad-data", `coordinate ${i} is ${data[i]}`);
  }
  const maxIterations = options.maxIterations ?? DEFAULTS.maxIterations;
  const restarts = options.restarts ?? DEFAULTS.restarts;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new KmeansError("bad-max-iterations", `maxIterations must be a positive integer, got ${maxIterations}`);
  }
  if (!Number.isInteger(restarts) || restarts < 1)
    throw new KmeansError("bad-restarts", `restarts must be a positive integer, got ${restarts}`);
  let best: KmeansResult | null = null;
  const limit = options.workPerStep ?? KMEANS_WORK_PER_STEP;
  if (!(limit >= 1)) throw new KmeansError("bad-work-per-step", `workPerStep must be ≥ 1, got ${limit}`);
  const pace: Pace = { work: 0, limit };
  for (let r = 0; r < restarts; r++) {
    const cents = yield* seedPlusPlus(data, n, dim, k, options.rng, pace);
    const res = yield* lloyd(data, n, dim, k, cents, maxIterations, options.changeTolerance ?? 0, pace);
    if (best === null || res.inertia < best.inertia) best = res;
  }
  return best!;
}
