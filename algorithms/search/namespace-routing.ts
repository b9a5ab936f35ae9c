/**
 * Two-hop namespace routing (hierarchical routing; algorithms/README.md, "Two-hop routing", and the measured
 * choice of route in bench/decisions.md): rank the catalog's namespaces first, then search tools only inside
 * the best few.
 *
 * Namespace of a tool (`namespaceOf`): its catalog `server` when non-blank; else the id up to the first
 * ".", ":", "/" or "__" (`fs.read_file` → fs, `mcp__github__create_issue` → mcp); a tool whose id has no
 * such prefix is a namespace of its own (so it is always reachable on its own score).
 *
 * Namespace index (built once per catalog): for namespace g with member tools T(g), the unit centroid
 *   ĉ_g = Σ_{t∈T(g)} v_t / ‖Σ_{t∈T(g)} v_t‖        (zero when every member vector is zero)
 * and a reference to the tools' BM25 index.
 *
 * Score of namespace g for a query q (every part in [0, 1], so the score is too):
 *   lex_g   = max_{t∈T(g)} BM25(q, t) / max(max_t' BM25(q, t'), ideal(q))   (its best member, fusion.ts norm)
 *   sem_g   = β · cos⁺(q, ĉ_g) + (1 − β) · lex_g
 *   mem_g   = max_{t∈T(g)} vote_t                                (intent-memory votes of the tools)
 *   sem'_g  = 1 − (1 − sem_g)(1 − μ · mem_g)                     (same noisy-or as the tool search)
 *   use_g   = ln(1 + Σ_{t∈T(g)} successes_t) / ln(1 + max_g' …)  (usage prior; 0 without history)
 *   score_g = (1 − λ) · sem'_g + λ · use_g                       λ = usageWeight = 0.1
 * Documented choices: the dense part is the centroid (N dot products replace the scan of every tool's
 * vector, which is where the latency goes); the lexical part is the best member's BM25, not BM25 over the
 * namespace as one big document — a postings walk touches only the tools sharing a query term, so it is
 * cheap, and a big document dilutes one strongly matching tool among its siblings (on Seal-Tools the
 * big-document variant kept 80 % of the gold tools inside the routed namespaces, see bench/routing.ts).
 * A namespace of one tool scores exactly like that tool's flat semantic score (property-tested).
 * Large catalogs (≥ centroidIndexFrom = 1024 namespaces): the centroid cosines come from a two-stage vector
 * index over the centroids (top centroidShortlist = 256 scored exactly); the top 256 namespaces of the
 * lexical part and those with a memory vote get their exact centroid cosine too; any other namespace has
 * cos 0 — as fusion.ts unites the two channels' top-N lists and fills the missing channel.
 *
 * Selection (adaptive B): namespaces by score descending (ties: smaller index). B is the smallest prefix
 * holding at least `minNamespaces` namespaces and at least `minTools` tools, widened to every namespace
 * scoring ≥ closeRatio · best (near-ties are not cut arbitrarily), capped at `maxNamespaces`. The candidate
 * tools are the members of the chosen namespaces; the caller ranks them with the full tool search.
 *
 * Sources: hierarchical / cluster-based retrieval (Jardine & van Rijsbergen, "The use of hierarchic
 * clustering in information retrieval", 1971; Voorhees, "The cluster hypothesis revisited", SIGIR 1985),
 * centroid scoring as in IVF indexes (Jégou, Douze & Schmid, "Product quantization for nearest neighbor
 * search", TPAMI 2011, §IV.A); resource selection by a collection's best documents rather than one big
 * document (Shokouhi & Si, "Federated search", FnTIR 2011, §4.2).
 */

import { groupByKey } from "../graph/group-by-key.ts";
import { type Bm25Index, bm25IdealScore, bm25Scores } from "./bm25.ts";
import { SearchError } from "./search-error.ts";
import { TopK } from "./top-k.ts";
import { buildVectorIndex, searchVectorIndex, type VectorIndex } from "./vector-index.ts";

export const DEFAULTS = {
  /** Weight of the centroid cosine in the namespace's semantic score (the rest is BM25). */
  beta: 0.5,
  /** Weight μ of the intent-memory vote. */
  memoryWeight: 0.8,
  /** Weight λ of the usage prior. */
  usageWeight: 0.1,
  /** At least this many namespaces are searched (when the catalog has them). */
  minNamespaces: 3,
  /** At least this many candidate tools are searched (when the catalog has them). */
  minTools: 200,
  /** Namespaces scoring at least this fraction of the best are searched too. */
  closeRatio: 0.95,
  /** Never more than this many namespaces. */
  maxNamespaces: 64,
  /** From this many namespaces on, centroid cosines come from a two-stage vector index (vector-index.ts). */
  centroidIndexFrom: 1024,
  /** Centroids scored exactly through that index (the others: see the header). */
  centroidShortlist: 256,
} as const;

const MODULE = "namespace-routing";

/** Separators of a namespace prefix in a tool id, in the order they are tried (first occurrence wins). */
const PREFIX = /^(.+?)(?:__|[.:/])./;

/** The namespace of a tool: its `server`, else its id prefix, else its own id (see the header). */
export function namespaceOf(tool: { readonly id: string; readonly server?: string | null | undefined }): string {
  const server = tool.server?.trim();
  if (server) return server;
  const m = PREFIX.exec(tool.id);
  return m ? m[1]! : tool.id;
}

/** Tools grouped by namespace: namespace g holds members[offsets[g] .. offsets[g+1]) (tool indices ascending). */
export interface NamespaceGroups {
  /** Namespace names, in order of first appearance in the tool list. */
  readonly names: readonly string[];
  /** Namespace index of each tool. */
  readonly toolNamespace: Int32Array;
  readonly offsets: Int32Array;
  readonly members: Int32Array;
}

/** Groups tools (given their namespace names, one per tool) into namespaces. O(n). */
export function groupNamespaces(namespaces: readonly string[]): NamespaceGroups {
  const g = groupByKey(namespaces);
  return { names: g.keys, toolNamespace: g.groupOf, offsets: g.offsets, members: g.members };
}

/** The read model of two-hop routing: groups, unit centroids and the tools' BM25 index. */
export interface NamespaceIndex {
  readonly groups: NamespaceGroups;
  readonly dims: number;
  /** Row-major N × dims unit centroids (zero rows for namespaces without vectors). */
  readonly centroids: Float32Array;
  /** The tools' BM25 index (the lexical part scores each namespace by its best member). */
  readonly toolBm25: Bm25Index;
  /** Two-stage index over the centroids (only from `centroidIndexFrom` namespaces on). */
  readonly centroidIndex?: VectorIndex | undefined;
}

/** Builds the namespace index from the tools' vectors (row-major n × dims) and the tools' BM25 index. O(n · dims). */
export function buildNamespaceIndex(
  groups: NamespaceGroups,
  vectors: Float32Array,
  dims: number,
  toolBm25: Bm25Index,
  options: { readonly centroidIndexFrom?: number } = {},
): NamespaceIndex {
  const n = groups.toolNamespace.length;
  if (!Number.isInteger(dims) || dims < 1)
    throw new SearchError(MODULE, "bad-dims", `dims must be a positive integer, got ${dims}`);
  if (vectors.length !== n * dims)
    throw new SearchError(MODULE, "bad-vectors", `vectors has ${vectors.length} values, expected ${n} tools × ${dims}`);
  if (toolBm25.n !== n)
    throw new SearchError(MODULE, "bad-bm25", `the tool BM25 index has ${toolBm25.n} documents, expected ${n}`);
  const N = groups.names.length;
  const sums = new Float64Array(N * dims);
  for (let t = 0; t < n; t++) {
    const o = groups.toolNamespace[t]! * dims;
    const v = t * dims;
    for (let j = 0; j < dims; j++) sums[o + j]! += vectors[v + j]!;
  }
  const centroids = new Float32Array(N * dims);
  for (let g = 0; g < N; g++) {
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += sums[g * dims + j]! ** 2;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let j = 0; j < dims; j++) centroids[g * dims + j] = sums[g * dims + j]! / norm;
  }
  const from = options.centroidIndexFrom ?? DEFAULTS.centroidIndexFrom;
  return {
    groups,
    dims,
    centroids,
    toolBm25,
    centroidIndex: N >= from && N > 0 ? buildVectorIndex(centroids, dims) : undefined,
  };
}

export interface NamespaceQuery {
  /** Query tokens (tokenize.ts). */
  readonly tokens: readonly string[];
  /** Unit query vector (dims of the index; another length scores every cosine 0). */
  readonly vector: ArrayLike<number>;
  /** Intent-memory vote per tool index, in [0, 1]. */
  readonly toolVotes?: ReadonlyMap<number, number> | undefined;
  /** Successful executions per tool index (usage prior). */
  readonly successes?: ArrayLike<number> | undefined;
}

export interface NamespaceScoreOptions {
  /** Centroids scored exactly through the centroid index. Default 256. */
  readonly centroidShortlist?: number;
  /** Centroid-cosine weight in [0, 1]. Default 0.5. */
  readonly beta?: number;
  /** Memory weight μ in [0, 1]. Default 0.8. */
  readonly memoryWeight?: number;
  /** Usage weight λ in [0, 1]. Default 0.1. */
  readonly usageWeight?: number;
}

export interface NamespaceScores {
  /** score_g per namespace. */
  readonly score: Float64Array;
  readonly cosine: Float64Array;
  readonly bm25Norm: Float64Array;
  readonly memory: Float64Array;
  readonly usage: Float64Array;
}

function checkUnit(name: string, x: number): void {
  if (!(x >= 0 && x <= 1)) throw new SearchError(MODULE, `bad-${name}`, `${name} must be in [0, 1], got ${x}`);
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Scores every namespace for the query; see the header for the formula. O(N · dims + n). */
export function scoreNamespaces(
  index: NamespaceIndex,
  query: NamespaceQuery,
  options: NamespaceScoreOptions = {},
): NamespaceScores {
  const beta = options.beta ?? DEFAULTS.beta;
  const mu = options.memoryWeight ?? DEFAULTS.memoryWeight;
  const lambda = options.usageWeight ?? DEFAULTS.usageWeight;
  checkUnit("beta", beta);
  checkUnit("memoryWeight", mu);
  checkUnit("usageWeight", lambda);
  const { groups, dims, centroids } = index;
  const N = groups.names.length;
  const cosine = new Float64Array(N);
  // One monomorphic typed array for the hot loop (callers pass Float32Array or number[]).
  const q = query.vector instanceof Float64Array ? query.vector : Float64Array.from(query.vector);
  const hasVector = q.length === dims;
  const shortlist = options.centroidShortlist ?? DEFAULTS.centroidShortlist;
  // Centroids outside the index's shortlist keep cos 0 unless another part scores them (filled below).
  const scored = new Uint8Array(N);
  if (hasVector && index.centroidIndex) {
    for (const h of searchVectorIndex(index.centroidIndex, q, Math.min(N, shortlist))) {
      cosine[h.id] = h.score;
      scored[h.id] = 1;
    }
  } else if (hasVector) {
    for (let g = 0, o = 0; g < N; g++, o += dims) {
      let x = 0;
      for (let j = 0; j < dims; j++) x += centroids[o + j]! * q[j]!;
      cosine[g] = x;
    }
  }
  // Lexical: the best member's BM25, normalised like fusion.ts (max over all tools, floored by the ideal).
  const raw = bm25Scores(index.toolBm25, query.tokens);
  let maxBm = bm25IdealScore(index.toolBm25, query.tokens);
  const best = new Float64Array(N);
  for (let t = 0; t < raw.length; t++) {
    const x = raw[t]!;
    if (x > 0) {
      if (x > maxBm) maxBm = x;
      const g = groups.toolNamespace[t]!;
      if (x > best[g]!) best[g] = x;
    }
  }
  const bm25Norm = new Float64Array(N);
  if (maxBm > 0) for (let g = 0; g < N; g++) bm25Norm[g] = clamp01(best[g]! / maxBm);
  const memory = new Float64Array(N);
  if (query.toolVotes) {
    for (const [t, vote] of query.toolVotes) {
      if (!Number.isInteger(t) || t < 0 || t >= groups.toolNamespace.length)
        throw new SearchError(
          MODULE,
          "bad-tool",
          `toolVotes names tool index ${t}, outside 0..${groups.toolNamespace.length - 1}`,
        );
      const g = groups.toolNamespace[t]!;
      const v = clamp01(vote);
      if (v > memory[g]!) memory[g] = v;
    }
  }
  const usage = new Float64Array(N);
  if (query.successes && lambda > 0) {
    let max = 0;
    for (let g = 0; g < N; g++) {
      let sum = 0;
      for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++)
        sum += Math.max(0, query.successes[groups.members[k]!] ?? 0);
      usage[g] = sum;
      if (sum > max) max = sum;
    }
    const denom = Math.log1p(max);
    for (let g = 0; g < N; g++) usage[g] = denom > 0 ? Math.log1p(usage[g]!) / denom : 0;
  }
  if (hasVector && index.centroidIndex) {
    // As fusion.ts's cosineOf: the top centroidShortlist namespaces of the lexical channel, and those with a
    // memory vote, get their exact centroid cosine (the two channels' top lists, united, then filled).
    const lexTop = new TopK(shortlist);
    for (let g = 0; g < N; g++) if (bm25Norm[g]! > 0 && !scored[g]) lexTop.offer(g, bm25Norm[g]!);
    const fill = lexTop.result().map((h) => h.id);
    for (let g = 0; g < N; g++) if (memory[g]! > 0 && !scored[g]) fill.push(g);
    for (const g of fill) {
      if (scored[g]) continue;
      scored[g] = 1;
      let x = 0;
      for (let j = 0, o = g * dims; j < dims; j++) x += centroids[o + j]! * q[j]!;
      cosine[g] = x;
    }
  }
  const score = new Float64Array(N);
  for (let g = 0; g < N; g++) {
    const sem = clamp01(beta * clamp01(cosine[g]!) + (1 - beta) * bm25Norm[g]!);
    const semMem = memory[g]! > 0 ? 1 - (1 - sem) * (1 - mu * memory[g]!) : sem;
    score[g] = clamp01((1 - lambda) * semMem + lambda * usage[g]!);
  }
  return { score, cosine, bm25Norm, memory, usage };
}

export interface SelectOptions {
  /** Default 3. */
  readonly minNamespaces?: number;
  /** Default 200. */
  readonly minTools?: number;
  /** In [0, 1]. Default 0.95. */
  readonly closeRatio?: number;
  /** Default 64. */
  readonly maxNamespaces?: number;
}

export interface Routed {
  /** Chosen namespace indices, best first. */
  readonly namespaces: number[];
  /** Member tools of the chosen namespaces, ascending. */
  readonly tools: Int32Array;
  /** Why B is what it is. */
  readonly reason: string;
}

/** Picks the namespaces to search (adaptive B, see the header) and their tools. */
export function selectNamespaces(
  groups: NamespaceGroups,
  score: ArrayLike<number>,
  options: SelectOptions = {},
): Routed {
  const minNs = options.minNamespaces ?? DEFAULTS.minNamespaces;
  const minTools = options.minTools ?? DEFAULTS.minTools;
  const close = options.closeRatio ?? DEFAULTS.closeRatio;
  const maxNs = options.maxNamespaces ?? DEFAULTS.maxNamespaces;
  if (!Number.isInteger(minNs) || minNs < 1)
    throw new SearchError(MODULE, "bad-min-namespaces", `minNamespaces must be an integer ≥ 1, got ${minNs}`);
  if (!Number.isInteger(minTools) || minTools < 0)
    throw new SearchError(MODULE, "bad-min-tools", `minTools must be an integer ≥ 0, got ${minTools}`);
  if (!Number.isInteger(maxNs) || maxNs < 1)
    throw new SearchError(MODULE, "bad-max-namespaces", `maxNamespaces must be an integer ≥ 1, got ${maxNs}`);
  checkUnit("closeRatio", close);
  const N = groups.names.length;
  if (score.length !== N)
    throw new SearchError(MODULE, "bad-scores", `expected ${N} namespace scores, got ${score.length}`);
  if (N === 0) return { namespaces: [], tools: new Int32Array(0), reason: "no namespaces" };
  const order = Array.from({ length: N }, (_, g) => g).sort((a, b) => score[b]! - score[a]! || a - b);
  const size = (g: number) => groups.offsets[g + 1]! - groups.offsets[g]!;
  let b = 0;
  let tools = 0;
  while (b < N && (b < minNs || tools < minTools)) tools += size(order[b++]!);
  const floor = close * score[order[0]!]!;
  let why = `the ${b} best namespace${b === 1 ? "" : "s"} (at least ${minNs} and ${minTools} tools)`;
  const bMin = b;
  while (b < N && score[order[b]!]! >= floor && floor > 0) tools += size(order[b++]!);
  if (b > bMin) why += `, plus ${b - bMin} within ${Math.round((1 - close) * 100)} % of the best`;
  if (b > maxNs) {
    b = maxNs;
    why += `, capped at ${maxNs}`;
  }
  const chosen = order.slice(0, b);
  const out: number[] = [];
  for (const g of chosen)
    for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) out.push(groups.members[k]!);
  return { namespaces: chosen, tools: Int32Array.from(out).sort(), reason: why };
}

/** One query of the routing trial: the service time of each route (ms) and the top-10 agreement of two-hop with flat. */
export interface RouteTrialSample {
  readonly flatMs: number;
  readonly twoHopMs: number;
  /** |top-10 two-hop ∩ top-10 flat| / |top-10 flat| (1 when flat found nothing). */
  readonly overlap: number;
}

export const TRIAL_DEFAULTS = {
  /** Two-hop must agree with flat on at least this share of the top 10, on average (flat is the reference: two-hop searches a subset). */
  minOverlap: 0.9,
  /** … and its median time times this must not exceed flat's median. */
  minSpeedup: 1.1,
} as const;

export interface RouteDecision {
  readonly mode: "flat" | "two-hop";
  readonly reason: string;
  readonly flatMs: number;
  readonly twoHopMs: number;
  readonly overlap: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * The route `auto` keeps after measuring both on the first queries (the measurement is the caller's: algorithms read
 * no clock). With medians m_flat, m_two of the two routes' times and the mean top-10 overlap ō:
 *
 *   two-hop  iff  minSpeedup · m_two ≤ m_flat  and  ō ≥ minOverlap,   else flat.
 *
 * Medians, because single queries on a shared machine are noisy; the overlap with flat stands for "equal recall"
 * (no labels at query time; flat ranks every candidate two-hop sees).
 */
export function decideRoute(
  samples: readonly RouteTrialSample[],
  options: { readonly minOverlap?: number; readonly minSpeedup?: number } = {},
): RouteDecision {
  const minOverlap = options.minOverlap ?? TRIAL_DEFAULTS.minOverlap;
  const minSpeedup = options.minSpeedup ?? TRIAL_DEFAULTS.minSpeedup;
  checkUnit("minOverlap", minOverlap);
  if (!(minSpeedup > 0)) throw new SearchError(MODULE, "bad-min-speedup", `minSpeedup must be > 0, got ${minSpeedup}`);
  if (samples.length === 0)
    throw new SearchError(MODULE, "bad-samples", "decideRoute needs at least one measured query");
  for (const x of samples) {
    if (!(x.flatMs >= 0 && x.twoHopMs >= 0 && x.overlap >= 0 && x.overlap <= 1))
      throw new SearchError(
        MODULE,
        "bad-samples",
        `a trial sample needs times ≥ 0 and an overlap in [0, 1], got ${JSON.stringify(x)}`,
      );
  }
  const flatMs = median(samples.map((x) => x.flatMs));
  const twoHopMs = median(samples.map((x) => x.twoHopMs));
  const overlap = samples.reduce((a, x) => a + x.overlap, 0) / samples.length;
  const measured = `${samples.length} queries: two-hop p50 ${twoHopMs.toFixed(2)} ms vs flat ${flatMs.toFixed(2)} ms, top-10 overlap ${overlap.toFixed(2)}`;
  if (overlap < minOverlap)
    return {
      mode: "flat",
      reason: `flat (${measured}; two-hop agrees on less than ${minOverlap})`,
      flatMs,
      twoHopMs,
      overlap,
    };
  if (minSpeedup * twoHopMs > flatMs)
    return { mode: "flat", reason: `flat (${measured}; two-hop not ${minSpeedup}× faster)`, flatMs, twoHopMs, overlap };
  return { mode: "two-hop", reason: `two-hop (${measured})`, flatMs, twoHopMs, overlap };
}
