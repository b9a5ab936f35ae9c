/**
 * The DAG job: execution DAGs (algorithms/README.md, "DAG"; docs/decisions/edge-quality.md). The rates and
 * derived state it reads are the view's (src/view/dag-rates.ts), its explanations dag-explain.ts, the plan plan.ts.
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
 * Caps (maxTools, maxLatencyMs, maxCost) trim the plan and say what was dropped and why.
 */

import { buildExecutionDag, type ExecutionDag } from "../../algorithms/dag/build-execution-dag.ts";
import type { DependencyEdge } from "../../algorithms/dag/dependency-edge.ts";
import { inferDependencies } from "../../algorithms/dag/infer-dependencies.ts";
import { DEFAULTS as MENTION_DEFAULTS, mentionChain } from "../../algorithms/dag/mention-order.ts";
import type { BuildDagRequest } from "../contract/requests.ts";
import { buildDagOptions, buildDagRequest, type DagAblation } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import {
  type DagGraph,
  HISTORY_FALLBACK,
  type HistoryDependency,
  type HistoryFallback,
  isDefaultGraph,
  latencyOf,
  mentionsOf,
  noDependencyEdge,
  observedBefore,
  pathCsrFor,
  priorProposal,
  resolveDagGraph,
  roleRates,
  schemaProposals,
  searcherFor,
} from "../view/dag-rates.ts";
import { safetyFilter } from "../view/filters.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { ProjectView } from "../view/project-view.ts";
import { badRequest, resolveTools } from "../view/resolve.ts";
import { dagConfidence, describeDag } from "./dag-explain.ts";
import { defineJob } from "./job.ts";

export * from "../view/dag-rates.ts";
export { dagConfidence, describeDag } from "./dag-explain.ts";

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

/**
 * The pure DAG over snapshot indices (also used by the bench). `schemaEdges` turns the schema proposals on:
 * off by default, because on the one dataset with output schemas (NESTFUL) they raise edge F1 over all
 * cases (0.662 → 0.686) but lower it on the cases whose tools the traces cover (0.742 → 0.733).
 */
export function dagOver(
  s: GraphSnapshot,
  selected: number[],
  requested: DagGraph = "auto",
  maxHops = 3,
  schemaEdges = false,
  options: DagOverOptions = {},
): ExecutionDag {
  const graph = resolveDagGraph(s, requested);
  const csr = graph === "dependency" ? s.dependencyCsr : graph === "blended" ? s.blendedCsr : s.csr;
  const pathCsr = pathCsrFor(s, graph, csr);
  const prior = options.dataFlowPrior ?? true;
  const mentions = options.intent ? mentionsOf(s, selected, options.intent, options.intentTokens) : undefined;
  const chainLimit = mentions ? (options.mentionChain ?? MENTION_DEFAULTS.chainEdges) : 0;
  const fallbackMode: HistoryFallback | undefined =
    options.historyFallback === true ? HISTORY_FALLBACK : options.historyFallback || undefined;
  const fallback = fallbackMode !== undefined && graph === "dependency";
  const propose =
    schemaEdges || prior || chainLimit > 0 || fallback
      ? (inferred: readonly DependencyEdge[]): DependencyEdge[] => {
          const history = fallback ? historyFallback(s, selected, inferred, maxHops, fallbackMode) : [];
          if (history.length > 0) return history;
          const schema = schemaEdges ? schemaProposals(s, selected, inferred) : [];
          const proposed = prior && schema.length === 0 ? priorProposal(s, selected, inferred) : schema;
          return chainLimit > 0 && inferred.length === 0 && proposed.length === 0
            ? mentionChain(selected, mentions!, chainLimit)
            : proposed;
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
export function historyFallback(
  s: GraphSnapshot,
  selected: readonly number[],
  inferred: readonly DependencyEdge[],
  maxHops = 3,
  mode: HistoryFallback = HISTORY_FALLBACK,
): HistoryDependency[] {
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
  for (const e of inferDependencies(s.csr, selected, {
    maxHops,
    pathCsr,
    search: searcherFor(s, "history", pathCsr),
  })) {
    if (mode === "tool" && !unknown(e.from) && !unknown(e.to)) continue;
    if (!related.has(e.from * s.n + e.to))
      out.push({
        from: e.from,
        to: e.to,
        path: e.path,
        hops: e.hops,
        cost: e.cost,
        meanWeight: e.meanWeight,
        strength: e.strength,
        direct: false,
        history: true,
      });
  }
  return out;
}

export interface CapResult {
  kept: number[];
  dropped: { tool: string; reason: string }[];
}

/** Applies maxTools, maxLatencyMs (critical path) and maxCost, dropping the lowest-priority tools last in `order`. */
export function applyCaps(
  s: GraphSnapshot,
  order: number[],
  caps: {
    maxTools?: number | undefined;
    maxLatencyMs?: number | undefined;
    maxCost?: number | undefined;
    schemaEdges?: boolean | undefined;
    intent?: string | undefined;
    historyFallback?: boolean | undefined;
  },
  graph: DagGraph,
): CapResult {
  let kept = order.slice();
  const dropped: CapResult["dropped"] = [];
  if (caps.maxTools !== undefined && kept.length > caps.maxTools) {
    for (const i of kept.slice(caps.maxTools))
      dropped.push({ tool: s.tools[i]!.id, reason: `maxTools ${caps.maxTools}: lowest-ranked tool dropped` });
    kept = kept.slice(0, caps.maxTools);
  }
  if (caps.maxCost !== undefined) {
    const cost = (xs: number[]) => xs.reduce((t, i) => t + (s.tools[i]!.costEstimate ?? 0), 0);
    while (kept.length > 1 && cost(kept) > caps.maxCost) {
      const i = kept.pop()!;
      dropped.push({
        tool: s.tools[i]!.id,
        reason: `maxCost ${caps.maxCost}: total cost ${cost([...kept, i]).toFixed(4)} over budget; lowest-ranked tool dropped`,
      });
    }
  }
  if (caps.maxLatencyMs !== undefined) {
    while (kept.length > 1) {
      const wall = dagOver(s, kept, graph, 3, caps.schemaEdges ?? false, {
        ...(caps.intent ? { intent: caps.intent } : {}),
        historyFallback: caps.historyFallback ?? false,
      }).timing.wallTimeMs;
      if (wall <= caps.maxLatencyMs) break;
      const i = kept.pop()!;
      dropped.push({
        tool: s.tools[i]!.id,
        reason: `maxLatencyMs ${caps.maxLatencyMs}: critical path ${wall.toFixed(0)} ms over budget; lowest-ranked tool dropped`,
      });
    }
  }
  return { kept, dropped };
}

export async function runBuildDag(
  view: ProjectView,
  req: BuildDagRequest & { graph?: DagGraph; ablation?: DagAblation | undefined },
) {
  const t0 = performance.now();
  const s = view.snapshot;
  const selected = resolveTools(s, req.tools, "tools");
  if (new Set(selected).size !== selected.length) throw badRequest("tools", "each tool may appear once");
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const removed = selected.filter(unsafe).map((i) => ({
    tool: s.tools[i]!.id,
    reason: s.tools[i]!.available ? "excluded by safety tag" : "unavailable (its server no longer lists it)",
  }));
  const graph = resolveDagGraph(s, req.graph);
  const historyFallback = isDefaultGraph(req.graph);
  const caps = applyCaps(
    s,
    selected.filter((i) => !unsafe(i)),
    { ...req, historyFallback },
    graph,
  );
  // The request's intent (optional) orients pairs the history never saw in succession (mention-order.ts).
  // The bench's ablation switches (library only); an absent or undefined switch keeps the default.
  const { hops, ...switches } = req.ablation ?? {};
  const ablation = Object.fromEntries(Object.entries(switches).filter(([, v]) => v !== undefined));
  const dag = dagOver(
    s,
    caps.kept,
    graph,
    hops ?? 3,
    req.schemaEdges ?? false,
    req.intent ? { intent: req.intent, historyFallback, ...ablation } : { historyFallback, ...ablation },
  );
  const confidence = dagConfidence(dag);
  const gateRequest = {
    project: view.project,
    user: req.user,
    text: "",
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
  };
  const prepared = view.gate.preparedNow(gateRequest) ?? (await view.gate.prepare(gateRequest));
  const gate = view.gate.gateItem("dag", confidence, prepared);
  const described = describeDag(s, dag);
  // A literal (no spread of the description): answers keep one hidden class, and so do their copies.
  return {
    project: view.project,
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
/**
 * Selected tools → an execution DAG with parallel layers; `graph` (library only) picks the graph it reads,
 * `ablation` (library only) switches parts of the evidence off for the bench.
 */
export const buildDagJob = defineJob({
  request: buildDagRequest,
  result: RESULT_SCHEMAS.buildDag,
  libraryOptions: buildDagOptions,
  answerKey: "runBuildDag",
  run: (ctx, req) => runBuildDag(ctx.view, req),
});
