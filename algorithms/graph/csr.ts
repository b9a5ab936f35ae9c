/**
 * Compressed sparse row (CSR) graph: the compact read model every hot loop runs on.
 *
 * Nodes are integers 0..n-1. Out-edges of node u are `targets[offsets[u] .. offsets[u+1])` with the
 * matching `weights`; in-edges are the same for the reversed graph (`inOffsets`, `inSources`,
 * `inWeights`). Weights are edge qualities in (0, 1] (type weight × source multiplier, edge-quality.ts).
 * Parallel edges given to `buildCsr` are merged keeping the largest weight; self-loops are dropped.
 *
 * Source: the CSR layout of sparse-matrix libraries (Saad, "Iterative Methods for Sparse Linear
 * Systems", §3.4); the "build once, query many" habit of graphology's neighborhood index.
 */
import { AlgorithmError } from "../errors.ts";
import { drain } from "../timing/drain.ts";

export interface CsrEdge {
  readonly from: number;
  readonly to: number;
  readonly weight: number;
}

export interface Csr {
  /** Number of nodes. */
  readonly n: number;
  /** Number of (deduplicated) directed edges. */
  readonly m: number;
  readonly offsets: Uint32Array;
  readonly targets: Uint32Array;
  readonly weights: Float64Array;
  readonly inOffsets: Uint32Array;
  readonly inSources: Uint32Array;
  readonly inWeights: Float64Array;
}

export class CsrError extends AlgorithmError {
  constructor(code: string, message: string) {
    super("csr", code, message);
    this.name = "CsrError";
  }
}

/** Builds a CSR from an edge list; merges parallel edges (max weight), drops self-loops. */
export function buildCsr(n: number, edges: Iterable<CsrEdge>): Csr {
  return drain(buildCsrSteps(n, edges));
}

/** Edges (or slots) between two yields of `buildCsrSteps`. */
const CSR_STEP = 8192;

/**
 * `buildCsr` in steps, yielding every CSR_STEP edges of each pass (50k edges are tens of ms), for a caller on
 * an event loop; returns the same CSR.
 */
export function* buildCsrSteps(n: number, edges: Iterable<CsrEdge>): Generator<void, Csr, void> {
  if (!Number.isInteger(n) || n < 0) throw new CsrError("bad-n", `n must be a non-negative integer, got ${n}`);
  const merged = new Map<number, number>();
  // key = from * n + to fits a double exactly for n < 2^26 (67M nodes).
  let seen = 0;
  for (const e of edges) {
    if (++seen % CSR_STEP === 0) yield;
    if (!Number.isInteger(e.from) || e.from < 0 || e.from >= n) {
      throw new CsrError("bad-edge", `edge.from ${e.from} outside 0..${n - 1}`);
    }
    if (!Number.isInteger(e.to) || e.to < 0 || e.to >= n) {
      throw new CsrError("bad-edge", `edge.to ${e.to} outside 0..${n - 1}`);
    }
    if (!Number.isFinite(e.weight) || e.weight < 0) {
      throw new CsrError(
        "bad-weight",
        `edge ${e.from}->${e.to} weight ${e.weight} is not a finite non-negative number`,
      );
    }
    if (e.from === e.to) continue;
    const key = e.from * n + e.to;
    const prev = merged.get(key);
    if (prev === undefined || e.weight > prev) merged.set(key, e.weight);
  }
  const m = merged.size;
  const outDeg = new Uint32Array(n);
  const inDeg = new Uint32Array(n);
  const froms = new Uint32Array(m);
  const tos = new Uint32Array(m);
  const ws = new Float64Array(m);
  yield;
  let i = 0;
  for (const [key, w] of merged) {
    if (i > 0 && i % CSR_STEP === 0) yield;
    const from = Math.floor(key / n);
    const to = key - from * n;
    froms[i] = from;
    tos[i] = to;
    ws[i] = w;
    outDeg[from]!++;
    inDeg[to]!++;
    i++;
  }
  const offsets = new Uint32Array(n + 1);
  const inOffsets = new Uint32Array(n + 1);
  for (let u = 0; u < n; u++) {
    offsets[u + 1] = offsets[u]! + outDeg[u]!;
    inOffsets[u + 1] = inOffsets[u]! + inDeg[u]!;
  }
  const targets = new Uint32Array(m);
  const weights = new Float64Array(m);
  const inSources = new Uint32Array(m);
  const inWeights = new Float64Array(m);
  // Each slice sorted by neighbour id so iteration order is deterministic, by two counting passes instead of a
  // sort per slice (a pair (from, to) occurs once, so the sorted order of a slice is unique): the edges by
  // target (in merged order within a target), then the out-slices filled by ascending target, then the
  // in-slices by ascending source.
  const byTarget = new Uint32Array(m);
  const inPos = inOffsets.slice(0, n);
  for (let k = 0; k < m; k++) byTarget[inPos[tos[k]!]!++] = k;
  yield;
  const outPos = offsets.slice(0, n);
  for (let p = 0; p < m; p++) {
    if (p > 0 && p % CSR_STEP === 0) yield;
    const k = byTarget[p]!;
    const o = outPos[froms[k]!]!++;
    targets[o] = tos[k]!;
    weights[o] = ws[k]!;
  }
  inPos.set(inOffsets.subarray(0, n));
  yield;
  for (let u = 0; u < n; u++) {
    for (let o = offsets[u]!; o < offsets[u + 1]!; o++) {
      const p = inPos[targets[o]!]!++;
      inSources[p] = u;
      inWeights[p] = weights[o]!;
    }
  }
  return { n, m, offsets, targets, weights, inOffsets, inSources, inWeights };
}

/** Weight of edge u→v, or 0 when absent (binary search over the sorted slice). */
export function edgeWeight(g: Csr, u: number, v: number): number {
  let lo = g.offsets[u]!;
  let hi = g.offsets[u + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = g.targets[mid]!;
    if (t === v) return g.weights[mid]!;
    if (t < v) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

/** Out-degree of u. */
export function outDegree(g: Csr, u: number): number {
  return g.offsets[u + 1]! - g.offsets[u]!;
}

/** In-degree of u. */
export function inDegree(g: Csr, u: number): number {
  return g.inOffsets[u + 1]! - g.inOffsets[u]!;
}

/**
 * Undirected neighbourhood of u (union of in- and out-neighbours) with, per neighbour, the larger of
 * the two directed weights. Sorted by neighbour id.
 */
export function undirectedNeighbors(g: Csr, u: number): { ids: number[]; weights: number[] } {
  const ids: number[] = [];
  const weights: number[] = [];
  let i = g.offsets[u]!;
  const iEnd = g.offsets[u + 1]!;
  let j = g.inOffsets[u]!;
  const jEnd = g.inOffsets[u + 1]!;
  while (i < iEnd || j < jEnd) {
    const a = i < iEnd ? g.targets[i]! : Number.POSITIVE_INFINITY;
    const b = j < jEnd ? g.inSources[j]! : Number.POSITIVE_INFINITY;
    if (a === b) {
      ids.push(a);
      weights.push(Math.max(g.weights[i]!, g.inWeights[j]!));
      i++;
      j++;
    } else if (a < b) {
      ids.push(a);
      weights.push(g.weights[i]!);
      i++;
    } else {
      ids.push(b);
      weights.push(g.inWeights[j]!);
      j++;
    }
  }
  return { ids, weights };
}
