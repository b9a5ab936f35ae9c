/**
 * Two-hop namespace routing (seed 002 "hierarchical routing"): rank the catalog's namespaces first, then
 * search tools only inside the best few.
 *
 * Namespace of a tool (`namespaceOf`): its catalog `server` when non-blank; else the id up to the first
 * ".", ":", "/" or "__" (`fs.read_file` → fs, `mcp__github__create_issue` → mcp); a tool whose id has no
 * such prefix is a namespace of its own (so it is always reachable on its own score).
 *
 * Namespace index (built once per catalog): for namespace g with member tools T(g)
 *   centroid ĉ_g = Σ_{t∈T(g)} v_t / ‖Σ_{t∈T(g)} v_t‖        (unit; zero when every member vector is zero)
 *   doc_g        = the concatenation of the members' BM25 documents (term frequencies summed), so the
 *                  namespace is one BM25 document over the collection of namespaces.
 *
 * Score of namespace g for a query q (every part in [0, 1], so the score is too):
 *   sem_g   = β · cos⁺(q, ĉ_g) + (1 − β) · BM25(q, doc_g) / max(max_g' BM25(q, doc_g'), ideal(q))
 *   mem_g   = max_{t∈T(g)} vote_t                                (intent-memory votes of the tools)
 *   sem'_g  = 1 − (1 − sem_g)(1 − μ · mem_g)                     (same noisy-or as the tool search)
 *   use_g   = ln(1 + Σ_{t∈T(g)} successes_t) / ln(1 + max_g' …)  (usage prior; 0 without history)
 *   score_g = (1 − λ) · sem'_g + λ · use_g                       λ = usageWeight = 0.1
 * The semantic part is the tool search's own fusion (fusion.ts) applied to the namespace as one document,
 * so a namespace of one tool scores exactly like that tool's flat semantic score (property-tested).
 *
 * Selection (adaptive B): namespaces by score descending (ties: smaller index). B is the smallest prefix
 * holding at least `minNamespaces` namespaces and at least `minTools` tools, widened to every namespace
 * scoring ≥ closeRatio · best (near-ties are not cut arbitrarily), capped at `maxNamespaces`. The candidate
 * tools are the members of the chosen namespaces; the caller ranks them with the full tool search.
 *
 * Sources: hierarchical / cluster-based retrieval (Jardine & van Rijsbergen, "The use of hierarchic
 * clustering in information retrieval", 1971; Voorhees, "The cluster hypothesis revisited", SIGIR 1985),
 * centroid scoring as in IVF indexes (Jégou, Douze & Schmid, "Product quantization for nearest neighbor
 * search", TPAMI 2011, §IV.A), and "big document" resource selection (Callan, Lu & Croft, "Searching
 * distributed collections with inference networks" (CORI), SIGIR 1995).
 */
import { type Bm25Index, bm25IdealScore, bm25Scores, buildBm25Index } from "./bm25.ts";
import { SearchError } from "./search-error.ts";

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
  const byName = new Map<string, number>();
  const names: string[] = [];
  const toolNamespace = new Int32Array(namespaces.length);
  const counts: number[] = [];
  namespaces.forEach((name, t) => {
    let g = byName.get(name);
    if (g === undefined) {
      g = names.length;
      byName.set(name, g);
      names.push(name);
      counts.push(0);
    }
    toolNamespace[t] = g;
    counts[g]!++;
  });
  const offsets = new Int32Array(names.length + 1);
  for (let g = 0; g < names.length; g++) offsets[g + 1] = offsets[g]! + counts[g]!;
  const fill = offsets.slice(0, names.length);
  const members = new Int32Array(namespaces.length);
  for (let t = 0; t < namespaces.length; t++) members[fill[toolNamespace[t]!]!++] = t;
  return { names, toolNamespace, offsets, members };
}

/** The read model of two-hop routing: groups, unit centroids and the namespace-level BM25 index. */
export interface NamespaceIndex {
  readonly groups: NamespaceGroups;
  readonly dims: number;
  /** Row-major N × dims unit centroids (zero rows for namespaces without vectors). */
  readonly centroids: Float32Array;
  /** BM25 over the namespaces' concatenated documents. */
  readonly bm25: Bm25Index;
}

/**
 * Builds the namespace index from the tools' vectors (row-major n × dims) and the tools' BM25 index (its
 * postings give each tool's term frequencies, so tools are not tokenised again).
 */
export function buildNamespaceIndex(groups: NamespaceGroups, vectors: Float32Array, dims: number, toolBm25: Bm25Index): NamespaceIndex {
  const n = groups.toolNamespace.length;
  if (!Number.isInteger(dims) || dims < 1) throw new SearchError(MODULE, "bad-dims", `dims must be a positive integer, got ${dims}`);
  if (vectors.length !== n * dims) throw new SearchError(MODULE, "bad-vectors", `vectors has ${vectors.length} values, expected ${n} tools × ${dims}`);
  if (toolBm25.n !== n) throw new SearchError(MODULE, "bad-bm25", `the tool BM25 index has ${toolBm25.n} documents, expected ${n}`);
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
  // Namespace documents from the tool postings: term t appears tf times in tool d → tf times in doc_{ns(d)}.
  const terms: string[] = [];
  for (const [term, id] of toolBm25.vocabulary) terms[id] = term;
  const docs: string[][] = Array.from({ length: N }, () => []);
  for (let id = 0; id < terms.length; id++) {
    for (let p = toolBm25.postingOffsets[id]!; p < toolBm25.postingOffsets[id + 1]!; p++) {
      const doc = docs[groups.toolNamespace[toolBm25.postingDocs[p]!]!]!;
      for (let r = 0; r < toolBm25.postingTf[p]!; r++) doc.push(terms[id]!);
    }
  }
  return { groups, dims, centroids, bm25: buildBm25Index(docs, { k1: toolBm25.k1, b: toolBm25.b }) };
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

/** Scores every namespace for the query; see the header for the formula. O(N · dims + postings). */
export function scoreNamespaces(index: NamespaceIndex, query: NamespaceQuery, options: NamespaceScoreOptions = {}): NamespaceScores {
  const beta = options.beta ?? DEFAULTS.beta;
  const mu = options.memoryWeight ?? DEFAULTS.memoryWeight;
  const lambda = options.usageWeight ?? DEFAULTS.usageWeight;
  checkUnit("beta", beta);
  checkUnit("memoryWeight", mu);
  checkUnit("usageWeight", lambda);
  const { groups, dims, centroids } = index;
  const N = groups.names.length;
  const cosine = new Float64Array(N);
  if (query.vector.length === dims) {
    const q = query.vector;
    for (let g = 0; g < N; g++) {
      let s = 0;
      const o = g * dims;
      for (let j = 0; j < dims; j++) s += centroids[o + j]! * q[j]!;
      cosine[g] = s;
    }
  }
  const raw = bm25Scores(index.bm25, query.tokens);
  let maxBm = bm25IdealScore(index.bm25, query.tokens);
  for (let g = 0; g < N; g++) if (raw[g]! > maxBm) maxBm = raw[g]!;
  const bm25Norm = new Float64Array(N);
  if (maxBm > 0) for (let g = 0; g < N; g++) bm25Norm[g] = clamp01(raw[g]! / maxBm);
  const memory = new Float64Array(N);
  if (query.toolVotes) {
    for (const [t, vote] of query.toolVotes) {
      if (!Number.isInteger(t) || t < 0 || t >= groups.toolNamespace.length) throw new SearchError(MODULE, "bad-tool", `toolVotes names tool index ${t}, outside 0..${groups.toolNamespace.length - 1}`);
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
      for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) sum += Math.max(0, query.successes[groups.members[k]!] ?? 0);
      usage[g] = sum;
      if (sum > max) max = sum;
    }
    const denom = Math.log1p(max);
    for (let g = 0; g < N; g++) usage[g] = denom > 0 ? Math.log1p(usage[g]!) / denom : 0;
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
export function selectNamespaces(groups: NamespaceGroups, score: ArrayLike<number>, options: SelectOptions = {}): Routed {
  const minNs = options.minNamespaces ?? DEFAULTS.minNamespaces;
  const minTools = options.minTools ?? DEFAULTS.minTools;
  const close = options.closeRatio ?? DEFAULTS.closeRatio;
  const maxNs = options.maxNamespaces ?? DEFAULTS.maxNamespaces;
  if (!Number.isInteger(minNs) || minNs < 1) throw new SearchError(MODULE, "bad-min-namespaces", `minNamespaces must be an integer ≥ 1, got ${minNs}`);
  if (!Number.isInteger(minTools) || minTools < 0) throw new SearchError(MODULE, "bad-min-tools", `minTools must be an integer ≥ 0, got ${minTools}`);
  if (!Number.isInteger(maxNs) || maxNs < 1) throw new SearchError(MODULE, "bad-max-namespaces", `maxNamespaces must be an integer ≥ 1, got ${maxNs}`);
  checkUnit("closeRatio", close);
  const N = groups.names.length;
  if (score.length !== N) throw new SearchError(MODULE, "bad-scores", `expected ${N} namespace scores, got ${score.length}`);
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
  for (const g of chosen) for (let k = groups.offsets[g]!; k < groups.offsets[g + 1]!; k++) out.push(groups.members[k]!);
  return { namespaces: chosen, tools: Int32Array.from(out).sort(), reason: why };
}
