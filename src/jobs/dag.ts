/**
 * Execution DAGs (algorithms/README.md, "DAG"; docs/decisions/edge-quality.md) and intent → plan.
 *
 * buildDag(tools): for selected tools A, B, B depends on A when the cheapest path A → B in the history
 * graph (cost 1 / max(w, 0.1)) has ≤ 3 hops; strength = mean edge weight / hops; a direct `dependency`
 * edge wins. One hop-bounded search per selected tool over the CSR (searcher cached per graph state).
 * A tool with a direct dependency edge from another selected tool takes no prerequisite from a path or a
 * proposal (algorithms/dag/direct-first.ts).
 * Cycles of any length are broken at their weakest edge, then transitive reduction (direct dependency edges
 * kept: an observed data flow is a fact, not an inference), then parallel layers;
 * with latencies known, the critical path and the wall time against sequential execution.
 * `graph: "history"` (every edge type) or "dependency" (dependency evidence only).
 * Edge provenance (algorithms/dag/infer-dependencies.ts): multi-hop paths run over the learned
 * edges only (observed in traces, weighted from that evidence alone by the type × source rule of
 * docs/decisions/edge-quality.md); a
 * declared-only edge relates its two ends directly (1 hop) but is never a hop of a longer path.
 * Schema proposals (algorithms/dag/schema-dependencies.ts): a selected tool left without any
 * prerequisite, whose learned consumer rate is high (or whose required input shares words with another
 * selected tool's output), gets the unrelated selected tool whose `outputSchema` fits its required inputs
 * best, as a weak one-hop edge (strength ≤ 0.3) that cycle breaking drops first; explained as "schema".
 * Measured (bench/tmp/dag-eval.ts, gold tool set, dependency graph, NESTFUL test split): edge F1 all
 * 0.662 → 0.686, covered by training 0.742 → 0.733 (proposal precision 1/3 on the test split against
 * 0.6 in the training leave-one-out); ToolLinkOS and Seal-Tools declare no outputs: unchanged.
 * Data-flow prior (algorithms/dag/data-flow-prior.ts; on by default, `dataFlowPrior: false` turns it
 * off): when nothing relates any of ≥ 2 selected tools, the single most plausible edge (best output → input
 * fit, then the learned consumer/producer rates, shrunk to the project's base rate, and succession order) is
 * proposed if the history shows B consuming or A producing (rate ≥ 0.2); explained as "prior".
 *
 * Mention order (algorithms/dag/mention-order.ts): with the request's `intent` (buildDag's optional
 * field; plan's own intent), a non-direct candidate between two tools never observed in succession is oriented
 * by the order the intent mentions them; observed precedence and direct edges always win, and the order of the
 * tools list never counts.
 *
 * plan(intent): the main tools come from the capability matched with high confidence (so plan and capability
 * match agree), else the best-matching successful past execution (intent memory), else search; the dependency
 * closure adds prerequisites the intent did not mention (declared dependency edges, and learned ones that held
 * in at least half of the dependent tool's executions; depth ≤ 3), each only with evidence connected to the
 * intent — declared, in the matched capability, or run before it in a matched past request — and says which
 * (docs/decisions/plan-evidence.md), then the DAG above.
 * Caps (maxTools, maxLatencyMs, maxCost) trim the plan and say what was dropped and why.
 */

import { capForChannels } from "../../algorithms/thresholds/channel-cap.ts";
import { buildExecutionDag, type ExecutionDag } from "../../algorithms/dag/build-execution-dag.ts";
import { dagConfidence as confidenceOfDag, inMainBand, planConfidence, requiredPrerequisite as requiredByCounts } from "../../algorithms/dag/confidence.ts";
import { dataFlowPrior, type PriorDependency, shrunkRate } from "../../algorithms/dag/data-flow-prior.ts";
import { dependencyClosure, type Prerequisite } from "../../algorithms/dag/dependency-closure.ts";
import type { DependencyEdge } from "../../algorithms/dag/dependency-edge.ts";
import { inferDependencies } from "../../algorithms/dag/infer-dependencies.ts";
import { DEFAULTS as MENTION_DEFAULTS, type MentionDependency, mentionChain, mentionPositionsOf, nameWords } from "../../algorithms/dag/mention-order.ts";
import { describeEvidence, type EvidenceSources, type PrerequisiteEvidence, prerequisiteEvidence } from "../../algorithms/dag/prerequisite-evidence.ts";
import { baseRate, blendedWeight, consumerRate as consumerRateOf, firstShare as firstShareOf } from "../../algorithms/dag/rates.ts";
import { createSchemaScorer, inputFields, outputFields, type SchemaDependency, schemaDependencies, type ToolIo } from "../../algorithms/dag/schema-dependencies.ts";
import { buildCsr, type Csr, edgeWeight } from "../../algorithms/graph/csr.ts";
import { EDGE_TYPES, type EdgeType, edgeQuality, NO_EVIDENCE } from "../../algorithms/graph/edge-quality.ts";
import { createHopBoundedSearch, type HopBoundedSearch } from "../../algorithms/paths/hop-bounded-search.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import type { BuildDagRequest, PlanRequest } from "../contract/requests.ts";
import { formatFixed } from "../formats/fixed.ts";
import type { ToolRow } from "../store/reads.ts";
import { type DerivedKey, derivedKey } from "../view/derived.ts";
import type { Engine } from "../view/engine.ts";
import { filtersAnything, safetyFilter } from "../view/filters.ts";
import type { EdgeState, GraphSnapshot } from "../view/graph-snapshot.ts";
import { MEMORY_DEFAULTS } from "../view/intent-memory.ts";
import { badRequest, resolveTools } from "../view/resolve.ts";
import { runMatchCapabilities } from "./capabilities.ts";
import { rankedSearchItems, rankSearch } from "./search.ts";
import { buildDagRequest, dagOptions, planRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { defineJob } from "./job.ts";

/** Fused similarity above which the best past execution supplies the plan's main tools. */
export const PLAN_MEMORY_SIMILARITY = 0.6;

export type DagGraph = "history" | "dependency" | "blended" | "auto";

/**
 * "auto" (the default): the dependency graph when the project has dependency evidence (declared edges
 * or `dependsOn` in traces), else the full history graph. Measured on NESTFUL (bench/accuracy.ts): the
 * dependency graph reaches edge F1 0.74 on cases covered by training against 0.62 for the history graph,
 * whose `sequence` edges add false dependencies.
 */
/**
 * Which selected pairs the history fallback orders: "pair" — every pair the dependency graph relates in
 * neither direction; "tool" — those with a tool that has no dependency edge at all; "set" — all pairs, only when
 * the dependency graph relates no selected pair. Chosen on training traces: docs/decisions/dag-default.md.
 */
export type HistoryFallback = "pair" | "tool" | "set";
export const HISTORY_FALLBACK: HistoryFallback = "tool";

/** Whether a request asked for the default graph (no `graph`, or "auto"): then the history fallback applies. */
export function isDefaultGraph(graph: DagGraph | undefined): boolean {
  return graph === undefined || graph === "auto";
}

export function resolveDagGraph(s: GraphSnapshot, graph: DagGraph | undefined): Exclude<DagGraph, "auto"> {
  if (graph && graph !== "auto") return graph;
  return s.dependencyCsr.m > 0 ? "dependency" : "history";
}

type PathGraph = Exclude<DagGraph, "auto">;
const perGraph = <T>(name: string): Record<PathGraph, DerivedKey<T>> => ({
  dependency: derivedKey<T>(`${name} (dependency)`),
  history: derivedKey<T>(`${name} (history)`),
  blended: derivedKey<T>(`${name} (blended)`),
});

const SEARCHERS = perGraph<HopBoundedSearch>("hop-bounded search");
/** The hop-bounded search over `pathCsr` (the path CSR of `graph`): derived state of the graph version. */
function searcherFor(s: GraphSnapshot, graph: PathGraph, pathCsr: Csr): HopBoundedSearch {
  return s.derived(SEARCHERS[graph], () => createHopBoundedSearch(pathCsr), [pathCsr]);
}

/** Quality of an edge from its learned counts of `types` alone (declared levels ignored); 0 = never observed. */
function learnedQuality(e: EdgeState, types: readonly EdgeType[]): number {
  const ev = { ...NO_EVIDENCE };
  for (const t of types) ev[t] = { count: e.counts[t], declared: 0 };
  return edgeQuality(ev).weight;
}

const PATH_CSRS = perGraph<Csr>("path CSR");

/**
 * The edges of `csr` (the snapshot's graph `graph`) that may be hops of a multi-hop path: those with
 * learned evidence, weighted from it alone — dependency: the dependency type's quality; history: the
 * best type's; blended: max(dependency, 0.5 × history), as the snapshot blends them. An edge without
 * declared evidence keeps its weight as is, so without declared edges this is `csr` itself. Cached per
 * graph version and CSR object (derived state of the snapshot).
 */
export function pathCsrFor(s: GraphSnapshot, graph: PathGraph, csr: Csr): Csr {
  return s.derived(PATH_CSRS[graph], () => buildPathCsr(s, graph, csr), [csr]);
}

function buildPathCsr(s: GraphSnapshot, graph: PathGraph, csr: Csr): Csr {
  const list: { from: number; to: number; weight: number }[] = [];
  let same = true;
  for (const e of s.edges()) {
    const f = s.index.get(e.from);
    const t = s.index.get(e.to);
    if (f === undefined || t === undefined) continue;
    const full = edgeWeight(csr, f, t);
    if (full <= 0) continue;
    let w = full; // an edge without declared evidence keeps its weight exactly (stored precision)
    if (EDGE_TYPES.some((type) => e.declared[type] > 0)) {
      const dep = learnedQuality(e, ["dependency"]);
      w = graph === "dependency" ? dep : graph === "history" ? learnedQuality(e, EDGE_TYPES) : blendedWeight(dep, learnedQuality(e, EDGE_TYPES));
      same = false;
    }
    if (w > 0) list.push({ from: f, to: t, weight: w });
  }
  return same && list.length === csr.m ? csr : buildCsr(s.n, list);
}

/**
 * A dependency edge u → v makes u a *required* prerequisite of v when it is declared, or when v depended on
 * u in at least half of v's executions: a tool used in several workflows (e.g. "post a message" after a
 * deploy, a rollback or a ticket) has alternative predecessors, not all of them required.
 */
export function requiredPrerequisite(s: GraphSnapshot, u: number, v: number): boolean {
  const e = s.edgeAt(u, v);
  if (!e) return false;
  return requiredByCounts(e.declared.dependency > 0, e.counts.dependency, s.executions[v]!);
}

/** Per tool index: its required prerequisites (undefined: not listed yet). Derived state of the graph version. */
const REQUIRED_PREREQUISITES = derivedKey<(readonly Prerequisite<number>[] | undefined)[]>("required prerequisites");

/**
 * The required prerequisites of v (requiredPrerequisite) with their dependency-edge weights, in the order of
 * v's incoming dependency edges; listed once per tool and graph version.
 */
export function requiredPrerequisitesOf(s: GraphSnapshot, v: number): readonly Prerequisite<number>[] {
  const lists = s.derived(REQUIRED_PREREQUISITES, () => new Array<readonly Prerequisite<number>[] | undefined>(s.n));
  let list = lists[v];
  if (list === undefined) {
    const dep = s.dependencyCsr;
    const found: Prerequisite<number>[] = [];
    for (let k = dep.inOffsets[v]!; k < dep.inOffsets[v + 1]!; k++) {
      const u = dep.inSources[k]!;
      if (requiredPrerequisite(s, u, v)) found.push({ node: u, weight: dep.inWeights[k]! });
    }
    lists[v] = list = found;
  }
  return list;
}

export function latencyOf(s: GraphSnapshot, i: number): number | undefined {
  const declared = s.tools[i]!.avgLatencyMs;
  if (declared !== null && declared !== undefined) return declared;
  return s.executions[i]! > 0 && s.totalDurationMs[i]! > 0 ? s.totalDurationMs[i]! / s.executions[i]! : undefined;
}

/** Per tool index: its parsed fields (null: none declared; undefined: not parsed yet). Derived state of the catalog. */
const TOOL_IOS = derivedKey<(ToolIo | null | undefined)[]>("tool inputs and outputs", "catalog");

/** A tool's input and output fields (from its catalog schemas), or undefined when it declares no output. */
export function toolIoOf(s: GraphSnapshot, i: number): ToolIo | undefined {
  const ios = s.derived(TOOL_IOS, () => new Array<ToolIo | null | undefined>(s.n));
  let io = ios[i];
  if (io === undefined) {
    const row = s.tools[i]!;
    const outputs = outputFields(row.outputSchema);
    io = outputs.length === 0 && !row.inputSchema ? null : { inputs: inputFields(row.inputSchema), outputs };
    ios[i] = io;
  }
  return io ?? undefined;
}

/**
 * Share of v's executions that read another tool's output: min(1, Σ_u learned dependency count(u → v) /
 * executions(v)); 0 for a tool never executed. Reads v's incoming dependency edges only.
 */
export function consumerRate(s: GraphSnapshot, v: number): number {
  if (s.executions[v]! === 0) return 0;
  return consumerRateOf(consumedCount(s, v), s.executions[v]!);
}

/** Σ_u learned dependency count(u → v): how many of v's runs read another tool's output (in-edges only). */
export function consumedCount(s: GraphSnapshot, v: number): number {
  const dep = s.dependencyCsr;
  let n = 0;
  for (let k = dep.inOffsets[v]!; k < dep.inOffsets[v + 1]!; k++) n += s.edgeAt(dep.inSources[k]!, v)?.counts.dependency ?? 0;
  return n;
}

/** Σ_v learned dependency count(u → v): how often u's output fed another tool (out-edges only). */
export function producedCount(s: GraphSnapshot, u: number): number {
  const dep = s.dependencyCsr;
  let n = 0;
  for (let k = dep.offsets[u]!; k < dep.offsets[u + 1]!; k++) n += s.edgeAt(u, dep.targets[k]!)?.counts.dependency ?? 0;
  return n;
}

const BASE_RATE = derivedKey<number>("dependency base rate");

/** The project's share of steps that read another step's output: Σ dependency counts / Σ executions (0 without runs). */
export function dependencyBaseRate(s: GraphSnapshot): number {
  return s.derived(BASE_RATE, () => {
    let dep = 0;
    for (const e of s.edges()) dep += e.counts.dependency;
    let runs = 0;
    for (let i = 0; i < s.n; i++) runs += s.executions[i]!;
    return baseRate(dep, runs);
  });
}

/**
 * Share of u's learned successions in which u came first: out / (out + in) over the transitions CSR
 * (each succession counted once: successionCount); ½ when u has none.
 */
export function firstShare(s: GraphSnapshot, u: number): number {
  const t = s.transitions;
  let out = 0;
  for (let k = t.offsets[u]!; k < t.offsets[u + 1]!; k++) out += t.weights[k]!;
  let inn = 0;
  for (let k = t.inOffsets[u]!; k < t.inOffsets[u + 1]!; k++) inn += t.inWeights[k]!;
  return firstShareOf(out, inn);
}

/** The data-flow prior's proposal (algorithms/dag/data-flow-prior.ts) when `candidates` is empty. */
export function priorProposal(s: GraphSnapshot, selected: readonly number[], candidates: readonly DependencyEdge[]): PriorDependency[] {
  if (candidates.length > 0 || selected.length < 2) return [];
  const base = dependencyBaseRate(s);
  return dataFlowPrior(selected, candidates, {
    schemaMatch: createSchemaScorer((v) => toolIoOf(s, v)),
    consumerRate: (v) => shrunkRate(consumedCount(s, v), s.executions[v]!, base),
    producerRate: (u) => shrunkRate(producedCount(s, u), s.executions[u]!, base),
    firstShare: (u) => firstShare(s, u),
  });
}

/**
 * Schema proposals (algorithms/dag/schema-dependencies.ts) for the selected pairs the inferred edges leave
 * unrelated; learned and declared evidence keep priority (a tool with an inferred prerequisite gets none).
 */
export function schemaProposals(s: GraphSnapshot, selected: readonly number[], inferred: readonly DependencyEdge[]): DependencyEdge[] {
  if (!selected.some((v) => s.tools[v]!.outputSchema)) return [];
  const pairs = new Set<string>();
  const withPrerequisite = new Set<number>();
  for (const e of inferred) {
    pairs.add(`${e.from}>${e.to}`);
    pairs.add(`${e.to}>${e.from}`);
    withPrerequisite.add(e.to);
  }
  return schemaDependencies(selected, (v) => toolIoOf(s, v), {
    consumerRate: (v) => consumerRate(s, v),
    related: (a, b) => pairs.has(`${a}>${b}`),
    hasPrerequisite: (b) => withPrerequisite.has(b),
  });
}

/**
 * Times u was observed right before v (or feeding v, or containing v): the largest of the learned sequence,
 * dependency and contains counts of the edge u → v — one succession is often recorded as both a sequence and
 * a dependency observation, so the counts are not added.
 */
export function observedBefore(s: GraphSnapshot, u: number, v: number): number {
  const e = s.edgeAt(u, v);
  return e ? Math.max(e.counts.sequence, e.counts.dependency, e.counts.contains) : 0;
}

export interface DagOverOptions {
  /**
   * The data-flow prior (priorProposal): one proposed edge when no evidence relates any selected tool.
   * Default true. Measured (bench/tmp/dag-eval.ts, gold tool set, dependency graph, NESTFUL test split): edge
   * F1 all 0.662 → 0.774, covered by training 0.742 → 0.800 (precision 0.810 → 0.789, recall 0.685 → 0.811);
   * Seal-Tools (in domain): no proposal. Rules chosen on training traces: algorithms/dag/data-flow-prior.ts.
   */
  readonly dataFlowPrior?: boolean;
  /**
   * Observed precedence (algorithms/dag/precedence.ts): cycles are broken by strength × the shrunk
   * share of runs in which `from` came before `to` (learned successions, observedBefore), so a pair seen
   * both ways keeps the direction seen more often; never by tool index or input order. Default true;
   * false = the path strength alone (ties then dropped together).
   */
  readonly precedence?: boolean;
  /**
   * Role orientation (algorithms/dag/role-orientation.ts): a multi-hop path edge between two tools
   * never observed in succession either way points from the tool that reads other tools' output less often to
   * the one that reads it more (then schema fit, then first share). Default false: 5-fold on NESTFUL's training
   * traces (with directFirst) 0.839 → 0.839 edge F1; its test split loses (bench row "role orientation").
   */
  readonly roles?: boolean;
  /**
   * Direct evidence first (algorithms/dag/direct-first.ts): a tool with a direct dependency edge from
   * another selected tool takes no prerequisite from a multi-hop path or a proposal. Default true. Chosen on
   * NESTFUL's training traces (5 folds, gold tool set, covered traces): edge F1 0.824 → 0.839.
   */
  readonly directFirst?: boolean;
  /**
   * Transitive reduction keeps direct dependency edges (transitive-reduction.ts `keep`): an observed or
   * declared data flow A → C stays beside A → B → C. Default true. Chosen on NESTFUL's training traces (5 folds,
   * with directFirst): edge F1 0.839 → 0.851.
   */
  readonly keepDirect?: boolean;
  /**
   * The request's intent text (algorithms/dag/mention-order.ts): a non-direct candidate between two
   * tools never observed in succession either way is oriented by the order the intent mentions them (their
   * distinctive name words); observed precedence and direct edges always win. Default: none (no orientation).
   */
  readonly intent?: string;
  /**
   * History fallback (docs/decisions/dag-default.md): on the dependency graph, the selected pairs it relates in
   * neither direction take the history graph's candidates (observed successions, hop-bounded paths) before any
   * prior or mention proposal. The default graph ("auto" resolved to dependency) turns it on; an explicit
   * `graph: "dependency"` does not. Default false here (the jobs pass it).
   */
  readonly historyFallback?: boolean | HistoryFallback;
  /** tokenize(intent), when the caller has it already (the plan's search tokenized the same intent). */
  readonly intentTokens?: readonly string[];
  /** Pairs observed fewer times (both orders) count as unobserved for mention order. Default mention-order.ts DEFAULTS.minObserved. */
  readonly mentionMinObserved?: number;
  /**
   * With an intent, when nothing relates any selected tool and the data-flow prior proposes nothing: chain the
   * mentioned tools in mention order (mention-order.ts mentionChain; the number caps the edges, 0 abstains).
   * Default mention-order.ts DEFAULTS.chainEdges (1: the first two mentioned tools), chosen on training traces.
   */
  readonly mentionChain?: number;
}

/** Position of each selected tool's first mention in `intent` (mention-order.ts), by snapshot index; `tokens`: tokenize(intent) if known. */
export function mentionsOf(s: GraphSnapshot, selected: readonly number[], intent: string, tokens?: readonly string[]): (v: number) => number | undefined {
  // Computed on the first question (many DAGs have no unobserved pair to orient); each tool's name words
  // are tokenized once per catalog (the view's derived state).
  let at: Map<number, number | undefined> | undefined;
  return (v) => {
    if (!at) {
      const words = s.derived(NAME_WORDS, () => new Array<ReadonlySet<string> | undefined>(s.n));
      const pos = mentionPositionsOf(
        tokens ?? tokenize(intent),
        selected.map((u) => (words[u] ??= nameWords(s.tools[u]!.name || s.tools[u]!.id))),
      );
      at = new Map(selected.map((u, k) => [u, pos[k]]));
    }
    return at.get(v);
  };
}

/** Each tool's mention-order name words (mention-order.ts nameWords), filled on first use. */
const NAME_WORDS = derivedKey<(ReadonlySet<string> | undefined)[]>("mention name words", "catalog");

/** The learned roles of the selected tools (role-orientation.ts): shrunk consumer rate, schema fit, first share. */
export function roleRates(s: GraphSnapshot): { consumerRate: (v: number) => number; schemaScore: (a: number, b: number) => number; firstShare: (v: number) => number } {
  const base = dependencyBaseRate(s);
  const schema = createSchemaScorer((v) => toolIoOf(s, v));
  return {
    consumerRate: (v) => shrunkRate(consumedCount(s, v), s.executions[v]!, base),
    schemaScore: (a, b) => schema(a, b)?.score ?? 0,
    firstShare: (u) => firstShare(s, u),
  };
}

/**
 * The pure DAG over snapshot indices (also used by the bench). `schemaEdges` turns the schema proposals on:
 * off by default, because on the one dataset with output schemas (NESTFUL) they raise edge F1 over all
 * cases (0.662 → 0.686) but lower it on the cases whose tools the traces cover (0.742 → 0.733).
 */
export function dagOver(s: GraphSnapshot, selected: number[], requested: DagGraph = "auto", maxHops = 3, schemaEdges = false, options: DagOverOptions = {}): ExecutionDag {
  const graph = resolveDagGraph(s, requested);
  const csr = graph === "dependency" ? s.dependencyCsr : graph === "blended" ? s.blendedCsr : s.csr;
  const pathCsr = pathCsrFor(s, graph, csr);
  const prior = options.dataFlowPrior ?? true;
  const mentions = options.intent ? mentionsOf(s, selected, options.intent, options.intentTokens) : undefined;
  const chainLimit = mentions ? (options.mentionChain ?? MENTION_DEFAULTS.chainEdges) : 0;
  const fallbackMode: HistoryFallback | undefined = options.historyFallback === true ? HISTORY_FALLBACK : options.historyFallback || undefined;
  const fallback = fallbackMode !== undefined && graph === "dependency";
  const propose =
    schemaEdges || prior || chainLimit > 0 || fallback
      ? (inferred: readonly DependencyEdge[]): DependencyEdge[] => {
          const history = fallback ? historyFallback(s, selected, inferred, maxHops, fallbackMode) : [];
          if (history.length > 0) return history;
          const schema = schemaEdges ? schemaProposals(s, selected, inferred) : [];
          const proposed = prior && schema.length === 0 ? priorProposal(s, selected, inferred) : schema;
          return chainLimit > 0 && inferred.length === 0 && proposed.length === 0 ? mentionChain(selected, mentions!, chainLimit) : proposed;
        }
      : undefined;
  return buildExecutionDag(csr, selected, {
    maxHops,
    pathCsr,
    search: searcherFor(s, graph, pathCsr),
    isDependencyEdge: (u, v) => s.isDependencyEdge(u, v),
    latencyMs: (v) => latencyOf(s, v),
    ...(propose ? { propose } : {}),
    ...((options.precedence ?? true) ? { precedence: (u: number, v: number) => observedBefore(s, u, v) } : {}),
    ...((options.precedence ?? true) && options.roles === true ? { roles: roleRates(s) } : {}),
    directFirst: options.directFirst ?? true,
    keepDirect: options.keepDirect ?? true,
    ...(mentions ? { mentions } : {}),
    ...(options.mentionMinObserved !== undefined ? { mentionMinObserved: options.mentionMinObserved } : {}),
    label: (v) => s.tools[v]!.id,
  });
}


/**
 * The history graph's candidate edges between selected tools that `inferred` (the dependency graph's
 * candidates) relates in neither direction, as `mode` selects them (default "tool": pairs with a tool that has no
 * dependency edge at all): observed successions stand in where no data flow was recorded
 * (docs/decisions/dag-default.md). Never direct (they carry no dependency evidence).
 */
export function historyFallback(s: GraphSnapshot, selected: readonly number[], inferred: readonly DependencyEdge[], maxHops = 3, mode: HistoryFallback = HISTORY_FALLBACK): HistoryDependency[] {
  if (selected.length < 2) return [];
  if (mode === "set" && inferred.length > 0) return [];
  // "tool": only pairs with a tool the dependency graph knows nothing about (no dependency edge in or out).
  const unknown = (v: number) => noDependencyEdge(s, v);
  if (mode === "tool" && !selected.some(unknown)) return [];
  const related = new Set<number>();
  for (const e of inferred) {
    related.add(e.from * s.n + e.to);
    related.add(e.to * s.n + e.from);
  }
  const pathCsr = pathCsrFor(s, "history", s.csr);
  const out: HistoryDependency[] = [];
  for (const e of inferDependencies(s.csr, selected, { maxHops, pathCsr, search: searcherFor(s, "history", pathCsr) })) {
    if (mode === "tool" && !unknown(e.from) && !unknown(e.to)) continue;
    if (!related.has(e.from * s.n + e.to)) out.push({ from: e.from, to: e.to, path: e.path, hops: e.hops, cost: e.cost, meanWeight: e.meanWeight, strength: e.strength, direct: false, history: true });
  }
  return out;
}

/** Whether tool v has no dependency edge in or out (the dependency graph knows nothing about it). */
export function noDependencyEdge(s: GraphSnapshot, v: number): boolean {
  const dep = s.dependencyCsr;
  return dep.offsets[v + 1]! === dep.offsets[v]! && dep.inOffsets[v + 1]! === dep.inOffsets[v]!;
}

/** A history-fallback edge (historyFallback): explained as standing in for the dependency graph. */
export type HistoryDependency = DependencyEdge & { readonly history: true };

/** The ids of tool indices `xs`. */
function idsOf(tools: readonly ToolRow[], xs: readonly number[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < xs.length; k++) out.push(tools[xs[k]!]!.id);
  return out;
}

/** `xs.join(" → ")`. */
function arrows(xs: readonly string[]): string {
  if (xs.length === 0) return "";
  let out = xs[0]!;
  for (let k = 1; k < xs.length; k++) out += ` → ${xs[k]!}`;
  return out;
}

/** The answer form of an execution DAG: tool ids, and one sentence per kept or dropped edge. */
export function describeDag(s: GraphSnapshot, dag: ExecutionDag) {
  const tools = s.tools;
  // One pass per edge: the explanation is the evidence's sentence, replaced by the orientation's when the
  // direction came from roles or mentions, then the observed precedence appended.
  const edges = [];
  for (const e of dag.edges) {
    const from = tools[e.from]!.id;
    const to = tools[e.to]!.id;
    const path = idsOf(tools, e.path);
    const schema = (e as Partial<SchemaDependency>).schema;
    const prior = (e as Partial<PriorDependency>).prior;
    const direct = e.direct;
    const mentioned = direct ? undefined : (e as Partial<MentionDependency>).mentioned;
    const o = e.orientation;
    let explanation = o
      ? o.mention
        ? `${to} depends on ${from}: related by ${arrows(idsOf(tools, o.evidence))}, never observed in succession; direction from the intent, which mentions ${from} (word ${o.mention.from + 1}) before ${to} (word ${o.mention.to + 1})`
        : `${to} depends on ${from}: related by ${arrows(idsOf(tools, o.evidence))}, never observed in succession; direction from learned roles (${to} read another tool's output in ${(100 * (o.consumerTo ?? 0)).toFixed(0)} % of its runs, ${from} in ${(100 * (o.consumerFrom ?? 0)).toFixed(0)} %)`
      : direct
        ? `${to} depends on ${from}: direct dependency edge (strength ${formatFixed(e.strength, 2)})`
        : mentioned !== undefined
          ? `${to} may depend on ${from}: no evidence relates the selected tools; the intent mentions ${from} (word ${mentioned.from + 1}) before ${to} (word ${mentioned.to + 1}) (strength ${formatFixed(e.strength, 2)})`
          : prior !== undefined
            ? `${to} may depend on ${from}: no evidence relates the selected tools; data-flow prior (${to} consumed another tool's output in ${(100 * prior.consumer).toFixed(0)} % of its runs, ${from}'s output was consumed in ${(100 * prior.producer).toFixed(0)} %${prior.schema.output === "" ? "" : `; output ${prior.schema.output} fits input ${prior.schema.input}, schema match ${formatFixed(prior.schema.score, 2)}`}; strength ${formatFixed(e.strength, 2)})`
            : schema !== undefined
              ? `${to} may depend on ${from}: no learned or declared relation; output ${schema.output} of ${from} fits required input ${schema.input} of ${to} (schema match ${formatFixed(schema.score, 2)}, strength ${formatFixed(e.strength, 2)})`
              : (e as Partial<HistoryDependency>).history
                ? `${to} depends on ${from}: path ${arrows(path)} in the history graph (${e.hops} hop${e.hops === 1 ? "" : "s"}, strength ${formatFixed(e.strength, 2)}), standing in for the dependency graph, which records no data flow in or out of ${[from, to].filter((x) => noDependencyEdge(s, s.index.get(x)!)).join(" or ")}`
                : `${to} depends on ${from}: path ${arrows(path)} (${e.hops} hop${e.hops === 1 ? "" : "s"}, strength ${formatFixed(e.strength, 2)})`;
    const p = e.precedence;
    if (p && p.before + p.after > 0) explanation = `${explanation}; observed ${from} before ${to} ${p.before}×, after ${p.after}×`;
    const evidence = direct ? ("dependency" as const) : schema !== undefined ? ("schema" as const) : prior !== undefined ? ("prior" as const) : mentioned !== undefined ? ("mention" as const) : ("path" as const);
    const hops = e.hops;
    const strength = e.strength;
    const meanWeight = e.meanWeight;
    // Built in final shape (the optional fields before the explanation, as the answer always listed them).
    edges.push(
      schema === undefined && prior === undefined
        ? { from, to, hops, strength, meanWeight, direct, path, evidence, explanation }
        : schema === undefined
          ? { from, to, hops, strength, meanWeight, direct, path, evidence, prior: prior!, explanation }
          : prior === undefined
            ? { from, to, hops, strength, meanWeight, direct, path, evidence, schema, explanation }
            : { from, to, hops, strength, meanWeight, direct, path, evidence, schema, prior, explanation },
    );
  }
  const nodes = [];
  for (const n of dag.nodes) nodes.push({ tool: tools[n.node]!.id, layer: n.layer, prerequisites: idsOf(tools, n.prerequisites), dependents: idsOf(tools, n.dependents), root: n.root, reason: n.reason });
  const dropped = [];
  for (const d of dag.dropped) {
    const e = d.edge;
    const from = tools[e.from]!.id;
    const to = tools[e.to]!.id;
    const witness = idsOf(tools, d.witness);
    dropped.push({
      from,
      to,
      reason: d.reason,
      strength: e.strength,
      witness,
      explanation:
        d.reason === "cycle"
          ? `dropped ${from} → ${to}: weakest edge (strength ${formatFixed(e.strength, 2)}${e.precedence ? `, observed in this order ${e.precedence.before}× against ${e.precedence.after}× the other way, order share ${formatFixed(e.precedence.share, 2)}` : ""}) of the cycle ${arrows(witness)}`
          : d.reason === "direct-first"
            ? `dropped ${from} → ${to}: ${to} has a direct dependency edge from ${witness[0]!}; a ${e.hops}-hop relation adds no prerequisite`
            : d.reason === "orientation"
              ? `dropped ${from} → ${to}: never observed in either order; ${d.explanation.includes("intent mentions") ? "the intent mentions" : "the learned roles point"} ${to} → ${from}, also a candidate`
              : `dropped ${from} → ${to}: implied by ${arrows(witness)}`,
    });
  }
  const layers = [];
  for (const l of dag.layers) layers.push(idsOf(tools, l));
  const t = dag.timing;
  return {
    nodes,
    edges,
    dropped,
    layers,
    timing: {
      criticalPath: idsOf(tools, t.path),
      wallTimeMs: t.wallTimeMs,
      sequentialMs: t.sequentialMs,
      speedup: t.speedup,
      unknownLatency: idsOf(tools, t.unknownLatency),
      reason: t.reason,
    },
  };
}

/** DAG confidence: mean strength of the kept edges (1 for a single tool; 0 when several tools are unrelated). */
export function dagConfidence(dag: ExecutionDag): number {
  return confidenceOfDag(dag.nodes.length, dag.edges.map((e) => e.strength));
}

export interface CapResult {
  kept: number[];
  dropped: { tool: string; reason: string }[];
}

/** Applies maxTools, maxLatencyMs (critical path) and maxCost, dropping the lowest-priority tools last in `order`. */
export function applyCaps(s: GraphSnapshot, order: number[], caps: { maxTools?: number | undefined; maxLatencyMs?: number | undefined; maxCost?: number | undefined; schemaEdges?: boolean | undefined; intent?: string | undefined; historyFallback?: boolean | undefined }, graph: DagGraph): CapResult {
  let kept = order.slice();
  const dropped: CapResult["dropped"] = [];
  if (caps.maxTools !== undefined && kept.length > caps.maxTools) {
    for (const i of kept.slice(caps.maxTools)) dropped.push({ tool: s.tools[i]!.id, reason: `maxTools ${caps.maxTools}: lowest-ranked tool dropped` });
    kept = kept.slice(0, caps.maxTools);
  }
  if (caps.maxCost !== undefined) {
    const cost = (xs: number[]) => xs.reduce((t, i) => t + (s.tools[i]!.costEstimate ?? 0), 0);
    while (kept.length > 1 && cost(kept) > caps.maxCost) {
      const i = kept.pop()!;
      dropped.push({ tool: s.tools[i]!.id, reason: `maxCost ${caps.maxCost}: total cost ${cost([...kept, i]).toFixed(4)} over budget; lowest-ranked tool dropped` });
    }
  }
  if (caps.maxLatencyMs !== undefined) {
    while (kept.length > 1) {
      const wall = dagOver(s, kept, graph, 3, caps.schemaEdges ?? false, { ...(caps.intent ? { intent: caps.intent } : {}), historyFallback: caps.historyFallback ?? false }).timing.wallTimeMs;
      if (wall <= caps.maxLatencyMs) break;
      const i = kept.pop()!;
      dropped.push({ tool: s.tools[i]!.id, reason: `maxLatencyMs ${caps.maxLatencyMs}: critical path ${wall.toFixed(0)} ms over budget; lowest-ranked tool dropped` });
    }
  }
  return { kept, dropped };
}

export async function runBuildDag(engine: Engine, project: string, req: BuildDagRequest & { graph?: DagGraph }) {
  const t0 = performance.now();
  const s = engine.cachedSnapshot(project) ?? (await engine.snapshot(project));
  const selected = resolveTools(s, req.tools, "tools");
  if (new Set(selected).size !== selected.length) throw badRequest("tools", "each tool may appear once");
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const removed = selected.filter(unsafe).map((i) => ({ tool: s.tools[i]!.id, reason: s.tools[i]!.available ? "excluded by safety tag" : "unavailable (its server no longer lists it)" }));
  const graph = resolveDagGraph(s, req.graph);
  const historyFallback = isDefaultGraph(req.graph);
  const caps = applyCaps(s, selected.filter((i) => !unsafe(i)), { ...req, historyFallback }, graph);
  // The request's intent (optional) orients pairs the history never saw in succession (mention-order.ts).
  const dag = dagOver(s, caps.kept, graph, 3, req.schemaEdges ?? false, req.intent ? { intent: req.intent, historyFallback } : { historyFallback });
  const confidence = dagConfidence(dag);
  const gateRequest = { project, user: req.user, text: "", environment: req.environment, urgency: req.urgency, requestWorkflow: req.workflow };
  const prepared = engine.gatekeeper.preparedNow(gateRequest) ?? (await engine.gatekeeper.prepare(gateRequest));
  const gate = engine.gatekeeper.gateItem("dag", confidence, prepared);
  const described = describeDag(s, dag);
  // A literal (no spread of the description): answers keep one hidden class, and so do their copies.
  return {
    project,
    graph,
    nodes: described.nodes,
    edges: described.edges,
    dropped: described.dropped,
    layers: described.layers,
    timing: described.timing,
    removed: [...removed, ...caps.dropped],
    confidence,
    gate,
    threshold: prepared.threshold,
    health: prepared.health,
    timings: { totalMs: performance.now() - t0 },
  };
}

export async function runPlan(engine: Engine, project: string, req: PlanRequest & { graph?: DagGraph; closureDepth?: number }) {
  const t0 = performance.now();
  const s = engine.cachedSnapshot(project) ?? (await engine.snapshot(project));
  const limit = req.limit ?? 5;
  const ranking = await rankSearch(engine, project, {
    intent: req.intent,
    limit: Math.max(limit, 10),
    exclude: req.exclude,
    excludeSafetyTags: req.excludeSafetyTags,
    user: req.user,
    environment: req.environment,
    urgency: req.urgency,
  }, { contentWeight: 1 });
  // The search's items as its answer lists them (tool, score, gate decision): the plan needs no explanation.
  const found = { results: rankedSearchItems(engine, ranking) };
  const mem = ranking.memory;
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const excluded = new Set(req.exclude ?? []);
  const allowed = (tool: string) => s.index.has(tool) && !excluded.has(tool) && !unsafe(s.index.get(tool)!);
  // The capabilities job's own answer for the intent: its top match when the gate did not abstain on it. The
  // workflow goes without its id: the plan's own gate records the request on the workflow's timeline, once.
  const workflow = req.workflow ? { steps: req.workflow.steps, replans: req.workflow.replans } : undefined;
  const capabilities = await runMatchCapabilities(engine, project, { intent: req.intent, user: req.user, limit: 1, environment: req.environment, urgency: req.urgency, workflow });
  const topCapability = capabilities.results[0];
  const matchedCapability = topCapability && topCapability.gate.decision !== "abstained" ? topCapability : undefined;
  // Main tools. From the matched capability when it matches strongly: its tools, so the plan and the
  // capability match agree. Else from the intent memory when a successful past execution
  // matches the intent closely (fused similarity ≥ PLAN_MEMORY_SIMILARITY): its tools, in its order.
  // Otherwise from search: the top hit, plus further hits scoring within 5 % of it (at most `limit`).
  // The search's own recall (same intent, user and tokens).
  const best = mem.past.find((p) => p.success);
  let main: { tool: string; score: number; why: string }[] = [];
  // Strong: accepted with high confidence, and holding the search's top tool (two channels agree; a match
  // carried by one channel alone, e.g. "back up …" voting for rollback through shared words, is not strong).
  const topTool = found.results[0]?.tool;
  if (matchedCapability && matchedCapability.gate.decision === "accepted" && matchedCapability.gate.confidence === "high" && topTool !== undefined && matchedCapability.tools.includes(topTool)) {
    const c = matchedCapability;
    main = c.tools.filter(allowed).map((tool) => ({ tool, score: Math.min(1, c.score), why: `in capability ${c.capability}, matched to the intent with high confidence (score ${c.score.toFixed(3)})` }));
  }
  if (main.length === 0 && best && best.similarity >= PLAN_MEMORY_SIMILARITY) {
    const seen = new Set<string>();
    main = best.steps
      .filter((st) => st.success && s.index.has(st.tool) && !excluded.has(st.tool) && !unsafe(s.index.get(st.tool)!) && !seen.has(st.tool) && seen.add(st.tool))
      .map((st) => ({ tool: st.tool, score: best.similarity, why: `used by the most similar past request ${best.executionId} (similarity ${best.similarity.toFixed(2)}, succeeded)` }));
  }
  if (main.length === 0) {
    const top = found.results[0];
    main = top
      ? found.results
          .filter((r) => inMainBand(r.score, top.score))
          .slice(0, limit)
          .map((r) => ({ tool: r.tool, score: r.score, why: `chosen by search (score ${r.score.toFixed(3)}, ${r.decision})` }))
      : [];
  }
  const mainIdx = main.map((r) => s.index.get(r.tool)!);
  // Required prerequisites (listed once per tool and graph version), less the unsafe and excluded tools, and
  // only those with evidence connected to the intent (algorithms/dag/prerequisite-evidence.ts): a declared
  // edge, the matched capability, or the matched past requests (similar tasks, task similarity ≥ the floor).
  const filtered = excluded.size > 0 || filtersAnything(s, req.excludeSafetyTags);
  const sources: EvidenceSources<number> = {
    declared: (u, v) => (s.edgeAt(u, v)?.declared.dependency ?? 0) > 0,
    capability: matchedCapability ? { id: matchedCapability.capability, tools: new Set(matchedCapability.tools.flatMap((x) => (s.index.has(x) ? [s.index.get(x)!] : []))) } : undefined,
    past: mem.past.flatMap((p, r) => (p.success && mem.taskSimilarity[r]! >= MEMORY_DEFAULTS.similarTaskFloor ? [p.steps.flatMap((st) => (st.success && s.index.has(st.tool) ? [s.index.get(st.tool)!] : []))] : [])),
  };
  const evidence = new Map<number, PrerequisiteEvidence>();
  const closure = dependencyClosure(
    mainIdx,
    (v: number) => {
      const out: Prerequisite<number>[] = [];
      for (const p of requiredPrerequisitesOf(s, v)) {
        if (filtered && (unsafe(p.node) || excluded.has(s.tools[p.node]!.id))) continue;
        const e = prerequisiteEvidence(p.node, v, sources);
        if (!e) continue;
        evidence.set(p.node * s.n + v, e);
        out.push(p);
      }
      return out;
    },
    { maxDepth: req.closureDepth ?? 3 },
  );
  const graph = resolveDagGraph(s, req.graph);
  const historyFallback = isDefaultGraph(req.graph);
  const order = closure.nodes;
  const caps = applyCaps(s, order, { ...req, historyFallback }, graph);
  // The plan's intent orients pairs the history never saw in succession (mention-order.ts), as buildDag's.
  const dag = dagOver(s, caps.kept, graph, 3, req.schemaEdges ?? false, { intent: req.intent, intentTokens: ranking.tokens, historyFallback });
  const id = (i: number) => s.tools[i]!.id;
  const why = new Map<string, string>();
  for (const r of main) why.set(r.tool, r.why);
  for (const a of closure.added) {
    const e = evidence.get(a.node * s.n + a.requiredBy)!;
    why.set(id(a.node), `prerequisite of ${id(a.requiredBy)} (depth ${a.depth}, dependency weight ${a.weight.toFixed(2)}): ${describeEvidence(e, id(a.requiredBy))}`);
  }
  // Ranked list for retrieval metrics: main tools in search order, each followed by the prerequisites it pulled in.
  const ranked: string[] = [];
  const addedBy = new Map<number, number[]>();
  for (const a of closure.added) addedBy.set(a.requiredBy, [...(addedBy.get(a.requiredBy) ?? []), a.node]);
  const visit = (i: number) => {
    if (ranked.includes(id(i))) return;
    ranked.push(id(i));
    for (const c of addedBy.get(i) ?? []) visit(c);
  };
  for (const i of mainIdx) visit(i);
  for (const r of found.results) if (!ranked.includes(r.tool)) ranked.push(r.tool);
  const confidence = planConfidence(main.map((r) => r.score));
  const gateRequest = { project, user: req.user, text: req.intent, environment: req.environment, urgency: req.urgency, requestWorkflow: req.workflow };
  const prepared = engine.gatekeeper.preparedNow(gateRequest) ?? (await engine.gatekeeper.prepare(gateRequest));
  // Ranked without the embedding channel (a catalog still being embedded): said, and never accepted outright.
  const gate = capForChannels(engine.gatekeeper.gateItem("plan", confidence, prepared), ranking.channels);
  const described = describeDag(s, dag);
  return {
    project,
    intent: req.intent,
    ...(ranking.channels.embedding ? {} : { degraded: "embedding" as const }),
    tools: caps.kept.map((i) => ({ tool: id(i), why: why.get(id(i)) ?? "", server: s.tools[i]!.server, inputSchema: s.tools[i]!.inputSchema })),
    ranked,
    nodes: described.nodes,
    edges: described.edges,
    dropped: described.dropped,
    layers: described.layers,
    timing: described.timing,
    removed: caps.dropped,
    closure: { added: closure.added.length, truncated: closure.truncated, reason: closure.reason },
    confidence,
    gate,
    threshold: prepared.threshold,
    health: prepared.health,
    timings: { totalMs: performance.now() - t0 },
  };
}

/** Selected tools → an execution DAG with parallel layers; `graph` (library only) picks the graph it reads. */
export const buildDagJob = defineJob({
  request: buildDagRequest,
  result: RESULT_SCHEMAS.buildDag,
  libraryOptions: dagOptions,
  answerKey: "runBuildDag",
  run: (ctx, req) => runBuildDag(ctx.engine, ctx.project, req),
});

/** Intent → plan: search, intent memory, dependency closure, then the DAG. */
export const planJob = defineJob({
  request: planRequest,
  result: RESULT_SCHEMAS.plan,
  libraryOptions: dagOptions,
  answerKey: "runPlan",
  run: (ctx, req) => runPlan(ctx.engine, ctx.project, req),
});
