/**
 * The graph stage of the staged vector index: a proximity graph over the 4-bit codes, searched by a beam, for data
 * whose neighbours spread over most IVF lists (the IVF calibration asks for more than ivfMaxProbeFraction of n).
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * Codes: the fine stage's 4-bit codes of y_i = R(x_i − μ) (fine-codes.ts: c_ij ∈ [0, 15], scale α_i, residual ‖e_i‖),
 * by id, in the u4 kernel's memory. Estimates (u = Rq quantised to int16 with step qs, simd/u4-scan.ts):
 *
 *     query:   est_i = α_i · qs · (S_i − 7.5·K) ≈ q·x_i − q·μ,           S_i = Σ_j c_ij k_j  (scan_u4_ids)
 *     build:   sim(a, b) = α_a α_b (S_ab − 7.5·K_a) / 2 + μ·x_b ≈ x_a·x_b − μ·x_a + |μ|²,
 *              with lanes k_j = 2 c_aj − 15 for a (exact integers), so Σ_j (c_aj − 7.5)(c_bj − 7.5)
 *              = (S_ab − 7.5·K_a) / 2; for a fixed a, sim ranks b as x_a·x_b does. S_ab = 2 P_ab − 15 s_b and
 *              K_a = 2 s_a − 15 D from the code-to-code products P_ab = Σ_j c_aj c_bj (kernels.wat dots_u4u4) and
 *              the code sums s_i = Σ_j c_ij: the same integers, without building a's lanes in JS.
 *
 * Build (O(n · (T·leaf + R)) code dots, in the SIMD kernel): candidate neighbours from T random-projection trees
 * (Dasgupta & Freund, "Random projection trees and low dimensional manifolds", STOC 2008; the split of Annoy: the
 * direction between two random members, here cut at the median projection so leaves hold ≤ `leaf` vectors): all
 * pairs inside each leaf are scored and each vector keeps its `candidates` best; then one round of local join
 * (Dong, Moses & Li, "Efficient k-nearest neighbor graph construction for generic similarity measures", WWW 2011:
 * NN-descent): every vector scores its candidates' candidates. The graph keeps, per vector, its nearest candidates
 * pruned by the relative-neighbourhood rule of Vamana (Subramanya et al., "DiskANN", NeurIPS 2019, α = 1: a candidate
 * b is dropped when a kept neighbour c is nearer to b than a is) up to degree/2, then the reverse edges, then the
 * remaining nearest candidates up to `degree` (−1 pads). Entry points: `entries` vectors spaced evenly over the ids.
 *
 * Search (a best-first beam, as HNSW's layer-0 search: Malkov & Yashunin, TPAMI 2020; run whole inside the kernel,
 * kernels.wat beam_u4, the pool equal bit for bit to beamSearch here, its JS reference): the entry points are scored
 * and the best `beam` of them fill a pool sorted by est; repeatedly the best unexpanded pool member's unvisited
 * neighbours are scored (one kernel call) and the pool keeps the best `beam`; it stops when every pool member is
 * expanded. The pool's candidates then go to the bounded exact re-rank of the fine stage (bound_i = ε·‖q‖·‖e_i‖/√D
 * + α_i·3.75·D·qs, fine-codes.ts): the answer is exact over the candidates the beam reached; recall is the beam's.
 * The beam width is calibrated at build: for `calibrationQueries` indexed vectors, searched as queries with their
 * own vector barred (so the search must reach their neighbours through others), the smallest width of a ladder
 * that finds every one's exact top-10, times `beamMargin`; when no width of the ladder does, the index keeps no graph.
 * Measurements: docs/decisions/vector-index-graph.md.
 */
import { topKIds } from "../search/top-k.ts";
import type { F32RowDots } from "../simd/row-dots.ts";
import { quantizeU4Query, type U4Graph, type U4Scan } from "../simd/u4-scan.ts";
import type { Rng } from "../random/rng.ts";
import type { RowKernel } from "./exact-rerank.ts";
import { boundedRerank } from "./fine-codes.ts";
import { DEFAULTS, type GraphStage, type VectorHit, type VectorIndex } from "./index-types.ts";
import { rotatedQuery } from "./rotation.ts";

export interface GraphBuildInput {
  readonly n: number;
  /** Code coordinates (a multiple of 32). */
  readonly D: number;
  /** The kernel holding the 4-bit codes by id (n positions) and the graph's part (u4GraphScan: written here). */
  readonly scan: U4Scan & { readonly graph: U4Graph };
  /** α_i and ‖e_i‖ by id. */
  readonly scales: Float32Array;
  readonly residuals: Float32Array;
  /** μ·x_i by id. */
  readonly meanDots: Float64Array;
  readonly rng: Rng;
}

/** Per-vector bounded candidate lists (best `k` by sim, unsorted, duplicates refused). */
class Candidates {
  readonly ids: Int32Array;
  readonly sims: Float32Array;
  readonly count: Int32Array;
  /** The smallest sim held once a list is full (−∞ before). */
  readonly floor: Float32Array;
  constructor(
    readonly n: number,
    readonly k: number,
  ) {
    this.ids = new Int32Array(n * k).fill(-1);
    this.sims = new Float32Array(n * k);
    this.count = new Int32Array(n);
    this.floor = new Float32Array(n).fill(Number.NEGATIVE_INFINITY);
  }
  offer(a: number, b: number, sim: number): void {
    if (!(sim > this.floor[a]!)) return;
    const o = a * this.k;
    const c = this.count[a]!;
    for (let t = 0; t < c; t++) if (this.ids[o + t] === b) return;
    if (c < this.k) {
      this.ids[o + c] = b;
      this.sims[o + c] = sim;
      this.count[a] = c + 1;
      if (c + 1 === this.k) this.floor[a] = this.minOf(o);
      return;
    }
    let w = 0;
    for (let t = 1; t < this.k; t++) if (this.sims[o + t]! < this.sims[o + w]!) w = t;
    this.ids[o + w] = b;
    this.sims[o + w] = sim;
    this.floor[a] = this.minOf(o);
  }
  private minOf(o: number): number {
    let m = Number.POSITIVE_INFINITY;
    for (let t = 0; t < this.k; t++) if (this.sims[o + t]! < m) m = this.sims[o + t]!;
    return m;
  }
  /** The ids of a's list, best first (ties: smaller id). */
  sorted(a: number): number[] {
    const o = a * this.k;
    const c = this.count[a]!;
    const order = Array.from({ length: c }, (_, t) => t);
    order.sort((x, y) => this.sims[o + y]! - this.sims[o + x]! || this.ids[o + x]! - this.ids[o + y]!);
    return order.map((t) => this.ids[o + t]!);
  }
}

/** Builds the graph stage (see the header). */
export function buildGraph(input: GraphBuildInput): Omit<GraphStage, "beam"> {
  const { n, D, scan, scales, meanDots, rng } = input;
  const degree = scan.graph.degree;
  const K = Math.min(DEFAULTS.graphCandidates, Math.max(1, n - 1));
  const leaf = DEFAULTS.graphLeaf;
  const cand = new Candidates(n, K);
  const codes = scan.codes;
  const ids = scan.ids;
  const dir = new Float64Array(D);
  const proj = new Float64Array(n);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  const sel = new Float64Array(n);

  // ‖y_i‖² ≈ α_i² Σ_j (c_ij − 7.5)² (consistent with the code estimates) and s_i = Σ_j c_ij
  const { self: selfDots, sums: codeSums } = codeNorms(codes, scales, n, D);
  /** sim(a, b) for b = list[0 .. count) into the candidate lists of both (the kernel's ids hold the list). */
  const scoreAgainst = (a: number, count: number) => {
    const K_a = 2 * codeSums[a]! - 15 * D;
    const pairs = scan.graph.pairDots(a, count);
    const alpha = scales[a]!;
    for (let t = 0; t < count; t++) {
      const b = ids[t]!;
      // S_ab = Σ_j c_bj (2 c_aj − 15) = 2 Σ_j c_aj c_bj − 15 s_b: the same exact integer as the lanes' scan
      const dot = (alpha * scales[b]! * (2 * pairs[t]! - 15 * codeSums[b]! - 7.5 * K_a)) / 2;
      cand.offer(a, b, dot + meanDots[b]!);
      cand.offer(b, a, dot + meanDots[a]!);
    }
  };

  for (let tree = 0; tree < DEFAULTS.graphTrees; tree++) {
    const stack: number[] = [0, n];
    while (stack.length > 0) {
      const hi = stack.pop()!;
      const lo = stack.pop()!;
      const size = hi - lo;
      if (size <= leaf) {
        for (let s = lo; s < hi - 1; s++) {
          const count = hi - s - 1;
          for (let t = 0; t < count; t++) ids[t] = perm[s + 1 + t]!;
          scoreAgainst(perm[s]!, count);
        }
        continue;
      }
      // Split direction y_a − y_b of two random members (their codes), cut at the median projection.
      const a = perm[lo + Math.floor(rng() * size)]!;
      let b = perm[lo + Math.floor(rng() * size)]!;
      if (b === a) b = perm[lo + ((perm.indexOf(a, lo) - lo + 1) % size)]!;
      const oa = a * (D >> 1);
      const ob = b * (D >> 1);
      for (let j = 0; j < D; j += 2) {
        const va = codes[oa + (j >> 1)]!;
        const vb = codes[ob + (j >> 1)]!;
        dir[j] = scales[a]! * ((va & 15) - 7.5) - scales[b]! * ((vb & 15) - 7.5);
        dir[j + 1] = scales[a]! * ((va >> 4) - 7.5) - scales[b]! * ((vb >> 4) - 7.5);
      }
      const uq = quantizeU4Query(dir, D);
      scan.setQuery(uq);
      for (let t = 0; t < size; t++) ids[t] = perm[lo + t]!;
      const sums = scan.scanIds(size);
      for (let t = 0; t < size; t++) {
        const id = perm[lo + t]!;
        proj[id] = scales[id]! * (sums[t]! - 7.5 * uq.sum) + 1e-12 * rng();
        sel[t] = proj[id]!;
      }
      const half = size >> 1;
      // the half-th largest projection: vectors above it go left (exactly `half` of them, ties broken by rng jitter)
      const top = topKIds(sel, size, half, new Float64Array(size));
      const left = new Uint8Array(size);
      for (const t of top) left[t] = 1;
      const buf = perm.slice(lo, hi);
      let p = lo;
      for (let t = 0; t < size; t++) if (left[t]) perm[p++] = buf[t]!;
      for (let t = 0; t < size; t++) if (!left[t]) perm[p++] = buf[t]!;
      stack.push(lo, lo + half, lo + half, hi);
    }
  }
  // Rounds of local join: each vector against its candidates' candidates and its reverse candidates' candidates.
  const rounds = DEFAULTS.graphJoinRounds;
  const fanout = DEFAULTS.graphJoinFanout;
  const seen = new Int32Array(n).fill(-1);
  for (let round = 0; round < rounds; round++) {
    const snapshot = cand.ids.slice();
    const counts = cand.count.slice();
    // the best `fanout` of each list, and reverse lists (up to `fanout` each)
    const best = new Int32Array(n * fanout).fill(-1);
    const rev = new Int32Array(n * fanout).fill(-1);
    const revCount = new Int32Array(n);
    for (let a = 0; a < n; a++) {
      const sorted = cand.sorted(a);
      for (let t = 0; t < Math.min(fanout, sorted.length); t++) {
        const b = sorted[t]!;
        best[a * fanout + t] = b;
        if (revCount[b]! < fanout) rev[b * fanout + revCount[b]!++] = a;
      }
    }
    for (let a = 0; a < n; a++) {
      let count = 0;
      seen[a] = a + round * n;
      for (let t = 0; t < counts[a]!; t++) seen[snapshot[a * K + t]!] = a + round * n;
      for (let side = 0; side < 2; side++) {
        const src = side === 0 ? best : rev;
        for (let t = 0; t < fanout; t++) {
          const b = src[a * fanout + t]!;
          if (b < 0) break;
          for (let u = 0; u < fanout; u++) {
            const c = best[b * fanout + u]!;
            if (c < 0) break;
            if (seen[c] === a + round * n) continue;
            seen[c] = a + round * n;
            ids[count++] = c;
          }
        }
      }
      if (count > 0) scoreAgainst(a, count);
    }
  }
  // Pruned nearest, reverse edges, then the remaining nearest (see the header).
  const neighbors = scan.graph.neighbors.fill(-1);
  const fill = new Int32Array(n);
  const sortedLists: number[][] = new Array(n);
  for (let a = 0; a < n; a++) sortedLists[a] = cand.sorted(a);
  const keepFirst = Math.max(1, degree >> 1);
  for (let a = 0; a < n; a++) {
    const list = sortedLists[a]!;
    if (list.length === 0) continue;
    // sim(a, b) for the list, then the pairwise sims of the list among itself (the pruning rule), in the kernel
    const K_a = 2 * codeSums[a]! - 15 * D;
    for (let t = 0; t < list.length; t++) ids[t] = list[t]!;
    const ownPairs = scan.graph.pairDots(a, list.length);
    const own = new Float64Array(list.length);
    for (let t = 0; t < list.length; t++)
      own[t] = scales[a]! * scales[list[t]!]! * (2 * ownPairs[t]! - 15 * codeSums[list[t]!]! - 7.5 * K_a);
    const kept: number[] = [];
    for (let t = 0; t < list.length && kept.length < keepFirst; t++) {
      const b = list[t]!;
      if (kept.length > 0) {
        const K_b = 2 * codeSums[b]! - 15 * D;
        for (let u = 0; u < kept.length; u++) ids[u] = list[kept[u]!]!;
        const pairs = scan.graph.pairDots(b, kept.length);
        let dominated = false;
        // ‖y_b − y_c‖² < ‖y_b − y_a‖²  ⇔  2 y_b·y_c − ‖y_c‖² > 2 y_b·y_a − ‖y_a‖²  (own and bc are 2 y·y: lanes 2c − 15)
        for (let u = 0; u < kept.length && !dominated; u++) {
          const c = list[kept[u]!]!;
          const bc = scales[b]! * scales[c]! * (2 * pairs[u]! - 15 * codeSums[c]! - 7.5 * K_b);
          if (bc - selfDots[c]! > own[t]! - selfDots[a]!) dominated = true;
        }
        if (dominated) continue;
      }
      kept.push(t);
    }
    for (const t of kept) neighbors[a * degree + fill[a]!++] = list[t]!;
  }
  // reverse edges
  for (let a = 0; a < n; a++) {
    const first = fill[a]!;
    for (let t = 0; t < first; t++) {
      const b = neighbors[a * degree + t]!;
      if (fill[b]! >= degree) continue;
      let present = false;
      for (let u = 0; u < fill[b]!; u++) if (neighbors[b * degree + u] === a) present = true;
      if (!present) neighbors[b * degree + fill[b]!++] = a;
    }
  }
  for (let a = 0; a < n; a++) {
    for (const b of sortedLists[a]!) {
      if (fill[a]! >= degree) break;
      let present = false;
      for (let u = 0; u < fill[a]!; u++) if (neighbors[a * degree + u] === b) present = true;
      if (!present) neighbors[a * degree + fill[a]!++] = b;
    }
  }
  const entries = scan.graph.entries;
  const E = entries.length;
  for (let e = 0; e < E; e++) entries[e] = Math.floor((e * n) / E);
  scan.graph.scales.set(scales);
  return { degree, neighbors, entries, codes, scales: scan.graph.scales, residuals: input.residuals };
}

let visited = new Uint32Array(0);
let epoch = 0;
let poolIds = new Int32Array(0);
let poolEst = new Float64Array(0);
let poolDone = new Uint8Array(0);

/**
 * The beam search in JS (see the header; the reference of the kernel's beam_u4, which searches: tests): the pool's ids and estimates (est, in q·x − q·μ units), best first, `size` of
 * them; `barred` (an id, or −1) is never visited (the calibration's held-out vector).
 */
export function beamSearch(
  graph: GraphStage,
  scan: U4Scan,
  step: number,
  offset: number,
  beam: number,
  barred: number,
): { ids: Int32Array; est: Float64Array; size: number } {
  const n = graph.scales.length;
  if (visited.length < n) {
    visited = new Uint32Array(n);
    epoch = 0;
  }
  epoch++;
  if (epoch >= 0xffffffff) {
    visited.fill(0);
    epoch = 1;
  }
  if (poolIds.length < beam + 1) {
    poolIds = new Int32Array(beam + 1);
    poolEst = new Float64Array(beam + 1);
    poolDone = new Uint8Array(beam + 1);
  }
  const pIds = poolIds;
  const pEst = poolEst;
  const pDone = poolDone;
  const scales = graph.scales;
  const nb = graph.neighbors;
  const deg = graph.degree;
  const ids = scan.ids;
  const mark = epoch;
  let size = 0;
  /** Inserts (id, est) in the sorted pool (dropping the last when full); returns its position (beam when refused). */
  const insert = (id: number, est: number): number => {
    if (size === beam && !(est > pEst[size - 1]!)) return beam;
    let lo = 0;
    let hi = size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pEst[mid]! >= est) lo = mid + 1;
      else hi = mid;
    }
    const last = size === beam ? beam - 1 : size++;
    for (let t = last; t > lo; t--) {
      pIds[t] = pIds[t - 1]!;
      pEst[t] = pEst[t - 1]!;
      pDone[t] = pDone[t - 1]!;
    }
    pIds[lo] = id;
    pEst[lo] = est;
    pDone[lo] = 0;
    return lo;
  };
  if (barred >= 0) visited[barred] = mark;
  let c = 0;
  for (const e of graph.entries) {
    if (visited[e] === mark) continue;
    visited[e] = mark;
    ids[c++] = e;
  }
  let sums = scan.scanIds(c);
  for (let t = 0; t < c; t++) insert(ids[t]!, scales[ids[t]!]! * step * (sums[t]! - offset));
  let i = 0;
  for (;;) {
    while (i < size && pDone[i]) i++;
    if (i >= size) break;
    pDone[i] = 1;
    const u = pIds[i]!;
    c = 0;
    for (let t = u * deg, end = t + deg; t < end; t++) {
      const v = nb[t]!;
      if (v < 0) break;
      if (visited[v] === mark) continue;
      visited[v] = mark;
      ids[c++] = v;
    }
    if (c === 0) continue;
    sums = scan.scanIds(c);
    let lowest = beam;
    for (let t = 0; t < c; t++) {
      const v = ids[t]!;
      const at = insert(v, scales[v]! * step * (sums[t]! - offset));
      if (at < lowest) lowest = at;
    }
    if (lowest < i) i = lowest;
  }
  return { ids: pIds, est: pEst, size };
}

let lowerBuf = new Float64Array(0);

/**
 * The graph stage's answer (see the header): the beam's pool, bounded like the fine stage's candidates, then the
 * bounded exact re-rank.
 */
export function graphSearch(
  index: VectorIndex,
  graph: GraphStage,
  scan: U4Scan & { readonly graph: U4Graph },
  kernel: RowKernel,
  q: Float64Array,
  topN: number,
  beam: number,
  fineBound: number,
  barred = -1,
): VectorHit[] {
  const uq = quantizeU4Query(rotatedQuery(index, q), index.bits);
  scan.setQuery(uq);
  const width = Math.max(beam, topN);
  const pool = scan.graph.beam(uq.step, 7.5 * uq.sum, width, barred);
  const m = pool.size;
  let qq = 0;
  for (let j = 0; j < index.d; j++) qq += q[j]! * q[j]!;
  const spread = (fineBound * Math.sqrt(qq)) / Math.sqrt(index.bits);
  if (lowerBuf.length < m) lowerBuf = new Float64Array(Math.max(m, 2 * lowerBuf.length));
  const upper = new Float64Array(m);
  const ids = new Int32Array(m);
  for (let t = 0; t < m; t++) {
    const id = pool.ids[t]!;
    const bound = spread * graph.residuals[id]! + graph.scales[id]! * uq.errorBound;
    lowerBuf[t] = pool.est[t]! - bound;
    upper[t] = pool.est[t]! + bound;
    ids[t] = id;
  }
  if (m <= topN) return boundedRerank(index, kernel, ids, upper, q, topN);
  const cut = kthLargest(lowerBuf, m, topN);
  let k = 0;
  for (let t = 0; t < m; t++) {
    if (upper[t]! >= cut) {
      upper[k] = upper[t]!;
      ids[k++] = ids[t]!;
    }
  }
  return boundedRerank(index, kernel, ids.subarray(0, k), upper.subarray(0, k), q, topN);
}

function kthLargest(a: Float64Array, m: number, k: number): number {
  const copy = a.slice(0, m);
  copy.sort();
  return copy[m - k]!;
}

/** Beam widths the calibration tries, in order. */
const BEAM_LADDER = [16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512];

/**
 * The beam width of the graph stage, measured on the data (see the header): the smallest width of the ladder at which
 * every calibration query (an indexed vector, itself barred) finds all of its exact top-K (`truth`), times
 * `beamMargin`, rounded up; undefined when none does.
 */
export function calibrateBeam(
  index: VectorIndex,
  graph: GraphStage,
  scan: U4Scan & { readonly graph: U4Graph },
  kernel: RowKernel,
  queries: Int32Array,
  truth: Int32Array[],
): number | undefined {
  const d = index.d;
  let found: number | undefined;
  for (const beam of BEAM_LADDER) {
    let all = true;
    for (let s = 0; s < queries.length && all; s++) {
      const id = queries[s]!;
      const q = Float64Array.from(kernel.dots.rows.subarray(id * d, (id + 1) * d));
      const want = truth[s]!;
      const hits = graphSearch(index, graph, scan, kernel, q, want.length, beam, DEFAULTS.fineBound, id);
      const got = new Set(hits.map((h) => h.id));
      for (const t of want) if (!got.has(t)) all = false;
    }
    if (all) {
      found = beam;
      break;
    }
  }
  return found === undefined ? undefined : Math.ceil(found * DEFAULTS.graphBeamMargin);
}

export interface GraphKernel {
  readonly scan: U4Scan & { readonly graph: U4Graph };
  /** The codes (used only while index.graph.codes is still this view). */
  readonly source: Uint8Array;
}

/** The graph stage's kernels by index object: made at build (the codes live only in the kernel's memory). */
export const graphKernels = new WeakMap<VectorIndex, GraphKernel | null>();

export function graphKernel(index: VectorIndex): GraphKernel | undefined {
  const k = graphKernels.get(index);
  return k && k.source === index.graph?.codes ? k : undefined;
}

/** ‖y_i‖² ≈ α_i² Σ_j (c_ij − 7.5)² and s_i = Σ_j c_ij of every code (the build's pair estimates). */
function codeNorms(
  codes: Uint8Array,
  scales: Float32Array,
  n: number,
  D: number,
): { self: Float64Array; sums: Int32Array } {
  const self = new Float64Array(n);
  const sums = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    let c = 0;
    for (let b = i * (D >> 1); b < (i + 1) * (D >> 1); b++) {
      const lo = codes[b]! & 15;
      const hi = codes[b]! >> 4;
      s += (lo - 7.5) ** 2 + (hi - 7.5) ** 2;
      c += lo + hi;
    }
    self[i] = scales[i]! * scales[i]! * s;
    sums[i] = c;
  }
  return { self, sums };
}
