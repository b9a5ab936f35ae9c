/**
 * Analytics of one graph carried onto a graph of another shape (tools or capabilities added, retired or renamed),
 * by id, so that a read can answer at once while the new graph's analytics are computed in the worker
 * (analytics.ts `AnalyticsCache.get`): a tool or capability of both keeps its values; a new one has PageRank 0,
 * hypergraph PageRank 0, and community and clusters -1 (no community yet: every reader treats a negative one as
 * none). Version, patch count and time stay the old ones, so the result reads as stale.
 * Computing the new graph's analytics on the event loop instead held it 70–270 ms (Louvain at 3,000–6,000
 * tools; docs/decisions/gateway-first-answer.md).
 */
import type { Analytics } from "./analytics.ts";

/** The tools and capabilities of a graph, in their index order. */
export interface AnalyticsShape {
  readonly tools: readonly { readonly id: string }[];
  readonly index: ReadonlyMap<string, number>;
  readonly capabilities: readonly { readonly id: string }[];
  readonly capabilityIndex: ReadonlyMap<string, number>;
}

/** `old` (computed on `from`) laid out on `to`'s tools and capabilities, matched by id. */
export function remapAnalytics(old: Analytics, from: AnalyticsShape, to: AnalyticsShape): Analytics {
  const n = to.tools.length;
  const pagerankRaw = new Float64Array(n);
  const pagerank = new Float64Array(n);
  const community = new Int32Array(n).fill(-1);
  const toolCluster = new Int32Array(n).fill(-1);
  const hyperTools = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const j = from.index.get(to.tools[i]!.id);
    if (j === undefined) continue;
    pagerankRaw[i] = old.pagerankRaw[j]!;
    pagerank[i] = old.pagerank[j]!;
    community[i] = old.community[j]!;
    toolCluster[i] = old.toolCluster[j]!;
    hyperTools[i] = old.hyperTools[j]!;
  }
  const m = to.capabilities.length;
  const capabilityCluster = new Int32Array(m).fill(-1);
  const hyperCapabilities = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    const j = from.capabilityIndex.get(to.capabilities[c]!.id);
    if (j === undefined) continue;
    capabilityCluster[c] = old.capabilityCluster[j]!;
    hyperCapabilities[c] = old.hyperCapabilities[j]!;
  }
  return { ...old, pagerankRaw, pagerank, community, toolCluster, hyperTools, capabilityCluster, hyperCapabilities };
}
