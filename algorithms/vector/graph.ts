/**
 * The graph stage of the staged vector index: a proximity graph over the 4-bit codes, searched by a beam, for data
 * whose neighbours spread over most IVF lists (the IVF calibration asks for more than ivfMaxProbeFraction of n).
 * Part of the staged vector index: algorithms/search/vector-index.ts has the overview and the entry points.
 *
 * Codes: the fine stage's 4-bit codes of y_i = R(x_i − μ) (fine-codes.ts: c_ij ∈ [0, 15], scale α_i, residual ‖e_i‖),
 * by id, in the u4 kernel's memory. Estimates (u = Rq quantised to int16 with step qs, simd/u4-scan.ts):
 *
 *     query:   est_i = α_i · qs · (S_i − 7.5·K) ≈ q·x_i − q·μ,           S_i = Σ_j c_ij k_j  (scan_u4_ids)
 *     build:   ‖y_a − y_b‖² ≈ ‖y_a‖² + ‖y_b‖² − 2 α_a α_b (P_ab − 7.5 (s_a + s_b) + 56.25·D),
 *              P_ab = Σ_j c_aj c_bj (kernels.wat dots_u4u4, exact integers), s_i = Σ_j c_ij,
 *              ‖y_i‖² ≈ α_i² Σ_j (c_ij − 7.5)² (so that the distances are those of the decoded codes);
 *     build search (a's code as the query, kernels.wat u4_lanes: k_j = c_aj, so S_b = P_ab):
 *              est_b = ⟨ŷ_a + Rμ, ŷ_b⟩ = α_b (α_a (P_ab − 7.5 (s_a + s_b) + 56.25·D) + bias_b),
 *              bias_b = Σ_j (Rμ)_j (c_bj − 7.5), ŷ_i = α_i (c_i − 7.5) the decoded code.
 *
 * Build: HNSW's bottom layer (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search using
 * Hierarchical Navigable Small World graphs", TPAMI 2020, algorithms 1 and 4), by insertion in a seeded order
 * (with the IVF build's k-means cells: a random head of `graphRandomHead` · n vectors, then the rest cell by cell,
 * the cells in a random order, the build kernel holding the codes in cell order, so that successive searches
 * visit codes still in the caches; the head gives the graph its long edges; without cells, all in a random order):
 * each vector a is searched as a query (its code's reconstruction ŷ_a + Rμ ≈ R x_a, scored from the code products
 * P_ab: the build search above, exact integers, no query built in JS) by the kernel beam over the vectors inserted
 * so far, with a pool of `graphBuildPool` (efConstruction); the pool, sorted by the code
 * distance to a, is selected by HNSW's heuristic (a candidate c is kept unless a kept r has ‖y_c − y_r‖ <
 * ‖y_c − y_a‖) up to `graphInsertEdges`, and a is appended to each kept neighbour's list, which, when full
 * (`degree`), is selected again by the same heuristic. No list is filled back with pruned candidates (hnswlib's
 * default). O(n · graphBuildPool · log n) code products, the searches and the selections in the kernel (kernels.wat
 * beam_u4 and select_u4, one call each; selectNeighbours here is the selection's JS reference). Entry points: the
 * first `graphEntries` vectors inserted (without upper layers; one entry measured as good as 64 spaced ones). The
 * graph is built in lists of `degree` slots, then served from a copy with compact rows (each list at its length,
 * 3-byte ids, row starts in `offsets`; the build's arrays dropped).
 *
 * Search (a best-first beam, as HNSW's layer-0 search: Malkov & Yashunin, TPAMI 2020; run whole inside the kernel,
 * kernels.wat beam_u4, the pool equal bit for bit to beamSearch here, its JS reference): the entry points are scored
 * and the best `beam` of them fill a pool sorted by est; repeatedly the best unexpanded pool member's unvisited
 * neighbours are scored (one kernel call) and the pool keeps the best `beam`; it stops when every pool member is
 * expanded. The pool's candidates then go to the bounded exact re-rank of the fine stage (bound_i = ε·‖q‖·‖e_i‖/√D
 * + α_i·3.75·D·qs, fine-codes.ts): the answer is exact over the candidates the beam reached; recall is the beam's.
 * The beam width is calibrated at build: for `graphCalibrationQueries` indexed vectors, searched as queries with
 * their own vector barred (so the search must reach their neighbours through others), the smallest width of a ladder
 * whose recall@10 over them reaches `graphCalibrationRecall`, times `graphBeamMargin`; when no width of the ladder
 * does, the index keeps no graph.
 * Measurements: docs/decisions/vector-index-graph.md.
 */
import { quantizeU4Query, type U4Graph, type U4Scan, u4GraphScan } from "../simd/u4-scan.ts";
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
  /** Rμ, the rotated corpus mean (D coordinates). */
  readonly rotatedMean: Float64Array;
  readonly rng: Rng;
  /**
   * Each vector's k-means cell (the IVF build's assignment, ivf.ts), or absent: then every vector is inserted in a
   * random order. With cells, after a random head (`graphRandomHead` of n) the rest is inserted cell by cell (see the
   * header), and the build kernel holds the codes in cell order.
   */
  readonly cells?: Int32Array;
}

/**
 * Builds the graph stage by insertion (see the header) in the build kernel `input.scan`, then copies it into a serving
 * kernel with compact rows (u4GraphScan with `edges`: the lists at their length, no build arrays); the stage and the
 * kernel that serves it (the build kernel itself when the serving one cannot be allocated).
 */
export function buildGraph(input: GraphBuildInput): {
  stage: Omit<GraphStage, "beam">;
  scan: U4Scan & { readonly graph: U4Graph };
} {
  const { n, D, scan, rng } = input;
  const g = scan.graph;
  const deg = g.degree;
  const M = Math.min(deg, DEFAULTS.graphInsertEdges);
  const pool = DEFAULTS.graphBuildPool;
  const codes = scan.codes;
  const scales = g.scales;
  const bytes = D >> 1;
  // The build works on positions: position p holds the vector order[p] (cell by cell with cells, else p itself).
  const cells = input.cells;
  const order = cells
    ? Int32Array.from({ length: n }, (_, i) => i).sort((x, y) => cells[x]! - cells[y]! || x - y)
    : undefined;
  if (order) {
    const byId = codes.slice(0, n * bytes);
    for (let p = 0; p < n; p++) {
      const i = order[p]!;
      codes.set(byId.subarray(i * bytes, (i + 1) * bytes), p * bytes);
      scales[p] = input.scales[i]!;
    }
  } else scales.set(input.scales);
  const nb = g.neighbors as Int32Array;
  nb.fill(-1);
  const ids = scan.ids;
  codeNorms(codes, scales, n, D, g.norms, g.sums);
  meanBias(codes, input.rotatedMean, n, D, g.bias);
  // A seeded insertion order; the first vector inserted is the entry point while building.
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  if (order && cells) {
    // after the random head, cell by cell (the cells in a seeded random order), each cell in the random order above
    let most = 0;
    for (let i = 0; i < n; i++) most = Math.max(most, cells[i]!);
    const cellKey = Float64Array.from({ length: most + 1 }, () => rng());
    const rank = new Int32Array(n);
    for (let t = 0; t < n; t++) rank[perm[t]!] = t;
    const head = Math.floor(n * DEFAULTS.graphRandomHead);
    perm
      .subarray(head)
      .sort((x, y) => cellKey[cells[order[x]!]!]! - cellKey[cells[order[y]!]!]! || rank[x]! - rank[y]!);
  }
  const entries = g.entries;
  entries.fill(perm[0]!);
  for (let s = 1; s < n; s++) {
    const a = perm[s]!;
    // a's own code as the query (est_v = ⟨ŷ_a + Rμ, ŷ_v⟩); vectors not yet inserted have no edges into them
    g.anchorQuery(a);
    const found = g.beam(1, 0, pool, a, a);
    const m = found.size;
    ids.set(found.ids.subarray(0, m));
    const mine = g.select(a, m, M).slice();
    const k = mine.length;
    for (let t = 0; t < deg; t++) nb[a * deg + t] = t < k ? mine[t]! : -1;
    // a into each new neighbour's list: appended while there is room, else that list and a selected again
    for (const b of mine) {
      const row = b * deg;
      let fill = 0;
      while (fill < deg && nb[row + fill]! >= 0) fill++;
      if (fill < deg) {
        nb[row + fill] = a;
        continue;
      }
      ids.set(nb.subarray(row, row + deg));
      ids[deg] = a;
      const again = g.select(b, deg + 1, deg);
      for (let t = 0; t < deg; t++) nb[row + t] = t < again.length ? again[t]! : -1;
    }
  }
  for (let e = 0; e < entries.length; e++) entries[e] = perm[Math.min(e, n - 1)]!;
  // The serving kernel: the same codes, scales and entry points, the rows compact (a row ends at its first −1)
  let edges = 0;
  for (let i = 0; i < n * deg; i++) if (nb[i]! >= 0) edges++;
  const out = u4GraphScan(n, D, deg, entries.length, edges);
  if (!out) {
    if (order) byIdLayout(order, n, deg, codes, bytes, nb, entries);
    scales.set(input.scales);
    return { stage: { degree: deg, neighbors: nb, entries, codes, scales, residuals: input.residuals }, scan };
  }
  const o = out.graph;
  const at = positionsOf(order, n);
  if (order) for (let p = 0; p < n; p++) out.codes.set(codes.subarray(p * bytes, (p + 1) * bytes), order[p]! * bytes);
  else out.codes.set(codes);
  o.scales.set(input.scales);
  for (let t = 0; t < entries.length; t++) o.entries[t] = order ? order[entries[t]!]! : entries[t]!;
  const offsets = o.offsets!;
  const packed = o.neighbors;
  let e = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = e;
    for (let t = at[i]! * deg, end = t + deg; t < end && nb[t]! >= 0; t++, e++) {
      const v = order ? order[nb[t]!]! : nb[t]!;
      packed[3 * e] = v & 255;
      packed[3 * e + 1] = (v >> 8) & 255;
      packed[3 * e + 2] = v >> 16;
    }
  }
  offsets[n] = e;
  const stage = {
    degree: deg,
    neighbors: o.neighbors,
    offsets,
    entries: o.entries,
    codes: out.codes,
    scales: o.scales,
  };
  return { stage: { ...stage, residuals: input.residuals }, scan: out };
}

/** at[i] = the position of vector i (the inverse of order; the identity without it). */
function positionsOf(order: Int32Array | undefined, n: number): Int32Array {
  const at = new Int32Array(n);
  for (let p = 0; p < n; p++) at[order ? order[p]! : p] = p;
  return at;
}

/** The build kernel's codes, lists and entry points rewritten from positions to ids in place (see buildGraph). */
function byIdLayout(
  order: Int32Array,
  n: number,
  deg: number,
  codes: Uint8Array,
  bytes: number,
  nb: Int32Array,
  entries: Int32Array,
): void {
  const byPosition = codes.slice(0, n * bytes);
  const lists = nb.slice(0, n * deg);
  for (let p = 0; p < n; p++) {
    const i = order[p]!;
    codes.set(byPosition.subarray(p * bytes, (p + 1) * bytes), i * bytes);
    for (let t = 0; t < deg; t++) {
      const v = lists[p * deg + t]!;
      nb[i * deg + t] = v < 0 ? -1 : order[v]!;
    }
  }
  for (let t = 0; t < entries.length; t++) entries[t] = order[entries[t]!]!;
}

let visited = new Uint32Array(0);
let epoch = 0;
let poolIds = new Int32Array(0);
let poolEst = new Float64Array(0);
let poolDone = new Uint8Array(0);

/**
 * The beam search in JS (see the header; the reference of the kernel's beam_u4, which searches: tests): the pool's ids and estimates (est, in q·x − q·μ units), best first, `size` of
 * them; `barred` (an id, or −1) is never visited (the calibration's held-out vector). With `anchor`, the build search
 * of the header (the query set to the anchor's code lanes): est_v = α_v (α_a ((S_v − 7.5 (s_a + s_v)) + half) + bias_v).
 */
export function beamSearch(
  graph: GraphStage,
  scan: U4Scan,
  step: number,
  offset: number,
  beam: number,
  barred: number,
  anchor?: { readonly a: number; readonly sums: Int32Array; readonly bias: Float64Array; readonly half: number },
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
  const offsets = graph.offsets;
  const ids = scan.ids;
  const mark = epoch;
  const estOf = anchor
    ? (v: number, S: number) =>
        scales[v]! *
        (scales[anchor.a]! * (S - 7.5 * (anchor.sums[anchor.a]! + anchor.sums[v]!) + anchor.half) + anchor.bias[v]!)
    : (v: number, S: number) => scales[v]! * step * (S - offset);
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
  for (let t = 0; t < c; t++) insert(ids[t]!, estOf(ids[t]!, sums[t]!));
  let i = 0;
  for (;;) {
    while (i < size && pDone[i]) i++;
    if (i >= size) break;
    pDone[i] = 1;
    const u = pIds[i]!;
    c = 0;
    const from = offsets ? offsets[u]! : u * deg;
    for (let t = from, end = offsets ? offsets[u + 1]! : from + deg; t < end; t++) {
      const v = offsets ? nb[3 * t]! | (nb[3 * t + 1]! << 8) | (nb[3 * t + 2]! << 16) : nb[t]!;
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
      const at = insert(v, estOf(v, sums[t]!));
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
 * the calibration queries (indexed vectors, each itself barred) find at least graphCalibrationRecall of their exact
 * top-K (`truth`), times `graphBeamMargin`, rounded up; undefined when none does.
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
  let total = 0;
  for (let s = 0; s < queries.length; s++) total += truth[s]!.length;
  // the misses a width may have (a small epsilon: 0.001 · 1280 is 1.28 in floating point, 1 miss allowed)
  const allowed = Math.floor((1 - DEFAULTS.graphCalibrationRecall) * total + 1e-9);
  for (const beam of BEAM_LADDER) {
    let missed = 0;
    for (let s = 0; s < queries.length && missed <= allowed; s++) {
      const id = queries[s]!;
      const q = Float64Array.from(kernel.dots.rows.subarray(id * d, (id + 1) * d));
      const want = truth[s]!;
      const hits = graphSearch(index, graph, scan, kernel, q, want.length, beam, DEFAULTS.fineBound, id);
      const got = new Set(hits.map((h) => h.id));
      for (const t of want) if (!got.has(t)) missed++;
    }
    if (missed <= allowed) return Math.ceil(beam * DEFAULTS.graphBeamMargin);
  }
  return undefined;
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

/** ‖y_i‖² ≈ α_i² Σ_j (c_ij − 7.5)² and s_i = Σ_j c_ij of every code (the build's pair estimates), into self and sums. */
export function codeNorms(
  codes: Uint8Array,
  scales: Float32Array,
  n: number,
  D: number,
  self: Float64Array = new Float64Array(n),
  sums: Int32Array = new Int32Array(n),
): { self: Float64Array; sums: Int32Array } {
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

/** bias_i = Σ_j (Rμ)_j (c_ij − 7.5) of every code (Rμ's part of the build beam's estimate, see the header), into out. */
export function meanBias(
  codes: Uint8Array,
  rotatedMean: Float64Array,
  n: number,
  D: number,
  out: Float64Array = new Float64Array(n),
): Float64Array {
  const bytes = D >> 1;
  for (let i = 0; i < n; i++) {
    let t = 0;
    for (let b = 0, o = i * bytes; b < bytes; b++) {
      const v = codes[o + b]!;
      t += rotatedMean[2 * b]! * ((v & 15) - 7.5) + rotatedMean[2 * b + 1]! * ((v >> 4) - 7.5);
    }
    out[i] = t;
  }
  return out;
}

/**
 * The build's neighbour selection in JS (the reference of the kernel's select_u4, which builds: tests): the
 * candidates sorted by ‖y_p − y_c‖² (the header's code estimate; ties: smaller id), then HNSW's heuristic (c kept
 * unless a kept r has ‖y_c − y_r‖² < ‖y_c − y_p‖²) up to `limit`. Returns the sorted candidates and the kept ids.
 */
export function selectNeighbours(
  codes: Uint8Array,
  scales: Float32Array,
  self: Float64Array,
  sums: Int32Array,
  D: number,
  p: number,
  candidates: ArrayLike<number>,
  limit: number,
): { sorted: Int32Array; kept: Int32Array } {
  const bytes = D >> 1;
  const half = 56.25 * D;
  const pair = (a: number, b: number) => {
    let s = 0;
    for (let t = 0; t < bytes; t++) {
      const x = codes[a * bytes + t]!;
      const y = codes[b * bytes + t]!;
      s += (x & 15) * (y & 15) + (x >> 4) * (y >> 4);
    }
    return s;
  };
  const dist = (a: number, b: number) =>
    self[a]! + self[b]! - 2 * scales[a]! * scales[b]! * (pair(a, b) - 7.5 * (sums[a]! + sums[b]!) + half);
  const m = candidates.length;
  const dd = Array.from({ length: m }, (_, t) => dist(p, candidates[t]!));
  const order = Array.from({ length: m }, (_, t) => t);
  order.sort((x, y) => dd[x]! - dd[y]! || candidates[x]! - candidates[y]!);
  const sorted = Int32Array.from(order, (t) => candidates[t]!);
  const kept: number[] = [];
  for (let t = 0; t < m && kept.length < limit; t++) {
    const c = sorted[t]!;
    const dc = dd[order[t]!]!;
    if (!kept.some((r) => dist(c, r) < dc)) kept.push(c);
  }
  return { sorted, kept: Int32Array.from(kept) };
}
