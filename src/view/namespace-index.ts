/**
 * Two-hop routing for large catalogs (algorithms/README.md, "Two-hop routing"): the namespace read model of a
 * project's catalog and the routing decision of one search.
 *
 * The namespace index (algorithms/search/namespace-routing.ts: groups, unit centroids of the tools'
 * embeddings, the tools' BM25 index for the best-member lexical score) is derived from the search index and
 * cached beside it: rebuilt only when the search index is rebuilt (tool texts changed) or when the tools'
 * namespaces change (a `server` field edited); a recorded execution never rebuilds it (the usage prior
 * reads the snapshot's live success counts at query time).
 *
 * `routing`: "flat" searches every tool; "two-hop" ranks namespaces first and searches the tools of the
 * best few (plus the context tools' graph neighbours, so the graph term keeps its evidence, and the tools
 * the intent memory votes for); "auto" (the default) is flat below `autoMinTools` tools or `autoMinNamespaces`
 * namespaces; from there it measures: the first `trialQueries` auto searches of a catalog run both routes (the
 * answer is flat's), timing each and comparing two-hop's top 10 with flat's, and the route decided by
 * algorithms/search/namespace-routing.ts `decideRoute` (two-hop only when its median is ≥ 1.1× faster at a mean
 * top-10 overlap ≥ 0.9) is kept for the catalog until its executions grow `retrialGrowth`-fold (the memory
 * channel's cost grows with the traces), then measured again. A fixed size threshold was wrong in both directions:
 * chosen at 50k tools on a run with 10k traces, two-hop was 1.3–1.7× slower than flat with 50k traces.
 * Measured with the trial (bench/results/routing-20k.json, routing-50k.json; loaded machine): at 20k tools / 10k
 * traces two-hop was 1.28× slower at p50 and at 50k tools / 10k traces 1.77× slower, at top-10 overlaps 0.81 and
 * 0.84 with flat; auto kept flat both times.
 *
 * Earlier measurements (bench/routing.ts, bench/results/routing.json; a shared 2-core machine): at 50,000
 * synthetic tools in 2,000 namespaces two-hop cut the search p50 from 5.6 to 4.4 ms (scoring 4.4 → 3.1 ms,
 * p99 8.1 → 3.7 ms) with the same Recall@10 (0.71 vs 0.70); at 10,000 tools it was a wash (scoring p50 2.0
 * vs 2.2 ms, service p50 4.4 vs 4.3 ms); on the shared datasets (≤ 4,076 tools) it equalled flat on
 * ToolLinkOS and NESTFUL and lost recall on Seal-Tools (146 fields: Recall@10 0.889 vs 0.939 in domain,
 * 0.779 vs 0.896 out of domain). So auto stays flat below 20,000 tools and 100 namespaces (the routed
 * namespaces must hold few tools for the second hop to be cheap) and measures above.
 */

import { undirectedNeighbors } from "../../algorithms/graph/csr.ts";
import {
  buildNamespaceIndex,
  decideRoute,
  groupNamespaces,
  type NamespaceIndex,
  type NamespaceScoreOptions,
  namespaceOf,
  type RouteDecision,
  type RouteTrialSample,
  type SelectOptions,
  scoreNamespaces,
  selectNamespaces,
} from "../../algorithms/search/namespace-routing.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { derivedKey } from "./derived.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";
import type { SearchIndex } from "./search-index.ts";

export type Routing = "flat" | "two-hop" | "auto";

export const ROUTING_DEFAULTS = {
  /** `auto` measures both routes from this many tools on (flat below, see the header). */
  autoMinTools: 20_000,
  /** … and only when the tools fall into at least this many namespaces. */
  autoMinNamespaces: 100,
  /** Graph neighbours of each context tool added to the candidates (strongest edges first). */
  contextNeighbours: 50,
  /** Namespaces listed in the explanation. */
  explainNamespaces: 5,
  /** `auto` runs both routes on this many queries of a catalog before it keeps one. */
  trialQueries: 8,
  /** The kept route is measured again once the catalog's executions grew this many times. */
  retrialGrowth: 2,
} as const;

interface Trial {
  samples: RouteTrialSample[];
  decision?: RouteDecision & { executions: number };
}

interface Cached {
  tools: GraphSnapshot["tools"];
  names: string[];
  index: NamespaceIndex;
}

/** The routing trial of the catalog: derived state of its search index, dropped with it. */
const ROUTE_TRIAL = derivedKey<{ trial: Trial | undefined }>("routing trial");
const trialOf = (idx: SearchIndex) => idx.derived.get(ROUTE_TRIAL, () => ({ trial: undefined }));

function totalExecutions(s: GraphSnapshot): number {
  let sum = 0;
  for (let i = 0; i < s.executions.length; i++) sum += s.executions[i]!;
  return sum;
}

/** The namespace index of the catalog: derived state of its search index. */
const NAMESPACE_INDEX = derivedKey<{ cached: Cached | undefined }>("namespace index");

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
  const slot = idx.derived.get(NAMESPACE_INDEX, () => ({ cached: undefined }));
  const hit = slot.cached;
  if (hit && hit.tools === s.tools) return hit.index;
  const names = toolNamespaces(s);
  if (hit && sameNames(hit.names, names)) {
    hit.tools = s.tools;
    return hit.index;
  }
  const index = buildNamespaceIndex(groupNamespaces(names), idx.toolVectors, idx.dims, idx.toolBm25);
  slot.cached = { tools: s.tools, names, index };
  return index;
}

export interface RoutingChoice {
  requested: Routing;
  mode: "flat" | "two-hop";
  reason: string;
  /** auto, still measuring: run both routes, answer with flat, and record the sample (recordRouteTrial). */
  trial?: true;
}

export interface AutoThresholds {
  autoMinTools: number;
  autoMinNamespaces: number;
}

/**
 * Resolves `auto` for this catalog: flat below autoMinTools tools or autoMinNamespaces namespaces; above, the route
 * measured on the catalog's first queries, or a trial while that measurement runs (see the header).
 */
export function chooseRouting(
  requested: Routing,
  s: GraphSnapshot,
  idx: SearchIndex,
  thresholds: AutoThresholds = ROUTING_DEFAULTS,
): RoutingChoice {
  if (requested === "flat") return { requested, mode: "flat", reason: "flat search over every tool (requested)" };
  if (requested === "two-hop") return { requested, mode: "two-hop", reason: "two-hop routing (requested)" };
  const { autoMinTools, autoMinNamespaces } = thresholds;
  if (s.n < autoMinTools) {
    return {
      requested,
      mode: "flat",
      reason: `auto: flat, the catalog has ${s.n} tools (routes measured from ${autoMinTools})`,
    };
  }
  const count = namespaceIndexFor(s, idx).groups.names.length;
  if (count < autoMinNamespaces) {
    return {
      requested,
      mode: "flat",
      reason: `auto: flat, ${s.n} tools but only ${count} namespaces (routes measured from ${autoMinNamespaces})`,
    };
  }
  const trial = trialOf(idx).trial;
  const decision = trial?.decision;
  if (decision && totalExecutions(s) < ROUTING_DEFAULTS.retrialGrowth * Math.max(1, decision.executions)) {
    return { requested, mode: decision.mode, reason: `auto: ${decision.reason}, ${s.n} tools in ${count} namespaces` };
  }
  const done = decision ? 0 : (trial?.samples.length ?? 0);
  return {
    requested,
    mode: "flat",
    trial: true,
    reason: `auto: measuring flat and two-hop (query ${done + 1} of ${ROUTING_DEFAULTS.trialQueries}), ${s.n} tools in ${count} namespaces`,
  };
}

/**
 * Records one trial query of `auto` (times measured by the caller) and, at the trialQueries-th, keeps the route
 * decideRoute picks. Returns the decision once made.
 */
export function recordRouteTrial(
  s: GraphSnapshot,
  idx: SearchIndex,
  sample: RouteTrialSample,
): RouteDecision | undefined {
  const slot = trialOf(idx);
  let trial = slot.trial;
  // A decision still valid wins (a late sample of a concurrent trial query changes nothing).
  if (trial?.decision && totalExecutions(s) < ROUTING_DEFAULTS.retrialGrowth * Math.max(1, trial.decision.executions))
    return trial.decision;
  if (!trial || trial.decision) {
    trial = { samples: [] };
    slot.trial = trial;
  }
  trial.samples.push(sample);
  if (trial.samples.length < ROUTING_DEFAULTS.trialQueries) return undefined;
  trial.decision = { ...decideRoute(trial.samples), executions: totalExecutions(s) };
  return trial.decision;
}

/** Queries measured so far by the running trial (0 once decided). */
export function routeTrialCount(idx: SearchIndex): number {
  const trial = trialOf(idx).trial;
  return trial && !trial.decision ? trial.samples.length : 0;
}

/** The route kept for this catalog by the trial, if decided (benchmarks, diagnostics). */
export function routeDecision(idx: SearchIndex): RouteDecision | undefined {
  return trialOf(idx).trial?.decision;
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
export function routeQuery(
  s: GraphSnapshot,
  ns: NamespaceIndex,
  text: string,
  vector: Float32Array,
  memory: ReadonlyMap<number, number> | undefined,
  options: RouteOptions = {},
): RouteResult {
  const scores = scoreNamespaces(
    ns,
    { tokens: tokenize(text), vector, toolVotes: memory, successes: s.successes },
    options,
  );
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
    if (all.size > before)
      reason += `, plus ${all.size - before} context tool${all.size - before === 1 ? "" : "s"} and graph neighbours`;
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
  const shown = r.namespaces
    .slice(0, ROUTING_DEFAULTS.explainNamespaces)
    .map((n) => `${n.namespace} (${n.score.toFixed(2)})`);
  const more = r.namespaces.length > shown.length ? ` and ${r.namespaces.length - shown.length} more` : "";
  return `routed via namespaces ${shown.join(", ")}${more} — ${r.namespaces.length} of ${r.totalNamespaces} namespaces, ${r.restrictTo.length} candidate tools (${r.reason})`;
}
