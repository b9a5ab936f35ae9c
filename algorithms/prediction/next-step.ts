/**
 * Next-step prediction (passive tool suggestion; the default weights and why: docs/decisions/next-step-weights.md):
 *
 *   score(B | context) = w1·cooc + w2·community + w3·recency + w4·pagerank
 *   defaults w = { cooc 0.6, community 0.3, recency 0.1, pagerank 0.1 }
 *
 * Terms, for a context u_0 (last successful tool), u_1, u_2, … (earlier tools, most recent first):
 * - cooc = Σ_i γ^i·P(B|u_i) / Σ_i γ^i over the last `contextWindow` tools, with the first-order
 *   transition probability P(B|u) = w(u→B) / Σ_x w(u→x) over the out-edges of u. The weights w come
 *   from the optional `transitions` CSR (counts of `sequence` observations) when given, else from the
 *   tool graph's edge qualities. γ = `contextDecay` (0 → last tool only, since 0^0 = 1). A context
 *   tool without out-edges contributes P = 0 but still counts in the denominator.
 * - community = 1 when B and u_0 have the same community id (≥ 0), else 0 (Louvain, Blondel et al. 2008).
 * - recency = 1 when 0 ≤ now − lastUsedAt[B] ≤ 24 h ("window" mode), or exp(−Δt/τ) ("exponential"
 *   mode); Δt < 0 (clock skew) counts as 0; never used (NaN) → 0.
 * - pagerank = the caller's per-node PageRank already normalised to [0, 1].
 *
 * The raw score can exceed 1 (max = Σ w = 1.1 with the defaults); `confidence` = score / Σ w is in
 * [0, 1] (0 when every weight is 0).
 *
 * Candidates (never a scan of all n tools per query): out-neighbours of the context window in the tool
 * graph and in `transitions` (every B with cooc > 0), 2-hop out-neighbours of the last tool, the last
 * tool's community members with the highest PageRank, the globally highest PageRank tools and the most
 * recently used tools. The per-version indexes for the last three are built once by
 * `buildNextStepModel`; a query marks its candidates in an n-byte array, and only the best `limit` of the
 * scored candidates become suggestion objects. Repeats: by default only the last tool is excluded
 * (workflows legitimately repeat tools, e.g. read → edit → read); `blocked` tools are never suggested.
 *
 * Baselines for the bench: `markovBaseline` (first-order transition only) and `mostPopular`.
 */
import type { Csr } from "../graph/csr.ts";
import { PredictionError } from "./prediction-error.ts";

const MODULE = "next-step";
const DAY_MS = 24 * 60 * 60 * 1000;

/** The four weights of the score. Non-negative and finite. */
export interface NextStepWeights {
  readonly cooc: number;
  readonly community: number;
  readonly recency: number;
  readonly pagerank: number;
}

/** The four term values of one candidate, each in [0, 1]. */
export interface NextStepTerms {
  readonly cooc: number;
  readonly community: number;
  readonly recency: number;
  readonly pagerank: number;
}

export const TERM_NAMES = ["cooc", "community", "recency", "pagerank"] as const;
export type TermName = (typeof TERM_NAMES)[number];

export type RecencyMode = "window" | "exponential";
export type RepeatPolicy = "allow" | "exclude-last" | "exclude-context";

export interface NextStepOptions {
  /** Term weights; missing fields take DEFAULTS.weights (cooc 0.6, community 0.3, recency 0.1, pagerank 0.1). */
  readonly weights?: Partial<NextStepWeights>;
  /** Number of suggestions returned. Default 5. */
  readonly limit?: number;
  /** Geometric decay γ ∈ [0, 1] of earlier context tools in cooc. Default 0.5; 0 = last tool only. */
  readonly contextDecay?: number;
  /** How many of the most recent context tools feed cooc (u_0 … u_{W−1}). Default 3. */
  readonly contextWindow?: number;
  /** "window" (1 inside `recencyWindowMs`) or "exponential" (exp(−Δt/`recencyTauMs`)). Default "window". */
  readonly recencyMode?: RecencyMode;
  /** Window of the "window" recency mode, in ms. Default 24 h. */
  readonly recencyWindowMs?: number;
  /** Time constant τ of the "exponential" recency mode, in ms. Default 24 h. */
  readonly recencyTauMs?: number;
  /** Which context tools may be suggested again. Default "exclude-last". */
  readonly repeats?: RepeatPolicy;
  /** Tools never suggested (unavailable, failed). Default: none blocked. */
  readonly blocked?: (tool: number) => boolean;
  /** Graph hops from the last tool explored for candidates: 1 or 2. Default 2. */
  readonly hops?: 1 | 2;
  /** Cap on the 2-hop expansion (the candidate set stops growing through 2-hop at this size). Default 2000. */
  readonly maxCandidates?: number;
  /** Members of the last tool's community added as candidates (highest PageRank first). Default 50. */
  readonly communityFallback?: number;
  /** Globally highest-PageRank tools added as candidates. Default 20. */
  readonly pagerankFallback?: number;
  /** Most recently used tools added as candidates. Default 20. */
  readonly recentFallback?: number;
}

export const DEFAULTS = {
  weights: { cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 } as NextStepWeights,
  limit: 5,
  contextDecay: 0.5,
  contextWindow: 3,
  recencyMode: "window" as RecencyMode,
  recencyWindowMs: DAY_MS,
  recencyTauMs: DAY_MS,
  repeats: "exclude-last" as RepeatPolicy,
  hops: 2 as 1 | 2,
  maxCandidates: 2000,
  communityFallback: 50,
  pagerankFallback: 20,
  recentFallback: 20,
} as const;

/** What `buildNextStepModel` needs: the per-version analytics of one project graph. */
export interface NextStepModelInput {
  /** Tool graph; edge weights are qualities in (0, 1]. */
  readonly graph: Csr;
  /** Optional CSR of transition counts u→B (`sequence` observations), same n; cooc then uses it. */
  readonly transitions?: Csr;
  /** Community id per node (Louvain); negative = no community. Default: no communities. */
  readonly community?: Int32Array;
  /** PageRank per node normalised to [0, 1]. Default: all 0. */
  readonly pagerank?: Float64Array;
  /** Last use per node, epoch ms; NaN = never. Default: never used. */
  readonly lastUsedAt?: Float64Array;
}

/** Immutable per-version read model: the inputs plus the indexes that keep queries sub-linear. */
export interface NextStepModel {
  readonly n: number;
  readonly graph: Csr;
  /** The CSR cooc reads (transitions when given, else graph). */
  readonly coocSource: Csr;
  /** Σ_x w(u→x) per node over `coocSource`. */
  readonly coocOutSum: Float64Array;
  readonly community: Int32Array | null;
  readonly pagerank: Float64Array | null;
  readonly lastUsedAt: Float64Array | null;
  /** Community id → members sorted by PageRank desc, then id asc. */
  readonly communityMembers: ReadonlyMap<number, Uint32Array>;
  /** All node ids sorted by PageRank desc, then id asc. */
  readonly byPagerank: Uint32Array;
  /** Ids of used nodes sorted by lastUsedAt desc, then id asc. */
  readonly byRecency: Uint32Array;
}

/** Builds the read model once per graph version (O(n log n + m)). Throws PredictionError on misuse. */
export function buildNextStepModel(input: NextStepModelInput): NextStepModel {
  const { graph } = input;
  const n = graph.n;
  const transitions = input.transitions ?? null;
  if (transitions !== null && transitions.n !== n) {
    throw new PredictionError(MODULE, "bad-length", `transitions has ${transitions.n} nodes, graph has ${n}`);
  }
  const community = checkLength(input.community, n, "community");
  const pagerank = checkLength(input.pagerank, n, "pagerank");
  const lastUsedAt = checkLength(input.lastUsedAt, n, "lastUsedAt");
  if (pagerank !== null) {
    for (let u = 0; u < n; u++) {
      const p = pagerank[u]!;
      if (!(p >= 0 && p <= 1)) {
        throw new PredictionError(MODULE, "bad-pagerank", `pagerank[${u}] = ${p} is outside [0, 1] (normalise first)`);
      }
    }
  }
  const coocSource = transitions ?? graph;
  const coocOutSum = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    let s = 0;
    for (let e = coocSource.offsets[u]!; e < coocSource.offsets[u + 1]!; e++) s += coocSource.weights[e]!;
    coocOutSum[u] = s;
  }
  const pr = (u: number): number => (pagerank === null ? 0 : pagerank[u]!);
  const byPr = (a: number, b: number): number => pr(b) - pr(a) || a - b;
  const all = Array.from({ length: n }, (_, u) => u);
  const byPagerank = Uint32Array.from(all.slice().sort(byPr));
  const groups = new Map<number, number[]>();
  if (community !== null) {
    for (const u of byPagerank) {
      const c = community[u]!;
      if (c < 0) continue;
      let g = groups.get(c);
      if (g === undefined) {
        g = [];
        groups.set(c, g);
      }
      g.push(u);
    }
  }
  const communityMembers = new Map<number, Uint32Array>();
  for (const [c, members] of groups) communityMembers.set(c, Uint32Array.from(members));
  let byRecency = new Uint32Array(0);
  if (lastUsedAt !== null) {
    const used = all.filter((u) => !Number.isNaN(lastUsedAt[u]!));
    for (const u of used) {
      if (!Number.isFinite(lastUsedAt[u]!)) {
        throw new PredictionError(MODULE, "bad-time", `lastUsedAt[${u}] = ${lastUsedAt[u]} is not finite or NaN`);
      }
    }
    byRecency = Uint32Array.from(used.sort((a, b) => lastUsedAt[b]! - lastUsedAt[a]! || a - b));
  }
  return {
    n,
    graph,
    coocSource,
    coocOutSum,
    community,
    pagerank,
    lastUsedAt,
    communityMembers,
    byPagerank,
    byRecency,
  };
}

function checkLength<T extends { length: number }>(arr: T | undefined, n: number, name: string): T | null {
  if (arr === undefined) return null;
  if (arr.length !== n) {
    throw new PredictionError(MODULE, "bad-length", `${name} has length ${arr.length}, expected ${n}`);
  }
  return arr;
}

/** One query: the ordered context and the current time. */
export interface NextStepQuery {
  /** Tools that completed successfully, in execution order (last = most recent). Failed ones go to `blocked`. */
  readonly context: readonly number[];
  /** Current time, epoch ms (recency reference). */
  readonly now: number;
}

export interface TermContribution {
  /** Term value in [0, 1]. */
  readonly value: number;
  /** Its weight. */
  readonly weight: number;
  /** weight × value. */
  readonly contribution: number;
}

export interface NextStepSuggestion {
  readonly tool: number;
  /** Raw Σ w·term; in [0, Σ w]. */
  readonly score: number;
  /** score / Σ w, in [0, 1]; 0 when Σ w = 0. */
  readonly confidence: number;
  readonly terms: Readonly<Record<TermName, TermContribution>>;
  /** The context tool whose transition contributes most to cooc, or null when cooc = 0. */
  readonly coocFrom: number | null;
}

export interface NextStepResult {
  /** Best first: score desc, then PageRank desc, then tool id asc. */
  readonly suggestions: NextStepSuggestion[];
  /** Number of candidates scored (after exclusions). */
  readonly candidatesScored: number;
  /** Why the list is empty or degraded (e.g. "empty context"), absent otherwise. */
  readonly reason?: string;
}

interface ResolvedOptions {
  readonly weights: NextStepWeights;
  readonly weightSum: number;
  readonly limit: number;
  readonly gamma: number;
  readonly window: number;
  readonly recencyMode: RecencyMode;
  readonly recencyWindowMs: number;
  readonly recencyTauMs: number;
  readonly repeats: RepeatPolicy;
  readonly blocked: ((tool: number) => boolean) | null;
  readonly hops: 1 | 2;
  readonly maxCandidates: number;
  readonly communityFallback: number;
  readonly pagerankFallback: number;
  readonly recentFallback: number;
}

/** Resolves and validates the weights (missing fields from DEFAULTS). Throws on negative/non-finite. */
export function resolveWeights(w: Partial<NextStepWeights> | undefined): NextStepWeights {
  const out: NextStepWeights = {
    cooc: w?.cooc ?? DEFAULTS.weights.cooc,
    community: w?.community ?? DEFAULTS.weights.community,
    recency: w?.recency ?? DEFAULTS.weights.recency,
    pagerank: w?.pagerank ?? DEFAULTS.weights.pagerank,
  };
  for (const k of TERM_NAMES) {
    const v = out[k];
    if (!(Number.isFinite(v) && v >= 0)) {
      throw new PredictionError(MODULE, "bad-weights", `weight ${k} = ${v} must be finite and non-negative`);
    }
  }
  return out;
}

function resolve(o: NextStepOptions | undefined): ResolvedOptions {
  const weights = resolveWeights(o?.weights);
  const limit = o?.limit ?? DEFAULTS.limit;
  const gamma = o?.contextDecay ?? DEFAULTS.contextDecay;
  const window = o?.contextWindow ?? DEFAULTS.contextWindow;
  const recencyWindowMs = o?.recencyWindowMs ?? DEFAULTS.recencyWindowMs;
  const recencyTauMs = o?.recencyTauMs ?? DEFAULTS.recencyTauMs;
  if (!Number.isInteger(limit) || limit < 0) throw bad("bad-option", `limit = ${limit}`);
  if (!(gamma >= 0 && gamma <= 1)) throw bad("bad-option", `contextDecay = ${gamma} (expected [0, 1])`);
  if (!Number.isInteger(window) || window < 1) throw bad("bad-option", `contextWindow = ${window}`);
  if (!(recencyWindowMs >= 0)) throw bad("bad-option", `recencyWindowMs = ${recencyWindowMs}`);
  if (!(recencyTauMs > 0)) throw bad("bad-option", `recencyTauMs = ${recencyTauMs}`);
  const hops = o?.hops ?? DEFAULTS.hops;
  if (hops !== 1 && hops !== 2) throw bad("bad-option", `hops = ${hops} (expected 1 or 2)`);
  const caps = {
    maxCandidates: o?.maxCandidates ?? DEFAULTS.maxCandidates,
    communityFallback: o?.communityFallback ?? DEFAULTS.communityFallback,
    pagerankFallback: o?.pagerankFallback ?? DEFAULTS.pagerankFallback,
    recentFallback: o?.recentFallback ?? DEFAULTS.recentFallback,
  };
  for (const [k, v] of Object.entries(caps)) {
    if (!Number.isInteger(v) || v < 0) throw bad("bad-option", `${k} = ${v} (expected a non-negative integer)`);
  }
  return {
    weights,
    weightSum: weights.cooc + weights.community + weights.recency + weights.pagerank,
    limit,
    gamma,
    window,
    recencyMode: o?.recencyMode ?? DEFAULTS.recencyMode,
    recencyWindowMs,
    recencyTauMs,
    repeats: o?.repeats ?? DEFAULTS.repeats,
    blocked: o?.blocked ?? null,
    hops,
    ...caps,
  };
}

function bad(code: string, what: string): PredictionError {
  return new PredictionError(MODULE, code, `invalid option ${what}`);
}

function checkQuery(model: NextStepModel, q: NextStepQuery): void {
  for (const t of q.context) {
    if (!Number.isInteger(t) || t < 0 || t >= model.n) {
      throw new PredictionError(MODULE, "bad-tool", `context tool ${t} outside 0..${model.n - 1}`);
    }
  }
  if (!Number.isFinite(q.now)) throw new PredictionError(MODULE, "bad-time", `now = ${q.now} is not finite`);
}

function recencyTerm(model: NextStepModel, tool: number, now: number, o: ResolvedOptions): number {
  if (model.lastUsedAt === null) return 0;
  const t = model.lastUsedAt[tool]!;
  if (Number.isNaN(t)) return 0;
  const dt = Math.max(0, now - t);
  if (o.recencyMode === "exponential") return Math.exp(-dt / o.recencyTauMs);
  return dt <= o.recencyWindowMs ? 1 : 0;
}

function communityTerm(model: NextStepModel, last: number | undefined, tool: number): number {
  if (model.community === null || last === undefined) return 0;
  const c = model.community[last]!;
  return c >= 0 && model.community[tool] === c ? 1 : 0;
}

function transitionProbability(model: NextStepModel, u: number, v: number): number {
  const sum = model.coocOutSum[u]!;
  if (sum <= 0) return 0;
  const g = model.coocSource;
  let lo = g.offsets[u]!;
  let hi = g.offsets[u + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = g.targets[mid]!;
    if (t === v) return g.weights[mid]! / sum;
    if (t < v) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

/**
 * The four term values of one tool for one query, computed directly (no candidate generation): what a
 * suggestion would show for `tool`. Used to build training examples for learned weights.
 */
export function nextStepTerms(
  model: NextStepModel,
  query: NextStepQuery,
  tool: number,
  options?: NextStepOptions,
): NextStepTerms {
  checkQuery(model, query);
  if (!Number.isInteger(tool) || tool < 0 || tool >= model.n) {
    throw new PredictionError(MODULE, "bad-tool", `tool ${tool} outside 0..${model.n - 1}`);
  }
  const o = resolve(options);
  const ctx = query.context;
  const last = ctx.length > 0 ? ctx[ctx.length - 1] : undefined;
  let num = 0;
  let den = 0;
  let g = 1;
  for (let i = 0; i < Math.min(o.window, ctx.length); i++) {
    const u = ctx[ctx.length - 1 - i]!;
    num += g * transitionProbability(model, u, tool);
    den += g;
    g *= o.gamma;
  }
  return {
    cooc: den > 0 ? num / den : 0,
    community: communityTerm(model, last, tool),
    recency: recencyTerm(model, tool, query.now, o),
    pagerank: model.pagerank === null ? 0 : model.pagerank[tool]!,
  };
}

/** Ranks next-step candidates for one query. Empty context → global fallback (PageRank, recency) with a reason. */
export function suggestNextSteps(
  model: NextStepModel,
  query: NextStepQuery,
  options?: NextStepOptions,
): NextStepResult {
  checkQuery(model, query);
  const o = resolve(options);
  if (model.n === 0) return { suggestions: [], candidatesScored: 0, reason: "empty graph" };
  const ctx = query.context;
  const last = ctx.length > 0 ? ctx[ctx.length - 1] : undefined;

  // cooc for every B reachable in one transition from the context window: Σ γ^i P(B|u_i) / Σ γ^i.
  const coocNum = new Map<number, number>();
  const coocBest = new Map<number, { from: number; part: number }>();
  const windowLen = Math.min(o.window, ctx.length);
  let den = 0;
  let g = 1;
  const src = model.coocSource;
  for (let i = 0; i < windowLen; i++) {
    const u = ctx[ctx.length - 1 - i]!;
    den += g;
    const sum = model.coocOutSum[u]!;
    if (sum > 0 && g > 0) {
      for (let e = src.offsets[u]!; e < src.offsets[u + 1]!; e++) {
        const v = src.targets[e]!;
        const part = g * (src.weights[e]! / sum);
        coocNum.set(v, (coocNum.get(v) ?? 0) + part);
        const best = coocBest.get(v);
        if (best === undefined || part > best.part) coocBest.set(v, { from: u, part });
      }
    }
    g *= o.gamma;
  }

  // Candidate set, in insertion order (deterministic): a list and a per-call mark per node.
  const seen = new Uint8Array(model.n);
  const candidates: number[] = [];
  const add = (v: number): void => {
    if (seen[v] === 0) {
      seen[v] = 1;
      candidates.push(v);
    }
  };
  for (const v of coocNum.keys()) add(v);
  const graph = model.graph;
  for (let i = 0; i < windowLen; i++) {
    const u = ctx[ctx.length - 1 - i]!;
    for (let e = graph.offsets[u]!; e < graph.offsets[u + 1]!; e++) add(graph.targets[e]!);
  }
  if (last !== undefined && o.hops === 2) {
    const first: number[] = [];
    for (let e = graph.offsets[last]!; e < graph.offsets[last + 1]!; e++) first.push(e);
    first.sort((a, b) => graph.weights[b]! - graph.weights[a]! || graph.targets[a]! - graph.targets[b]!);
    outer: for (const e of first) {
      const v = graph.targets[e]!;
      for (let f = graph.offsets[v]!; f < graph.offsets[v + 1]!; f++) {
        if (candidates.length >= o.maxCandidates) break outer;
        add(graph.targets[f]!);
      }
    }
  }
  if (last !== undefined && model.community !== null) {
    const members = model.communityMembers.get(model.community[last]!);
    if (members !== undefined) {
      for (let k = 0; k < Math.min(o.communityFallback, members.length); k++) add(members[k]!);
    }
  }
  for (let k = 0; k < Math.min(o.pagerankFallback, model.byPagerank.length); k++) {
    add(model.byPagerank[k]!);
  }
  for (let k = 0; k < Math.min(o.recentFallback, model.byRecency.length); k++) {
    add(model.byRecency[k]!);
  }

  const excluded = new Set<number>();
  if (o.repeats === "exclude-context") for (const t of ctx) excluded.add(t);
  else if (o.repeats === "exclude-last" && last !== undefined) excluded.add(last);

  // Scores, kept as plain rows; only the best `limit` (score desc, PageRank desc, id asc) become suggestions.
  // A small limit keeps them in a sorted list of at most `limit` rows; a large one sorts all rows.
  const w = o.weights;
  const limit = o.limit;
  const all = limit > TOP_LIST_MAX;
  const top: Row[] = [];
  let scoredCount = 0;
  for (const b of candidates) {
    if (excluded.has(b)) continue;
    if (o.blocked?.(b)) continue;
    scoredCount++;
    const cooc = den > 0 ? (coocNum.get(b) ?? 0) / den : 0;
    const community = communityTerm(model, last, b);
    const recency = recencyTerm(model, b, query.now, o);
    const pagerank = model.pagerank === null ? 0 : model.pagerank[b]!;
    const score = nextStepScore(w, cooc, community, recency, pagerank);
    if (all) {
      top.push({ tool: b, score, cooc, community, recency, pagerank });
      continue;
    }
    if (limit === 0) continue;
    let i = top.length;
    if (i === limit) {
      if (!ranksBefore(score, pagerank, b, top[i - 1]!)) continue;
      i--;
      top.pop();
    }
    while (i > 0 && ranksBefore(score, pagerank, b, top[i - 1]!)) i--;
    top.splice(i, 0, { tool: b, score, cooc, community, recency, pagerank });
  }
  if (all) {
    top.sort((a, b) => b.score - a.score || b.pagerank - a.pagerank || a.tool - b.tool);
    if (top.length > limit) top.length = limit;
  }
  const suggestions: NextStepSuggestion[] = top.map((r) => ({
    tool: r.tool,
    ...weighNextStepTerms({ cooc: r.cooc, community: r.community, recency: r.recency, pagerank: r.pagerank }, w),
    coocFrom: r.cooc > 0 ? (coocBest.get(r.tool)?.from ?? null) : null,
  }));
  if (suggestions.length === 0) {
    return { suggestions, candidatesScored: scoredCount, reason: "no candidate tools (all excluded or blocked)" };
  }
  if (ctx.length === 0) {
    return { suggestions, candidatesScored: scoredCount, reason: "empty context: ranked by PageRank and recency only" };
  }
  return { suggestions, candidatesScored: scoredCount };
}

/** Limits above this sort every scored candidate instead of keeping a sorted list of the best. */
const TOP_LIST_MAX = 64;

/** One scored candidate before it becomes a suggestion. */
interface Row {
  readonly tool: number;
  readonly score: number;
  readonly cooc: number;
  readonly community: number;
  readonly recency: number;
  readonly pagerank: number;
}

/** True when (score, pagerank, tool) ranks before row r: score desc, then PageRank desc, then tool id asc. */
function ranksBefore(score: number, pagerank: number, tool: number, r: Row): boolean {
  if (score !== r.score) return score > r.score;
  if (pagerank !== r.pagerank) return pagerank > r.pagerank;
  return tool < r.tool;
}

function term(value: number, weight: number): TermContribution {
  return { value, weight, contribution: value * weight };
}

/**
 * The weighted score of four term values (the header's formula): score = Σ w·term, confidence =
 * min(1, score / Σ w) (0 when Σ w = 0), and each term's contribution. Used for the model's own candidates
 * and for a tool another source proposed (the intent memory's next-step candidates).
 */
/** score = w_cooc·cooc + w_community·community + w_recency·recency + w_pagerank·pagerank (the formula, once). */
export function nextStepScore(
  w: NextStepWeights,
  cooc: number,
  community: number,
  recency: number,
  pagerank: number,
): number {
  return w.cooc * cooc + w.community * community + w.recency * recency + w.pagerank * pagerank;
}

export function weighNextStepTerms(
  t: NextStepTerms,
  w: NextStepWeights,
): { score: number; confidence: number; terms: Record<TermName, TermContribution> } {
  const score = nextStepScore(w, t.cooc, t.community, t.recency, t.pagerank);
  const weightSum = w.cooc + w.community + w.recency + w.pagerank;
  return {
    score,
    confidence: weightSum > 0 ? Math.min(1, score / weightSum) : 0,
    terms: {
      cooc: term(t.cooc, w.cooc),
      community: term(t.community, w.community),
      recency: term(t.recency, w.recency),
      pagerank: term(t.pagerank, w.pagerank),
    },
  };
}

/** A baseline suggestion: tool and its baseline score. */
export interface BaselineSuggestion {
  readonly tool: number;
  readonly score: number;
}

export interface BaselineResult {
  readonly suggestions: BaselineSuggestion[];
  readonly reason?: string;
}

export interface BaselineOptions {
  /** Number of suggestions. Default 5. */
  readonly limit?: number;
  /** Tools never suggested. Default: none. */
  readonly blocked?: (tool: number) => boolean;
}

/**
 * First-order Markov baseline: rank B by P(B | last context tool) = w(u→B) / Σ_x w(u→x) over `g`
 * (pass the transition-count CSR, or the tool graph). Excludes the last tool itself (self-loops are
 * absent from a CSR anyway). Ties → tool id asc.
 */
export function markovBaseline(g: Csr, context: readonly number[], options?: BaselineOptions): BaselineResult {
  const limit = options?.limit ?? DEFAULTS.limit;
  const blocked = options?.blocked;
  if (context.length === 0) return { suggestions: [], reason: "empty context" };
  const u = context[context.length - 1]!;
  if (!Number.isInteger(u) || u < 0 || u >= g.n) {
    throw new PredictionError("markov-baseline", "bad-tool", `context tool ${u} outside 0..${g.n - 1}`);
  }
  let sum = 0;
  for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) sum += g.weights[e]!;
  if (sum <= 0) return { suggestions: [], reason: `tool ${u} has no out-transitions` };
  const out: BaselineSuggestion[] = [];
  for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
    const v = g.targets[e]!;
    if (blocked?.(v)) continue;
    out.push({ tool: v, score: g.weights[e]! / sum });
  }
  out.sort((a, b) => b.score - a.score || a.tool - b.tool);
  const suggestions = out.slice(0, limit);
  return suggestions.length > 0 ? { suggestions } : { suggestions, reason: "all transitions blocked" };
}

export interface MostPopularOptions extends BaselineOptions {
  /** Tools to skip (e.g. the last context tool). Default: none. */
  readonly exclude?: readonly number[];
}

/**
 * Popularity baseline: rank every tool by `popularity[tool]` (e.g. use counts or PageRank), ties → id
 * asc; tools with popularity ≤ 0 are not suggested. O(n) scan: a baseline, not a hot path.
 */
export function mostPopular(popularity: ArrayLike<number>, options?: MostPopularOptions): BaselineResult {
  const limit = options?.limit ?? DEFAULTS.limit;
  const blocked = options?.blocked;
  const exclude = new Set(options?.exclude ?? []);
  const out: BaselineSuggestion[] = [];
  for (let t = 0; t < popularity.length; t++) {
    const p = popularity[t]!;
    if (!(p > 0) || exclude.has(t) || blocked?.(t)) continue;
    out.push({ tool: t, score: p });
  }
  out.sort((a, b) => b.score - a.score || a.tool - b.tool);
  const suggestions = out.slice(0, limit);
  return suggestions.length > 0 ? { suggestions } : { suggestions, reason: "no tool with positive popularity" };
}
