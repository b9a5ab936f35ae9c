/**
 * Search by intent (docs/decisions/hybrid-alpha.md): final = α·semantic + (1−α)·graph, per candidate.
 *
 * - semantic: cosine (query embedding vs tool embedding, two-stage vector index) fused with BM25 over the
 *   tool fields (algorithms/search/fusion.ts: 0.7·cos⁺ + 0.3·BM25 max-normalised with an ideal-match
 *   floor). Candidates: a generous top-N of each channel (default 100 each), never a hard cut before fusion.
 * - graph: weighted Adamic–Adar of the candidate to the context tools (1 − exp(−AA), max over the
 *   context). Without context tools the graph term falls back to a global signal (documented choice):
 *   global(u) = 0.5·PageRank(u)/max PageRank + 0.5·ln(1+successes(u))/ln(1+max successes), so a tool with
 *   a successful history is never below an identical-text tool without one (the "lift" combination
 *   only ever adds graph evidence).
 * - α: local adaptive α per candidate (docs/decisions/hybrid-alpha.md): with history, active search uses the coherence
 * of the
 *   tool's semantic and graph neighbourhoods, measured as the quality-weighted mean cosine between the
 *   tool's embedding and its graph neighbours' (coherence = Σ_v w(u,v)·cos⁺(u,v) / Σ_v w(u,v); α_est =
 *   1 − 0.5·coherence), computed for every tool once per graph state and search index (≈ m dot
 *   products, off the per-query path); cold start (< 5 executions) shrinks α_est toward the prior 1.0
 *   with coldStartAlpha.
 * - intent memory (optional evidence, see memory.ts): the tools of similar past requests, fused with the
 *   content side as semantic' = 1 − (1 − w_c·semantic)(1 − μ·vote) with μ = memoryWeight, w_c = contentWeight
 *   (algorithms/search/channel-fusion.ts; w_c = 1 by default).
 * - history guard: μ and the no-context graph term are scaled by a trust that rises with the query's best
 *   similarity to a past intent (algorithms/search/history-guard.ts), so an intent the history never saw is
 *   answered by the descriptions; `historySimilarity` absent = no guard (trust 1).
 * - two-hop routing (optional, `restrictTo`): the candidates come from a subset of the tools chosen by
 *   namespace (namespace-index.ts); scoring inside the subset is unchanged.
 */

import { rowDot } from "../../algorithms/linalg/dot.ts";
import { prepareAdamicAdar } from "../../algorithms/search/adamic-adar.ts";
import { heatField } from "../../algorithms/search/adaptive-alpha.ts";
import { bm25IdealScore, bm25Scores, searchBm25 } from "../../algorithms/search/bm25.ts";
import { toolCoherence as coherenceOf } from "../../algorithms/search/coherence.ts";
import { type FusedHit, fusedSemantic, fuseScores } from "../../algorithms/search/fusion.ts";
import { globalSignal as globalSignalOf } from "../../algorithms/search/global-signal.ts";
import { historyTrust } from "../../algorithms/search/history-guard.ts";
import { type HybridHit, rankHybridCandidates, type SearchChannel } from "../../algorithms/search/hybrid-rank.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { type ScoredId, TopK } from "../../algorithms/search/top-k.ts";
import { exactRowDots, searchVectorIndex } from "../../algorithms/search/vector-index.ts";
import type { AnalyticsView } from "../view/analytics.ts";
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { SearchIndex } from "../view/search-index.ts";

export const SEARCH_DEFAULTS = {
  limit: 10,
  /** Candidates taken from each channel before fusion. */
  channelTopN: 100,
  /** Weight of the cosine channel in the semantic fusion (projects fit their own: search-weights.ts). */
  beta: 0.5,
  /** Weight of the intent-memory vote in the semantic side. */
  memoryWeight: 0.8,
} as const;

export type { SearchChannel };

/**
 * Ablation switches for the bench's baselines: a separate argument of searchCandidates that no job passes,
 * so a production request cannot reach them (the request schemas do not have them either).
 */
export interface SearchAblation {
  /** Which scores rank: the full hybrid (default) or one channel. */
  channel?: SearchChannel;
  /** Drop the graph term. */
  noGraph?: boolean;
  /** Drop the adaptive α and use this fixed α. */
  fixedAlpha?: number;
}

export interface SearchOptions {
  limit?: number;
  context?: number[];
  /** Tool indices never returned. */
  exclude?: (i: number) => boolean;
  /**
   * "active" (default: a user's intent; α from embedding/graph coherence) or "passive" (suggestions
   * while a workflow runs; α from heat diffused from the context tools). Passive needs context.
   */
  alphaMode?: "active" | "passive";
  /** Intent-memory votes per tool index in [0,1] (absent = no memory evidence). */
  memory?: Map<number, number>;
  /** tokenize(queryText), when the caller has it already. */
  tokens?: readonly string[];
  memoryWeight?: number;
  /** Weight of the content channel against the memory, in [0, 1] (fitted per project). Default 1. */
  contentWeight?: number;
  channelTopN?: number;
  beta?: number;
  /** Multiplier of the graph term in [0, 1] (fitted per project, search-weights.ts). Default 1. */
  graphWeight?: number;
  /**
   * The query's best similarity to a past intent (RecallResult.similarity): the history guard's input
   * (algorithms/search/history-guard.ts). Absent = trust 1 (no guard).
   */
  historySimilarity?: number | undefined;
  /** Strength γ of the history guard in [0, 1] (fitted per project, search-weights.ts). Default 1. */
  historyGuard?: number | undefined;
  /** RecallResult.repeatRecordedAt: limits the never-run description anchor on a repeat (hybrid-rank.ts). */
  repeatRecordedAt?: number | undefined;
  /** Replaces the no-context global signal (used by the leave-one-out fit). */
  global?: Float64Array;
  /**
   * Replaces the executions per tool index that decide α's cold start (used by the leave-one-out fit: the
   * held-out execution's own steps removed, so a tool that ran only there is judged as never run).
   */
  executions?: ArrayLike<number>;
  /**
   * Two-hop routing (namespace-index.ts): search only these tool indices (ascending). Both channels are
   * then exact over the subset (BM25 scores of the subset, cosine by dot product), fused as usual; memory
   * votes still bring their own candidates. Absent = every tool (flat).
   */
  restrictTo?: Int32Array;
  /**
   * Return only the best `top` hits: exactly the first `top` of the full ranking, in the same order (every
   * candidate is still scored; only the sort of the rest is skipped). Absent = every hit.
   */
  top?: number;
}

export type SearchHit = HybridHit;

/**
 * Coherence per tool: derived state of the search index per analytics (so it is refreshed with the analytics,
 * debounced, not after every recorded execution), computed on the graph state current at that time.
 */
const COHERENCE = derivedKey<Float64Array>("tool coherence");

export function toolCoherence(s: GraphSnapshot, a: AnalyticsView, idx: SearchIndex): Float64Array {
  const d = idx.dims;
  return idx.derived.get(
    COHERENCE,
    () =>
      coherenceOf(s.csr, s.n, (u, v) => rowDot(idx.toolVectors, d, u, idx.toolVectors.subarray(v * d, (v + 1) * d))),
    [a.analytics],
  );
}

const GLOBAL_SIGNAL = derivedKey<Float64Array>("global signal");

/** The documented no-context graph signal, in [0,1] (derived state of the graph version and its analytics). */
export function globalSignal(s: GraphSnapshot, a: AnalyticsView): Float64Array {
  return s.derived(GLOBAL_SIGNAL, () => globalSignalOf(a.analytics.pagerank, s.successes, s.n), [a.analytics]);
}

export function searchCandidates(
  s: GraphSnapshot,
  a: AnalyticsView,
  idx: SearchIndex,
  queryText: string,
  queryVector: Float32Array,
  options: SearchOptions = {},
  ablation: SearchAblation = {},
): SearchHit[] {
  const topN = options.channelTopN ?? SEARCH_DEFAULTS.channelTopN;
  const tokens = options.tokens ?? tokenize(queryText);
  const { bm, vec } = options.restrictTo
    ? restrictedChannels(idx, tokens, queryVector, options.restrictTo, topN)
    : {
        bm: searchBm25(idx.toolBm25, tokens, topN),
        vec: queryVector.length === idx.dims ? searchVectorIndex(idx.toolVectorIndex, queryVector, topN) : [],
      };
  // The exact cosines of the candidates outside the vector hits (BM25-only and memory ones), in one batch through
  // the index's SIMD row kernel (the same bits as rowDot, i.e. dotAt).
  const extraCosine = outsideCosines(idx, vec, bm, options.memory, queryVector);
  // Unsorted: the hits are sorted below by a total order, so the fused order would be thrown away.
  const fused = fuseScores(vec, bm, {
    beta: options.beta ?? SEARCH_DEFAULTS.beta,
    bm25Ideal: bm25IdealScore(idx.toolBm25, tokens),
    cosineOf: (id) => extraCosine.get(id) ?? rowDot(idx.toolVectors, idx.dims, id, queryVector),
    sorted: false,
  });
  const candidates: FusedHit[] = fused;
  // Memory votes bring their own candidates.
  if (options.memory && options.memory.size > 0) {
    const seen = new Set<number>();
    for (const f of fused) seen.add(f.id);
    for (const id of options.memory.keys()) {
      if (!seen.has(id)) {
        seen.add(id);
        const cos = extraCosine.get(id) ?? rowDot(idx.toolVectors, idx.dims, id, queryVector);
        candidates.push({
          id,
          semantic: fusedSemantic(cos, 0, options.beta ?? SEARCH_DEFAULTS.beta),
          cosine: cos,
          bm25: 0,
          bm25Norm: 0,
        });
      }
    }
  }
  const context = options.context ?? [];
  const hasContext = context.length > 0 && !ablation.noGraph;
  const aa = hasContext ? prepareAdamicAdar(s.csr, context) : undefined;
  const global = ablation.noGraph ? undefined : (options.global ?? globalSignal(s, a));
  const gw = options.graphWeight ?? 1;
  const mu = options.memoryWeight ?? SEARCH_DEFAULTS.memoryWeight;
  const channel = ablation.channel ?? "hybrid";
  const passive =
    options.alphaMode === "passive" && context.length > 0 && !ablation.noGraph && ablation.fixedAlpha === undefined;
  const heat = passive ? heatField(s.csr, context) : undefined;
  const coherence =
    ablation.noGraph || ablation.fixedAlpha !== undefined || passive ? undefined : toolCoherence(s, a, idx);
  return rankHybridCandidates({
    candidates,
    executions: options.executions ?? s.executions,
    exclude: options.exclude,
    memory: options.memory,
    memoryWeight: mu,
    contentWeight: options.contentWeight ?? 1,
    adamicAdar: aa,
    global,
    graphWeight: gw,
    historyTrust: historyTrust(options.historySimilarity, { strength: options.historyGuard ?? 1 }),
    repeatRecordedAt: options.repeatRecordedAt,
    addedAt: s.addedAt,
    channel,
    fixedAlpha: ablation.fixedAlpha,
    heat,
    coherence,
    top: options.top,
  });
}

/** Top-N of each channel over a subset of the tools: BM25 from the full postings, exact cosines. */
function restrictedChannels(
  idx: SearchIndex,
  tokens: readonly string[],
  q: Float32Array,
  subset: Int32Array,
  topN: number,
): { bm: ScoredId[]; vec: ScoredId[] } {
  const scores = bm25Scores(idx.toolBm25, tokens);
  const bmTop = new TopK(Math.min(topN, subset.length));
  for (const t of subset) if (scores[t]! > 0) bmTop.offer(t, scores[t]!);
  if (q.length !== idx.dims) return { bm: bmTop.result(), vec: [] };
  const vecTop = new TopK(Math.min(topN, subset.length));
  for (const t of subset) vecTop.offer(t, rowDot(idx.toolVectors, idx.dims, t, q));
  return { bm: bmTop.result(), vec: vecTop.result() };
}

const NO_COSINES: ReadonlyMap<number, number> = new Map();

/** Exact cosines (rowDot's bits, exactRowDots) of the BM25 and memory candidates the vector channel did not return. */
function outsideCosines(
  idx: SearchIndex,
  vec: readonly { id: number }[],
  bm: readonly { id: number }[],
  memory: ReadonlyMap<number, number> | undefined,
  q: Float32Array,
): ReadonlyMap<number, number> {
  if (q.length !== idx.dims || idx.dims === 0) return NO_COSINES;
  const inVec = new Set<number>();
  for (const h of vec) inVec.add(h.id);
  const ids: number[] = [];
  const add = (id: number) => {
    if (!inVec.has(id)) {
      inVec.add(id);
      ids.push(id);
    }
  };
  for (const h of bm) add(h.id);
  if (memory) for (const id of memory.keys()) add(id);
  if (ids.length === 0) return NO_COSINES;
  const values = exactRowDots(idx.toolVectorIndex, ids, ids.length, q);
  const out = new Map<number, number>();
  for (let k = 0; k < ids.length; k++) out.set(ids[k]!, values[k]!);
  return out;
}

export function explainHit(s: GraphSnapshot, h: SearchHit): string {
  const content = h.contentWeight === 1 ? "" : `content ${h.content.toFixed(3)} × weight ${h.contentWeight}, `;
  const parts = [
    `semantic ${h.semantic.toFixed(3)} (${content}cosine ${h.cosine.toFixed(3)}, bm25 ${h.bm25Norm.toFixed(3)}${h.memory > 0 ? `, memory ${h.memory.toFixed(2)}` : ""})`,
  ];
  if (h.graphSource === "adamic-adar") {
    const via = h.commonNeighbours.map((c) => s.tools[c.via]?.id).filter(Boolean);
    parts.push(`graph ${h.graph.toFixed(3)} (Adamic-Adar to the context${via.length ? ` via ${via.join(", ")}` : ""})`);
  } else if (h.graphSource === "global") {
    parts.push(`graph ${h.graph.toFixed(3)} (global: PageRank and successful use, no context given)`);
  }
  parts.push(`α ${h.alpha.toFixed(2)} (${h.alphaRegime}, ${s.executions[h.index]} executions)`);
  if (h.anchored)
    parts.push(
      h.anchorKind === "unused-best-content"
        ? "kept in the top 3: its description is among the 3 best matches and it has never run (the history cannot judge it)"
        : "kept in the top 3: its description is the best lexical and semantic match",
    );
  return `${s.tools[h.index]!.id}: ${h.final.toFixed(3)} = ${parts.join("; ")}`;
}
