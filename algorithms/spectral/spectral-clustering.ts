/**
 * Spectral clustering of the tool–capability graph (normalised cut, Ng–Jordan–Weiss embedding).
 *
 *   L = I − D^{-1/2} A D^{-1/2},   eigenvalues 0 = λ₁ ≤ λ₂ ≤ … ≤ 2
 *
 * A is the symmetric adjacency of `tool-capability-graph.ts` (tools ∪ capabilities; memberships, capability
 * dependencies, optional tool edges). The k smallest eigenvectors of L are the k largest of the normalised
 * adjacency M = D^{-1/2} A D^{-1/2} (λ = 1 − μ), computed by Lanczos over the sparse rows (no dense n×n
 * matrix). Lanczos targets the largest *algebraic* eigenvalues, so no shift (e.g. M + I) is needed: a shift
 * leaves the Krylov space unchanged. Each connected component C contributes the exact eigenvector D^{1/2}1_C
 * (λ = 0); these are put in directly and deflated from Lanczos, which would otherwise find a repeated
 * eigenvalue only once.
 *
 * k: the given `k`, else the largest eigengap  k* = argmax_{k ∈ [kMin, kMax]} (λ_{k+1} − λ_k)  (first on ties),
 * with kMax = min(options.kMax, ⌊n'/2⌋) over the n' non-isolated nodes (default kMax 30: see DEFAULTS). Lanczos
 * with a limited Krylov space resolves a tight cluster of many near-equal small eigenvalues only partly; the
 * result then says `converged: false` and k may be underestimated. When the graph has at least kMax
 * components (or n' ≤ 3), the clusters are the connected components. Embedding: rows of the k eigenvectors
 * (all c component vectors when a given k < c), each row scaled to unit length; k-means++ (seeded) groups
 * the rows. Isolated nodes (degree 0) each form their own singleton cluster. Cluster ids are renumbered
 * 0..clusterCount−1 in order of first node (tools first, then capabilities).
 *
 * Source: Ng, Jordan & Weiss, "On spectral clustering: analysis and an algorithm" (NIPS 2001);
 * von Luxburg, "A tutorial on spectral clustering" (2007), §4 and §8.2 (eigengap heuristic);
 * algorithms/README.md, "Spectral clustering".
 */
import { AlgorithmError } from "../errors.ts";
import { defaultSteps, lanczos } from "../linalg/lanczos.ts";
import { weightedDegrees } from "../linalg/symmetric-csr.ts";
import { mulberry32, type Rng } from "../random/rng.ts";
import { kmeansPlusPlus } from "./kmeans-pp.ts";
import {
  type ToolCapabilityInput,
  type ToolCapabilityWeights,
  toolCapabilityAdjacency,
} from "./tool-capability-graph.ts";

export const DEFAULTS = {
  kMin: 2,
  /**
   * 30, not 50: the eigengap needs kMax + 1 eigenvalues, so Lanczos runs 2·31 + 20 = 82 steps (≈ 0.25 s on
   * 12k nodes); kMax = 50 means 122 steps and about twice the time (full reorthogonalisation is O(steps²·n)).
   */
  kMax: 30,
  seed: 1,
  /** Lanczos residual tolerance (relative). Eigengaps need far less than 1e-8. */
  tolerance: 1e-6,
  kmeansRestarts: 3,
  kmeansMaxIterations: 100,
  /** Above this many non-isolated nodes k-means runs once and stops when < 0.1 % of the points move. */
  largeGraph: 2000,
} as const;

export interface SpectralOptions extends ToolCapabilityWeights {
  /** Number of clusters among non-isolated nodes; default: chosen by the largest eigengap. */
  readonly k?: number;
  /** Smallest k the eigengap may pick. Default 2. */
  readonly kMin?: number;
  /** Largest k the eigengap may pick (also capped at ⌊n'/2⌋). Default 30. */
  readonly kMax?: number;
  /** Random source for the Lanczos start vector and k-means++. Default mulberry32(1). */
  readonly rng?: Rng;
  /** Lanczos steps. Default min(n', max(2r + 20, 60)) for r wanted eigenpairs. */
  readonly lanczosSteps?: number;
  /** Lanczos residual tolerance. Default 1e-6. */
  readonly tolerance?: number;
  /** k-means++ restarts (lowest inertia kept). Default 3. */
  readonly kmeansRestarts?: number;
  /** k-means iterations per restart. Default 100. */
  readonly kmeansMaxIterations?: number;
}

export type KSource = "given" | "eigengap" | "components" | "none";

export interface SpectralResult {
  /** Cluster id per tool id. */
  readonly toolClusters: Int32Array;
  /** Cluster id per capability index. */
  readonly capabilityClusters: Int32Array;
  /** Number of spectral clusters among non-isolated nodes (0 when every node is isolated). */
  readonly k: number;
  /** How k was set: given, eigengap, components (≥ kMax components or tiny graph), none (no edges). */
  readonly kSource: KSource;
  /** Distinct cluster ids overall (spectral clusters + one singleton per isolated node). */
  readonly clusterCount: number;
  /** Smallest eigenvalues of L computed, ascending (component zeros first). */
  readonly eigenvalues: Float64Array;
  /** λ_{k+1} − λ_k for the k used (0 when λ_{k+1} was not computed). */
  readonly eigengap: number;
  /** Connected components among non-isolated nodes. */
  readonly components: number;
  /** Number of isolated (degree-0) nodes. */
  readonly isolated: number;
  /** Lanczos residuals within tolerance and k-means converged. */
  readonly converged: boolean;
}

export class SpectralError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("spectral-clustering", code, message);
    this.name = "SpectralError";
  }
}

function checkInt(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min)
    throw new SpectralError(`bad-${name}`, `${name} must be an integer ≥ ${min}, got ${v}`);
}

/** Spectral clusters of tools and capabilities. */
export function spectralClustering(input: ToolCapabilityInput, options: SpectralOptions = {}): SpectralResult {
  const kMin = options.kMin ?? DEFAULTS.kMin;
  const kMax = options.kMax ?? DEFAULTS.kMax;
  checkInt("kMin", kMin, 1);
  checkInt("kMax", kMax, kMin);
  if (options.k !== undefined) checkInt("k", options.k, 1);
  const rng = options.rng ?? mulberry32(DEFAULTS.seed);
  const a = toolCapabilityAdjacency(input, options);
  const nTools = input.nTools;
  const n = a.n;
  const deg = weightedDegrees(a);

  // Compact numbering of the non-isolated nodes.
  const local = new Int32Array(n).fill(-1);
  const active: number[] = [];
  for (let u = 0; u < n; u++) {
    if (deg[u]! > 0) {
      local[u] = active.length;
      active.push(u);
    }
  }
  const np = active.length;
  const clusterOfActive = new Int32Array(np);
  let k = 0;
  let kSource: KSource = "none";
  let eigenvalues: Float64Array = new Float64Array(0);
  let eigengap = 0;
  let converged = true;
  let components = 0;

  if (np > 0) {
    if (options.k !== undefined && options.k > np) {
      throw new SpectralError("bad-k", `k = ${options.k} exceeds the ${np} non-isolated nodes`);
    }
    // Normalised adjacency M over active nodes: M_uv = A_uv / √(d_u d_v).
    const off = new Uint32Array(np + 1);
    for (let i = 0; i < np; i++) {
      const u = active[i]!;
      off[i + 1] = off[i]! + (a.offsets[u + 1]! - a.offsets[u]!);
    }
    const tgt = new Uint32Array(off[np]!);
    const val = new Float64Array(off[np]!);
    const sqrtD = new Float64Array(np);
    for (let i = 0; i < np; i++) sqrtD[i] = Math.sqrt(deg[active[i]!]!);
    for (let i = 0; i < np; i++) {
      const u = active[i]!;
      let p = off[i]!;
      const b = a.offsets[u + 1]!;
      for (let j = a.offsets[u]!; j < b; j++) {
        const v = local[a.targets[j]!]!;
        tgt[p] = v;
        val[p] = a.weights[j]! / (sqrtD[i]! * sqrtD[v]!);
        p++;
      }
    }
    const matvec = (x: Float64Array, out: Float64Array): void => {
      for (let i = 0; i < np; i++) {
        let s = 0;
        const b = off[i + 1]!;
        for (let j = off[i]!; j < b; j++) s += val[j]! * x[tgt[j]!]!;
        out[i] = s;
      }
    };

    // Connected components and their exact eigenvectors D^{1/2} 1_C / ‖·‖ (λ = 0).
    const comp = componentsOf(np, off, tgt);
    components = comp.count;
    const c = components;
    const compNorm = new Float64Array(c);
    for (let i = 0; i < np; i++) compNorm[comp.label[i]!]! += deg[active[i]!]!;
    for (let q = 0; q < c; q++) compNorm[q] = Math.sqrt(compNorm[q]!);
    const compVec = (i: number): number => sqrtD[i]! / compNorm[comp.label[i]!]!;
    const deflate = (x: Float64Array): void => {
      const coef = new Float64Array(c);
      for (let i = 0; i < np; i++) coef[comp.label[i]!]! += compVec(i) * x[i]!;
      for (let i = 0; i < np; i++) x[i]! -= coef[comp.label[i]!]! * compVec(i);
    };

    const kMaxEff = Math.min(kMax, Math.floor(np / 2));
    const kMinEff = Math.min(kMin, kMaxEff);
    const byComponents = options.k === undefined && (c >= kMaxEff || np <= 3);
    const wanted = options.k ?? kMaxEff + 1; // eigenvalues needed (k, or kMax + 1 for the gaps)
    // Sets eigenvalues (L, ascending) and k from the Lanczos values; returns how many Ritz vectors to form.
    const chooseK = (lvals: Float64Array): number => {
      eigenvalues = new Float64Array(c + lvals.length);
      for (let i = 0; i < lvals.length; i++) eigenvalues[c + i] = Math.max(0, 1 - lvals[i]!);
      if (byComponents) {
        k = c;
        kSource = "components";
        return 0;
      }
      if (options.k !== undefined) {
        k = options.k;
        kSource = "given";
      } else {
        k = kMinEff;
        let best = -1;
        for (let kk = kMinEff; kk <= kMaxEff && kk < eigenvalues.length; kk++) {
          const gap = eigenvalues[kk]! - eigenvalues[kk - 1]!;
          if (gap > best + 1e-12) {
            best = gap;
            k = kk;
          }
        }
        kSource = "eigengap";
      }
      return Math.max(0, Math.min(k - c, lvals.length));
    };
    // Lanczos on the complement of the component space (dimension np − c).
    const r = Math.min(Math.max(1, wanted - c), np - c);
    let lvecs: Float64Array[] = [];
    if (r >= 1) {
      const steps = Math.min(options.lanczosSteps ?? defaultSteps(np, r), np);
      const res = lanczos(np, matvec, r, {
        steps,
        tolerance: options.tolerance ?? DEFAULTS.tolerance,
        rng,
        deflate,
        vectorCount: chooseK,
      });
      lvecs = res.vectors;
      converged &&= res.converged;
    } else {
      chooseK(new Float64Array(0));
    }

    if (byComponents) {
      for (let i = 0; i < np; i++) clusterOfActive[i] = comp.label[i]!;
    } else {
      // Embedding rows: the c component vectors, then the first k − c Lanczos vectors.
      const extra = Math.max(0, Math.min(k - c, lvecs.length));
      const dim = c + extra;
      const emb = new Float64Array(np * dim);
      for (let i = 0; i < np; i++) {
        const row = i * dim;
        emb[row + comp.label[i]!] = compVec(i);
        for (let e = 0; e < extra; e++) emb[row + c + e] = lvecs[e]![i]!;
        let s = 0;
        for (let d = 0; d < dim; d++) s += emb[row + d]! ** 2;
        const norm = Math.sqrt(s);
        if (norm > 0) for (let d = 0; d < dim; d++) emb[row + d]! /= norm;
      }
      const km = kmeansPlusPlus(emb, dim, k, {
        rng,
        // Large graphs: one restart and stop when < 0.1 % of the points move (the refresh budget is 2 s).
        restarts: options.kmeansRestarts ?? (np > DEFAULTS.largeGraph ? 1 : DEFAULTS.kmeansRestarts),
        maxIterations: options.kmeansMaxIterations ?? DEFAULTS.kmeansMaxIterations,
        changeTolerance: np > DEFAULTS.largeGraph ? 1e-3 : 0,
      });
      clusterOfActive.set(km.assignments);
      converged &&= km.converged;
    }
    eigengap = k < eigenvalues.length && k >= 1 ? eigenvalues[k]! - eigenvalues[k - 1]! : 0;
  }

  // Final ids: spectral clusters and isolated singletons, renumbered in order of first node.
  const all = new Int32Array(n);
  const renumber = new Map<number, number>();
  for (let u = 0; u < n; u++) {
    const raw = local[u]! >= 0 ? clusterOfActive[local[u]!]! : -1 - u;
    let id = renumber.get(raw);
    if (id === undefined) {
      id = renumber.size;
      renumber.set(raw, id);
    }
    all[u] = id;
  }
  return {
    toolClusters: all.slice(0, nTools),
    capabilityClusters: all.slice(nTools),
    k,
    kSource,
    clusterCount: renumber.size,
    eigenvalues,
    eigengap,
    components,
    isolated: n - np,
    converged,
  };
}

/** Connected components by iterative DFS; labels in order of first node. */
function componentsOf(n: number, off: Uint32Array, tgt: Uint32Array): { label: Int32Array; count: number } {
  const label = new Int32Array(n).fill(-1);
  const stack = new Int32Array(n);
  let count = 0;
  for (let s = 0; s < n; s++) {
    if (label[s]! >= 0) continue;
    let top = 0;
    stack[top++] = s;
    label[s] = count;
    while (top > 0) {
      const u = stack[--top]!;
      const b = off[u + 1]!;
      for (let j = off[u]!; j < b; j++) {
        const v = tgt[j]!;
        if (label[v]! < 0) {
          label[v] = count;
          stack[top++] = v;
        }
      }
    }
    count++;
  }
  return { label, count };
}
