/**
 * The search ranking core (docs/decisions/hybrid-alpha.md): the candidates of an intent and their hybrid scores,
 * from the catalog's read model given as plain data (RankingData) — pure, no I/O, no clock. The search job, the
 * capability match, the fits and the benches call this one function (src/jobs/search-scoring.ts feeds it a
 * project's view; a library user gets the same data from `Toolgraph.searchModel`).
 *
 * - semantic: cosine (query embedding vs tool embedding, two-stage vector index) fused with BM25 over the
 *   tool fields (fusion.ts: 0.7·cos⁺ + 0.3·BM25 max-normalised with an ideal-match floor). Candidates: a
 *   generous top-N of each channel (default 100 each), never a hard cut before fusion; memory votes bring their
 *   own candidates.
 * - graph: weighted Adamic–Adar of the candidate to the context tools (adamic-adar.ts: 1 − exp(−AA), max over
 *   the context). Without context tools the graph term falls back to the global signal (global-signal.ts):
 *   global(u) = 0.5·PageRank(u)/max PageRank + 0.5·ln(1+successes(u))/ln(1+max successes).
 * - α: local adaptive α per candidate (adaptive-alpha.ts): active search uses the coherence of the tool's
 *   semantic and graph neighbourhoods (coherence.ts, α_est = 1 − 0.5·coherence), cold start (< 5 executions)
 *   shrunk toward 1.0; passive search (suggestions while a workflow runs) the heat diffused from the context.
 * - intent memory: semantic' = 1 − (1 − w_c·semantic)(1 − τ·μ·vote) (channel-fusion.ts), τ the history guard's
 *   trust (history-guard.ts) from the query's best similarity to a past intent (absent: τ = 1).
 * - two-hop routing (`restrictTo`): both channels exact over a subset of the tools; scoring inside unchanged.
 * Scoring and ranking: hybrid-rank.ts (a total order: the result does not depend on candidate order).
 * Invariants: the same data and options give the same hits, bit for bit; `top` returns exactly the first `top`
 * of the full ranking; the ablation switches (a separate argument) are off by default.
 */
import type { Csr } from "../graph/csr.ts";
import { rowDot } from "../linalg/dot.ts";
import { prepareAdamicAdar } from "./adamic-adar.ts";
import { heatField } from "./adaptive-alpha.ts";
import { type Bm25Index, bm25IdealScore, bm25Scores, searchBm25 } from "./bm25.ts";
import { type FusedHit, fusedSemantic, fuseScores } from "./fusion.ts";
import { historyTrust } from "./history-guard.ts";
import { type HybridHit, rankHybridCandidates, type SearchChannel } from "./hybrid-rank.ts";
import { tokenize } from "./tokenize.ts";
import { type ScoredId, TopK } from "./top-k.ts";
import { exactRowDots, searchVectorIndex, type VectorIndex } from "./vector-index.ts";

/**
 * A catalog's read model as the ranking core takes it: the graph (CSR over tool indices, per-tool usage and
 * entry times), the search index (BM25 over the tool texts, unit vectors and their vector index), and the two
 * derived signals, computed on first use (the caller may memoise them per graph state).
 */
export interface RankingData {
  readonly n: number;
  readonly csr: Csr;
  /** Executions (steps) per tool: α's cold start. */
  readonly executions: ArrayLike<number>;
  /** Epoch ms when each tool entered the catalog (the never-run anchor on a repeat). */
  readonly addedAt: Float64Array;
  readonly bm25: Bm25Index;
  /** Row-major n × dims unit vectors. */
  readonly vectors: Float32Array;
  readonly vectorIndex: VectorIndex;
  readonly dims: number;
  /** The no-context graph signal per tool, in [0, 1] (global-signal.ts). */
  globalSignal(): Float64Array;
  /** The coherence per tool (coherence.ts). */
  coherence(): Float64Array;
}

export type { SearchChannel };

export const SEARCH_DEFAULTS = {
  limit: 10,
  /** Candidates taken from each channel before fusion. */
  channelTopN: 100,
  /** Weight of the cosine channel in the semantic fusion (projects fit their own). */
  beta: 0.5,
  /** Weight of the intent-memory vote in the semantic side. */
  memoryWeight: 0.8,
} as const;

/**
 * Ablation switches for the bench's baselines: a separate argument of rankCandidates that no job passes,
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
  /** Multiplier of the graph term in [0, 1] (fitted per project). Default 1. */
  graphWeight?: number;
  /**
   * The query's best similarity to a past intent (RecallResult.similarity): the history guard's input
   * (algorithms/search/history-guard.ts). Absent = trust 1 (no guard).
   */
  historySimilarity?: number | undefined;
  /** Strength γ of the history guard in [0, 1] (fitted per project). Default 1. */
  historyGuard?: number | undefined;
  /** RecallResult.repeatRecordedAt: limits the never-run description anchor on a repeat (hybrid-rank.ts). */
  repeatRecordedAt?: number | undefined;
  /** Replaces the no-context global signal (a leave-one-out fit). */
  global?: Float64Array;
  /**
   * Replaces the executions per tool index that decide α's cold start (a leave-one-out fit: the
   * held-out execution's own steps removed, so a tool that ran only there is judged as never run).
   */
  executions?: ArrayLike<number>;
  /**
   * Two-hop routing (src/view/namespace-index.ts): search only these tool indices (ascending). Both channels are
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

export function rankCandidates(
  d: RankingData,
  queryText: string,
  queryVector: Float32Array,
  options: SearchOptions = {},
  ablation: SearchAblation = {},
): SearchHit[] {
  const topN = options.channelTopN ?? SEARCH_DEFAULTS.channelTopN;
  const tokens = options.tokens ?? tokenize(queryText);
  const { bm, vec } = options.restrictTo
    ? restrictedChannels(d, tokens, queryVector, options.restrictTo, topN)
    : {
        bm: searchBm25(d.bm25, tokens, topN),
        vec: queryVector.length === d.dims ? searchVectorIndex(d.vectorIndex, queryVector, topN) : [],
      };
  // The exact cosines of the candidates outside the vector hits (BM25-only and memory ones), in one batch through
  // the index's SIMD row kernel (the same bits as rowDot, i.e. dotAt).
  const extraCosine = outsideCosines(d, vec, bm, options.memory, queryVector);
  // Unsorted: the hits are sorted below by a total order, so the fused order would be thrown away.
  const fused = fuseScores(vec, bm, {
    beta: options.beta ?? SEARCH_DEFAULTS.beta,
    bm25Ideal: bm25IdealScore(d.bm25, tokens),
    cosineOf: (id) => extraCosine.get(id) ?? rowDot(d.vectors, d.dims, id, queryVector),
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
        const cos = extraCosine.get(id) ?? rowDot(d.vectors, d.dims, id, queryVector);
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
  const aa = hasContext ? prepareAdamicAdar(d.csr, context) : undefined;
  const global = ablation.noGraph ? undefined : (options.global ?? d.globalSignal());
  const gw = options.graphWeight ?? 1;
  const mu = options.memoryWeight ?? SEARCH_DEFAULTS.memoryWeight;
  const channel = ablation.channel ?? "hybrid";
  const passive =
    options.alphaMode === "passive" && context.length > 0 && !ablation.noGraph && ablation.fixedAlpha === undefined;
  const heat = passive ? heatField(d.csr, context) : undefined;
  const coherence = ablation.noGraph || ablation.fixedAlpha !== undefined || passive ? undefined : d.coherence();
  return rankHybridCandidates({
    candidates,
    executions: options.executions ?? d.executions,
    exclude: options.exclude,
    memory: options.memory,
    memoryWeight: mu,
    contentWeight: options.contentWeight ?? 1,
    adamicAdar: aa,
    global,
    graphWeight: gw,
    historyTrust: historyTrust(options.historySimilarity, { strength: options.historyGuard ?? 1 }),
    repeatRecordedAt: options.repeatRecordedAt,
    addedAt: d.addedAt,
    channel,
    fixedAlpha: ablation.fixedAlpha,
    heat,
    coherence,
    top: options.top,
  });
}

/** Top-N of each channel over a subset of the tools: BM25 from the full postings, exact cosines. */
function restrictedChannels(
  d: RankingData,
  tokens: readonly string[],
  q: Float32Array,
  subset: Int32Array,
  topN: number,
): { bm: ScoredId[]; vec: ScoredId[] } {
  const scores = bm25Scores(d.bm25, tokens);
  const bmTop = new TopK(Math.min(topN, subset.length));
  for (const t of subset) if (scores[t]! > 0) bmTop.offer(t, scores[t]!);
  if (q.length !== d.dims) return { bm: bmTop.result(), vec: [] };
  const vecTop = new TopK(Math.min(topN, subset.length));
  for (const t of subset) vecTop.offer(t, rowDot(d.vectors, d.dims, t, q));
  return { bm: bmTop.result(), vec: vecTop.result() };
}

const NO_COSINES: ReadonlyMap<number, number> = new Map();

/** Exact cosines (rowDot's bits, exactRowDots) of the BM25 and memory candidates the vector channel did not return. */
function outsideCosines(
  d: RankingData,
  vec: readonly { id: number }[],
  bm: readonly { id: number }[],
  memory: ReadonlyMap<number, number> | undefined,
  q: Float32Array,
): ReadonlyMap<number, number> {
  if (q.length !== d.dims || d.dims === 0) return NO_COSINES;
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
  const values = exactRowDots(d.vectorIndex, ids, ids.length, q);
  const out = new Map<number, number>();
  for (let k = 0; k < ids.length; k++) out.set(ids[k]!, values[k]!);
  return out;
}
