/**
 * Search by intent over a project's view: the view's snapshot, analytics and search index given to the ranking
 * core (algorithms/search/rank-candidates.ts, where the formula and its sources are), with the derived signals
 * memoised per graph state, and the text that explains a hit.
 */

import { rowDot } from "../../algorithms/linalg/dot.ts";
import {
  toolCoherence as coherenceOf,
  toolCoherenceSteps as coherenceStepsOf,
} from "../../algorithms/search/coherence.ts";
import { globalSignal as globalSignalOf } from "../../algorithms/search/global-signal.ts";
import {
  type RankingData,
  rankCandidates,
  type SearchAblation,
  type SearchHit,
  type SearchOptions,
} from "../../algorithms/search/rank-candidates.ts";
import type { AnalyticsView } from "../view/analytics.ts";
import { drainInSlices } from "../view/background.ts";
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { SearchIndex } from "../view/search-index.ts";

export {
  type RankingData,
  SEARCH_DEFAULTS,
  type SearchAblation,
  type SearchChannel,
  type SearchHit,
  type SearchOptions,
} from "../../algorithms/search/rank-candidates.ts";

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

/**
 * `toolCoherence` computed in slices of the event loop and kept as the same derived state, for a batch job
 * about to rank (its first search would otherwise compute it in one piece: tens of ms at 2,000 tools).
 */
export async function readyToolCoherence(s: GraphSnapshot, a: AnalyticsView, idx: SearchIndex): Promise<void> {
  const d = idx.dims;
  const values = await drainInSlices(
    coherenceStepsOf(s.csr, s.n, (u, v) => rowDot(idx.toolVectors, d, u, idx.toolVectors.subarray(v * d, (v + 1) * d))),
  );
  idx.derived.get(COHERENCE, () => values, [a.analytics]);
}

const GLOBAL_SIGNAL = derivedKey<Float64Array>("global signal");

/** The documented no-context graph signal, in [0,1] (derived state of the graph version and its analytics). */
export function globalSignal(s: GraphSnapshot, a: AnalyticsView): Float64Array {
  return s.derived(GLOBAL_SIGNAL, () => globalSignalOf(a.analytics.pagerank, s.successes, s.n), [a.analytics]);
}

/**
 * The ranking core's data for a snapshot, its analytics and its search index: the arrays as they are, the
 * CSR read on use (the snapshot builds it once), the derived signals memoised as above.
 */
export function rankingData(s: GraphSnapshot, a: AnalyticsView, idx: SearchIndex): RankingData {
  return {
    n: s.n,
    get csr() {
      return s.csr;
    },
    executions: s.executions,
    addedAt: s.addedAt,
    bm25: idx.toolBm25,
    vectors: idx.toolVectors,
    vectorIndex: idx.toolVectorIndex,
    dims: idx.dims,
    globalSignal: () => globalSignal(s, a),
    coherence: () => toolCoherence(s, a, idx),
  };
}

/** rankCandidates (algorithms/search/rank-candidates.ts) over a project's snapshot, analytics and search index. */
export function searchCandidates(
  s: GraphSnapshot,
  a: AnalyticsView,
  idx: SearchIndex,
  queryText: string,
  queryVector: Float32Array,
  options: SearchOptions = {},
  ablation: SearchAblation = {},
): SearchHit[] {
  return rankCandidates(rankingData(s, a, idx), queryText, queryVector, options, ablation);
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
