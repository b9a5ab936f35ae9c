/**
 * Lanczos with full reorthogonalisation: the k largest (algebraic) eigenpairs of a symmetric operator A
 * given only as a matrix–vector product.
 *
 *   A Q_m = Q_m T_m + β_m q_{m+1} e_mᵀ,   T_m = tridiag(β_{j−1}, α_j, β_j),   α_j = q_jᵀ A q_j
 *
 * Each new vector is re-orthogonalised against all previous ones (modified Gram–Schmidt, repeated once when
 * the norm drops below 1/√2 — Daniel–Gragg–Kaufman–Stewart "twice is enough"), so T_m stays a faithful
 * projection. The eigenpairs (θ_i, s_i) of the small T_m come from ml-matrix's symmetric
 * EigenvalueDecomposition; Ritz vectors y_i = Q_m s_i. The residual estimate ‖A y_i − θ_i y_i‖ = |β_m s_{m,i}|
 * is checked every `checkEvery` steps for early stopping; the reported residuals are recomputed exactly with
 * one matvec per pair.
 *
 * On breakdown (β_j ≈ 0: an invariant subspace was found) the iteration restarts from a fresh random vector
 * orthogonal to everything so far, so with steps = n the whole space is spanned and T_n has every eigenvalue
 * with its multiplicity: for small n the method is exact and needs no dense fallback. Repeated eigenvalues are
 * otherwise found only once per Krylov space; a known invariant subspace (e.g. the component indicator vectors
 * of a disconnected graph) can be removed with the `deflate` projector.
 *
 * Source: Golub & Van Loan, "Matrix Computations" (4th ed.), §10.1–10.3; Parlett, "The Symmetric Eigenvalue
 * Problem" (1998), ch. 13 (full reorthogonalisation).
 */

import { createRequire } from "node:module";
import { AlgorithmError } from "../errors.ts";
import { mulberry32, type Rng } from "../random/rng.ts";

// ml-matrix required as CommonJS: its ES entry re-exports the 150 kB CommonJS build, which Node then scans for
// export names (30–110 ms of one core on every process start); required, it is only compiled. The same code.
const { EigenvalueDecomposition, Matrix } = createRequire(import.meta.url)("ml-matrix") as typeof import("ml-matrix");
type Matrix = import("ml-matrix").Matrix;

export const DEFAULTS = {
  /** Residual tolerance, relative to max(1, max |θ|). */
  tolerance: 1e-8,
  /** Check the residual estimates every this many steps. */
  checkEvery: 10,
  /** Seed of the start-vector generator when no rng is given. */
  seed: 1,
  minSteps: 60,
} as const;

/** Default Krylov dimension: min(n, max(2k + 20, 60)). */
export function defaultSteps(n: number, k: number): number {
  return Math.min(n, Math.max(2 * k + 20, DEFAULTS.minSteps));
}

export interface LanczosOptions {
  /** Maximum Krylov dimension (Lanczos steps). Default min(n, max(2k + 20, 60)). */
  readonly steps?: number;
  /** Converged when every residual ‖A y − θ y‖ ≤ tolerance · max(1, max|θ|). Default 1e-8. */
  readonly tolerance?: number;
  /** Generator for the start vector (and restart vectors), uniform in [0, 1). Default mulberry32(1). */
  readonly rng?: Rng;
  /** Residual estimates are checked every this many steps to stop early. Default 10. */
  readonly checkEvery?: number;
  /**
   * In-place projector onto the orthogonal complement of a known invariant subspace of A; applied to every
   * new Lanczos vector. The eigenpairs returned are then those of A restricted to that complement. Default none.
   */
  readonly deflate?: (x: Float64Array) => void;
  /**
   * How many leading Ritz vectors to form (forming one costs steps·n): a count, or a function of the Ritz
   * values (decreasing) returning one — e.g. pick k by an eigengap, then form only k vectors. Default k.
   */
  readonly vectorCount?: number | ((values: Float64Array) => number);
}

export interface LanczosResult {
  /** The min(k, Krylov dimension) largest Ritz values, in decreasing order. */
  readonly values: Float64Array;
  /** Matching unit Ritz vectors (length n); sign fixed so the largest-magnitude entry is positive. */
  readonly vectors: Float64Array[];
  /** ‖A y_i − θ_i y_i‖₂ for each pair (recomputed with one matvec each). */
  readonly residuals: Float64Array;
  /** True when every residual ≤ tolerance · max(1, max|θ|). */
  readonly converged: boolean;
  /** Lanczos steps performed (Krylov dimension). */
  readonly steps: number;
}

export class LanczosError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("lanczos", code, message);
    this.name = "LanczosError";
  }
}

const BREAKDOWN = 1e-10;
const REORTH_ETA = Math.SQRT1_2;

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

function axpy(alpha: number, x: Float64Array, y: Float64Array): void {
  for (let i = 0; i < y.length; i++) y[i]! += alpha * x[i]!;
}

/**
 * Gram–Schmidt of w against q_0..q_{count-1}, four vectors per pass over w (classical within a block of four,
 * modified between blocks); returns the coefficient along q_{count-1}.
 */
function orthogonalise(w: Float64Array, q: readonly Float64Array[], count: number): number {
  const n = w.length;
  let lastCoef = 0;
  let i = 0;
  for (; i + 4 <= count; i += 4) {
    const a = q[i]!;
    const b = q[i + 1]!;
    const c = q[i + 2]!;
    const d = q[i + 3]!;
    let ca = 0;
    let cb = 0;
    let cc = 0;
    let cd = 0;
    for (let t = 0; t < n; t++) {
      const x = w[t]!;
      ca += a[t]! * x;
      cb += b[t]! * x;
      cc += c[t]! * x;
      cd += d[t]! * x;
    }
    for (let t = 0; t < n; t++) w[t]! -= ca * a[t]! + cb * b[t]! + cc * c[t]! + cd * d[t]!;
    if (i + 4 === count) lastCoef = cd;
  }
  for (; i < count; i++) {
    const c = dot(q[i]!, w);
    if (c !== 0) axpy(-c, q[i]!, w);
    if (i === count - 1) lastCoef = c;
  }
  return lastCoef;
}

function randomUnit(
  n: number,
  rng: Rng,
  deflate: ((x: Float64Array) => void) | undefined,
  q: readonly Float64Array[],
): Float64Array | null {
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) r[i] = rng() - 0.5;
  const before = Math.sqrt(dot(r, r));
  for (let pass = 0; pass < 2; pass++) {
    deflate?.(r);
    orthogonalise(r, q, q.length);
  }
  const after = Math.sqrt(dot(r, r));
  if (!(after > 1e-8 * before)) return null;
  for (let i = 0; i < n; i++) r[i]! /= after;
  return r;
}

interface TridiagEigen {
  values: number[];
  vectors: Matrix;
}

/** Eigen-decomposition of the m×m tridiagonal T (α on the diagonal, β off it), values ascending. */
function tridiagEigen(alpha: readonly number[], beta: readonly number[], m: number): TridiagEigen {
  const t = new Matrix(m, m);
  for (let i = 0; i < m; i++) {
    t.set(i, i, alpha[i]!);
    if (i + 1 < m) {
      t.set(i, i + 1, beta[i]!);
      t.set(i + 1, i, beta[i]!);
    }
  }
  const evd = new EigenvalueDecomposition(t, { assumeSymmetric: true });
  return { values: evd.realEigenvalues, vectors: evd.eigenvectorMatrix };
}

/** Indices of the k largest values, in decreasing value order (ties by index). */
function topIndices(values: readonly number[], k: number): number[] {
  const idx = values.map((_, i) => i);
  idx.sort((a, b) => values[b]! - values[a]! || a - b);
  return idx.slice(0, k);
}

/**
 * The k largest eigenpairs of the symmetric n×n operator `matvec(x, out)` (out ← A x; must not read out).
 * Returns fewer than k pairs when the (deflated) space has dimension < k.
 */
export function lanczos(
  n: number,
  matvec: (x: Float64Array, out: Float64Array) => void,
  k: number,
  options: LanczosOptions = {},
): LanczosResult {
  if (!Number.isInteger(n) || n < 0) throw new LanczosError("bad-n", `n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(k) || k < 1 || k > Math.max(n, 1)) {
    throw new LanczosError("bad-k", `k must be an integer in 1..${Math.max(n, 1)}, got ${k}`);
  }
  const empty: LanczosResult = {
    values: new Float64Array(0),
    vectors: [],
    residuals: new Float64Array(0),
    converged: true,
    steps: 0,
  };
  if (n === 0) return empty;
  const steps = options.steps ?? defaultSteps(n, k);
  if (!Number.isInteger(steps) || steps < 1 || steps > n) {
    throw new LanczosError("bad-steps", `steps must be an integer in 1..${n}, got ${steps}`);
  }
  const tolerance = options.tolerance ?? DEFAULTS.tolerance;
  if (!(tolerance > 0) || !Number.isFinite(tolerance)) {
    throw new LanczosError("bad-tolerance", `tolerance must be a finite positive number, got ${tolerance}`);
  }
  const checkEvery = options.checkEvery ?? DEFAULTS.checkEvery;
  if (!Number.isInteger(checkEvery) || checkEvery < 1) {
    throw new LanczosError("bad-check-every", `checkEvery must be a positive integer, got ${checkEvery}`);
  }
  const rng = options.rng ?? mulberry32(DEFAULTS.seed);
  const deflate = options.deflate;

  const q: Float64Array[] = [];
  const alpha: number[] = [];
  const beta: number[] = [];
  const first = randomUnit(n, rng, deflate, q);
  if (first === null) return empty;
  q.push(first);
  let anorm = 0;
  let lastBeta = 0;
  const w = new Float64Array(n);

  for (let j = 0; j < steps; j++) {
    const qj = q[j]!;
    matvec(qj, w);
    let a = dot(qj, w);
    axpy(-a, qj, w);
    if (j > 0) axpy(-beta[j - 1]!, q[j - 1]!, w);
    // Full reorthogonalisation, repeated when the norm collapsed (cancellation).
    let before = Math.sqrt(dot(w, w));
    for (let pass = 0; pass < 2; pass++) {
      deflate?.(w);
      a += orthogonalise(w, q, j + 1);
      const after = Math.sqrt(dot(w, w));
      if (after > REORTH_ETA * before) break;
      before = after;
    }
    alpha.push(a);
    const b = Math.sqrt(dot(w, w));
    anorm = Math.max(anorm, Math.abs(a) + b + (j > 0 ? beta[j - 1]! : 0));
    const m = j + 1;
    lastBeta = b;
    if (m === steps) break;

    if (b <= BREAKDOWN * anorm) {
      // Invariant subspace: restart from a fresh direction (β_j = 0 decouples T).
      const r = randomUnit(n, rng, deflate, q);
      if (r === null) {
        lastBeta = 0;
        break;
      }
      beta.push(0);
      q.push(r);
      continue;
    }
    if (m >= k && m % checkEvery === 0) {
      const te = tridiagEigen(alpha, beta, m);
      const scale = Math.max(1, ...te.values.map(Math.abs));
      const top = topIndices(te.values, k);
      const done = top.every((i) => Math.abs(b * te.vectors.get(m - 1, i)) <= 0.5 * tolerance * scale);
      if (done) break;
    }
    beta.push(b);
    const next = new Float64Array(n);
    for (let i = 0; i < n; i++) next[i] = w[i]! / b;
    q.push(next);
  }

  const m = alpha.length;
  const te = tridiagEigen(alpha, beta, m);
  const kk = Math.min(k, m);
  const top = topIndices(te.values, kk);
  const values = new Float64Array(kk);
  for (let r = 0; r < kk; r++) values[r] = te.values[top[r]!]!;
  const wantVectors =
    typeof options.vectorCount === "function" ? options.vectorCount(values) : (options.vectorCount ?? kk);
  if (!Number.isInteger(wantVectors) || wantVectors < 0) {
    throw new LanczosError("bad-vector-count", `vectorCount must give a non-negative integer, got ${wantVectors}`);
  }
  const nVec = Math.min(wantVectors, kk);
  const vectors: Float64Array[] = [];
  const residuals = new Float64Array(kk);
  const scale = Math.max(1, ...te.values.map(Math.abs));
  // β_m: the norm of the last residual direction (0 when the space was exhausted).
  const betaM = lastBeta;
  const av = new Float64Array(n);
  let converged = true;
  for (let r = 0; r < kk; r++) {
    const col = top[r]!;
    const theta = values[r]!;
    if (r < nVec) {
      const y = new Float64Array(n);
      for (let j = 0; j < m; j++) {
        const s = te.vectors.get(j, col);
        if (s !== 0) axpy(s, q[j]!, y);
      }
      const norm = Math.sqrt(dot(y, y));
      if (norm > 0) for (let i = 0; i < n; i++) y[i]! /= norm;
      fixSign(y);
      matvec(y, av);
      axpy(-theta, y, av);
      residuals[r] = Math.sqrt(dot(av, av));
      vectors.push(y);
    } else {
      residuals[r] = Math.abs(betaM * te.vectors.get(m - 1, col));
    }
    if (!(residuals[r]! <= tolerance * scale)) converged = false;
  }
  return { values, vectors, residuals, converged, steps: m };
}

/** Flips y so its largest-magnitude entry (first one on ties) is positive. */
function fixSign(y: Float64Array): void {
  let best = 0;
  let bestAbs = -1;
  for (let i = 0; i < y.length; i++) {
    const a = Math.abs(y[i]!);
    if (a > bestAbs + 1e-12) {
      bestAbs = a;
      best = i;
    }
  }
  if (y[best]! < 0) for (let i = 0; i < y.length; i++) y[i] = -y[i]!;
}
