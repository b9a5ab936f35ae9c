/**
 * Two-hop routing for large catalogs (issue 10): the namespace read model of a project's catalog and the
 * routing decision of one search.
 *
 * The namespace index (algorithms/search/namespace-routing.ts: groups, unit centroids of the tools'
 * embeddings, the tools' BM25 index for the best-member lexical score) is derived from the search index and
 * cached beside it: rebuilt only when the search index is rebuilt (tool texts changed) or when the tools'
 * namespaces change (a `server` field edited); a recorded execution never rebuilds it (the usage prior
 * reads the snapshot's live success counts at query time).
 *
 * `routing`: "flat" searches every tool; "two-hop" ranks namespaces first and searches the tools of the
 * best few (plus the context tools' graph neighbours, so the graph term keeps its evidence, and the tools
 * the intent memory votes for); "auto" (the default) picks two-hop when the catalog has at least
 * `autoMinTools` tools in at least `autoMinNamespaces` namespaces, else flat.
 *
 * Measured default (bench/routing.ts, bench/results/routing.json; a shared 2-core machine): at 50,000
 * synthetic tools in 2,000 namespaces two-hop cut the search p50 from 5.6 to 4.4 ms (scoring 4.4 → 3.1 ms,
 * p99 8.1 → 3.7 ms) with the same Recall@10 (0.71 vs 0.70); at 10,000 tools it was a wash (scoring p50 2.0
 * vs 2.2 ms, service p50 4.4 vs 4.3 ms); on the shared datasets (≤ 4,076 tools) it equalled flat on
 * ToolLinkOS and NESTFUL and lost recall on Seal-Tools (146 fields: Recall@10 0.889 vs 0.939 in domain,
 * 0.779 vs 0.896 out of domain). So auto = two-hop from 50,000 tools, and only with at least 100
 * namespaces (the routed namespaces must hold few tools for the second hop to be cheap); flat below.
 */

import { undirectedNeighbors } from "../../algorithms/graph/csr.ts";
import {
  buildNamespaceIndex,
  groupNamespaces,
  type NamespaceIndex,
  type NamespaceScoreOptions,
  namespaceOf,
  type SelectOptions,
  scoreNamespaces,
  selectNamespaces,
} from "../../algorithms/search/namespace-routing.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import type { GraphSnapshot } from "../snapshot/graph-snapshot.ts";
import type { SearchIndex } from "./search-index.ts";

export type Routing = "flat" | "two-hop" | "auto";

export const ROUTING_DEFAULTS = {
  /** `auto` routes in two hops from this many tools on (the measured winner, see the header). */
  autoMinTools: 50_000,
  /** … and only when the tools fall into at least this many namespaces. */
  autoMinNamespaces: 100,
  /** Graph neighbours of each context tool added to the candidates (strongest edges first). */
  contextNeighbours: 50,
  /** Namespaces listed in the explanation. */
  explainNamespaces: 5,
} as const;

interface Cached {
  tools: GraphSnapshot["tools"];
  names: string[];
  index: NamespaceIndex;
}

const cache = new WeakMap<SearchIndex, Cached>();

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The namespace of each tool of the snapshot (catalog `server`, else the id prefix). */
export function toolNamespaces(s: GraphSnapshot): string[] {
  return s.tools.map((t) => namespaceOf(t));
}

/** The namespace index of the catalog behind `idx`, cached per search index (see the header). */
export function namespaceIndexFor(s: GraphSnapshot, idx: SearchIndex): NamespaceIndex {
  const hit = cache.get(idx);
  if (hit && hit.tools === s.tools) return hit.index;
  const names = toolNamespaces(s);
  if (hit && sameNames(hit.names, names)) {
    hit.tools = s.tools;
    return hit.index;
  }
  const index = buildNamespaceIndex(groupNamespaces(names), idx.toolVectors, idx.dims, idx.toolBm25);
  cache.set(idx, { tools: s.tools, names, index });
  return index;
}

export interface RoutingChoice {
  requested: Routing;
  mode: "flat" | "two-hop";
  reason: string;
}

export interface AutoThresholds {
  autoMinTools: number;
  autoMinNamespaces: number;
}

/** Resolves `auto` for this catalog: two-hop from autoMinTools tools in autoMinNamespaces namespaces. */
export function chooseRouting(requested: Routing, s: GraphSnapshot, idx: SearchIndex, thresholds: AutoThresholds = ROUTING_DEFAULTS): RoutingChoice {
  if (requested === "flat") return { requested, mode: "flat", reason: "flat search over every tool (requested)" };
  if (requested === "two-hop") return { requested, mode: "two-hop", reason: "two-hop routing (requested)" };
  const { autoMinTools, autoMinNamespaces } = thresholds;
  if (s.n < autoMinTools) {
    return { requested, mode: "flat", reason: `auto: flat, the catalog has ${s.n} tools (two-hop from ${autoMinTools})` };
  }
  const count = namespaceIndexFor(s, idx).groups.names.length;
  if (count < autoMinNamespaces) {
    return { requested, mode: "flat", reason: `auto: flat, ${s.n} tools but only ${count} namespaces (two-hop from ${autoMinNamespaces})` };
  }
  return { requested, mode: "two-hop", reason: `auto: two-hop, ${s.n} tools in ${count} namespaces (from ${autoMinTools} tools)` };
}

export interface RoutedNamespace {
  namespace: string;
  score: number;
  tools: number;
  cosine: number;
  bm25: number;
  memory: number;
  usage: number;
}

export interface RouteResult {
  /** Tool indices to search (ascending). */
  restrictTo: Int32Array;
  namespaces: RoutedNamespace[];
  /** Namespaces in the catalog. */
  totalNamespaces: number;
  /** How B was chosen, and what else joined the candidates. */
  reason: string;
}

export interface RouteOptions extends NamespaceScoreOptions, SelectOptions {
  /** Tools already in the workflow: their graph neighbours join the candidates. */
  context?: number[] | undefined;
}

/** First hop: scores the namespaces for the query, keeps the best few and returns their tools. */
export function routeQuery(s: GraphSnapshot, ns: NamespaceIndex, text: string, vector: Float32Array, memory: ReadonlyMap<number, number> | undefined, options: RouteOptions = {}): RouteResult {
  const scores = scoreNamespaces(ns, { tokens: tokenize(text), vector, toolVotes: memory, successes: s.successes }, options);
  const routed = selectNamespaces(ns.groups, scores.score, options);
  const extra = new Set<number>();
  for (const c of options.context ?? []) {
    extra.add(c);
    const { ids, weights } = undirectedNeighbors(s.csr, c);
    const order = ids.map((_, k) => k).sort((a, b) => weights[b]! - weights[a]! || ids[a]! - ids[b]!);
    for (const k of order.slice(0, ROUTING_DEFAULTS.contextNeighbours)) extra.add(ids[k]!);
  }
  let restrictTo = routed.tools;
  let reason = routed.reason;
  if (extra.size > 0) {
    const all = new Set<number>(restrictTo);
    const before = all.size;
    for (const t of extra) all.add(t);
    restrictTo = Int32Array.from(all).sort();
    if (all.size > before) reason += `, plus ${all.size - before} context tool${all.size - before === 1 ? "" : "s"} and graph neighbours`;
  }
  return {
    restrictTo,
    totalNamespaces: ns.groups.names.length,
    reason,
    namespaces: routed.namespaces.map((g) => ({
      namespace: ns.groups.names[g]!,
      score: scores.score[g]!,
      tools: ns.groups.offsets[g + 1]! - ns.groups.offsets[g]!,
      cosine: scores.cosine[g]!,
      bm25: scores.bm25Norm[g]!,
      memory: scores.memory[g]!,
      usage: scores.usage[g]!,
    })),
  };
}

/** "routed via namespaces github (0.71), git (0.52), … — 3 of 9 namespaces, 14 candidate tools". */
export function explainRoute(r: RouteResult): string {
  const shown = r.namespaces.slice(0, ROUTING_DEFAULTS.explainNamespaces).map((n) => `${n.namespace} (${n.score.toFixed(2)})`);
  const more = r.namespaces.length > shown.length ? ` and ${r.namespaces.length - shown.length} more` : "";
  return `routed via namespaces ${shown.join(", ")}${more} — ${r.namespaces.length} of ${r.totalNamespaces} namespaces, ${r.restrictTo.length} candidate tools (${r.reason})`;
}
