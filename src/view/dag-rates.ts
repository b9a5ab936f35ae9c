/**
 * What the DAG and plan jobs read from a project's view, derived once per graph version: the path graphs
 * (history, dependency, blended) and their hop-bounded searchers, required prerequisites, tool inputs and
 * outputs, the learned consumer / producer rates and the project's base rate, and the intent's mentions.
 */
import { requiredPrerequisite as requiredByCounts } from "../../algorithms/dag/confidence.ts";
import { dataFlowPrior, type PriorDependency, shrunkRate } from "../../algorithms/dag/data-flow-prior.ts";
import type { Prerequisite } from "../../algorithms/dag/dependency-closure.ts";
import type { DependencyEdge } from "../../algorithms/dag/dependency-edge.ts";
import { mentionPositionsOf, nameWords } from "../../algorithms/dag/mention-order.ts";
import {
  baseRate,
  blendedWeight,
  consumerRate as consumerRateOf,
  firstShare as firstShareOf,
} from "../../algorithms/dag/rates.ts";
import {
  createSchemaScorer,
  inputFields,
  outputFields,
  schemaDependencies,
  type ToolIo,
} from "../../algorithms/dag/schema-dependencies.ts";
import { buildCsr, type Csr, edgeWeight } from "../../algorithms/graph/csr.ts";
import { EDGE_TYPES, type EdgeType, edgeQuality, NO_EVIDENCE } from "../../algorithms/graph/edge-quality.ts";
import { createHopBoundedSearch, type HopBoundedSearch } from "../../algorithms/paths/hop-bounded-search.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { type DerivedKey, derivedKey } from "./derived.ts";
import type { EdgeState, GraphSnapshot } from "./graph-snapshot.ts";

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
export function searcherFor(s: GraphSnapshot, graph: PathGraph, pathCsr: Csr): HopBoundedSearch {
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
      w =
        graph === "dependency"
          ? dep
          : graph === "history"
            ? learnedQuality(e, EDGE_TYPES)
            : blendedWeight(dep, learnedQuality(e, EDGE_TYPES));
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
  for (let k = dep.inOffsets[v]!; k < dep.inOffsets[v + 1]!; k++)
    n += s.edgeAt(dep.inSources[k]!, v)?.counts.dependency ?? 0;
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
export function priorProposal(
  s: GraphSnapshot,
  selected: readonly number[],
  candidates: readonly DependencyEdge[],
): PriorDependency[] {
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
export function schemaProposals(
  s: GraphSnapshot,
  selected: readonly number[],
  inferred: readonly DependencyEdge[],
): DependencyEdge[] {
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
/** Position of each selected tool's first mention in `intent` (mention-order.ts), by snapshot index; `tokens`: tokenize(intent) if known. */
export function mentionsOf(
  s: GraphSnapshot,
  selected: readonly number[],
  intent: string,
  tokens?: readonly string[],
): (v: number) => number | undefined {
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
export function roleRates(s: GraphSnapshot): {
  consumerRate: (v: number) => number;
  schemaScore: (a: number, b: number) => number;
  firstShare: (v: number) => number;
} {
  const base = dependencyBaseRate(s);
  const schema = createSchemaScorer((v) => toolIoOf(s, v));
  return {
    consumerRate: (v) => shrunkRate(consumedCount(s, v), s.executions[v]!, base),
    schemaScore: (a, b) => schema(a, b)?.score ?? 0,
    firstShare: (u) => firstShare(s, u),
  };
}

/** Whether tool v has no dependency edge in or out (the dependency graph knows nothing about it). */
export function noDependencyEdge(s: GraphSnapshot, v: number): boolean {
  const dep = s.dependencyCsr;
  return dep.offsets[v + 1]! === dep.offsets[v]! && dep.inOffsets[v + 1]! === dep.inOffsets[v]!;
}

/** A history-fallback edge (historyFallback): explained as standing in for the dependency graph. */
export type HistoryDependency = DependencyEdge & { readonly history: true };
