/**
 * Intent → plan (the DAG itself: dag.ts).
 *
 * The main tools come from the capability matched with high confidence (so plan and capability match agree),
 * else the best-matching successful past execution (intent memory), else search; the dependency closure adds
 * prerequisites the intent did not mention (declared dependency edges, and learned ones that held in at least
 * half of the dependent tool's executions; depth ≤ 3), each only with evidence connected to the intent —
 * declared, in the matched capability, or run before it in a matched past request — and says which
 * (docs/decisions/plan-evidence.md), then the DAG. Caps (maxTools, maxLatencyMs, maxCost) trim the plan and say
 * what was dropped and why.
 */
import { inMainBand, planConfidence } from "../../algorithms/dag/confidence.ts";
import { dependencyClosure, type Prerequisite } from "../../algorithms/dag/dependency-closure.ts";
import {
  describeEvidence,
  type EvidenceSources,
  type PrerequisiteEvidence,
  prerequisiteEvidence,
} from "../../algorithms/dag/prerequisite-evidence.ts";
import { capForChannels } from "../../algorithms/thresholds/channel-cap.ts";
import type { PlanRequest } from "../contract/requests.ts";
import { dagOptions, planRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { type DagGraph, isDefaultGraph, requiredPrerequisitesOf, resolveDagGraph } from "../view/dag-rates.ts";
import { filtersAnything, safetyFilter } from "../view/filters.ts";
import { MEMORY_DEFAULTS } from "../view/intent-memory.ts";
import type { ProjectView } from "../view/project-view.ts";
import { runMatchCapabilities } from "./capabilities.ts";
import { applyCaps, dagOver } from "./dag.ts";
import { describeDag } from "./dag-explain.ts";
import { defineJob } from "./job.ts";
import { rankedSearchItems, rankSearch } from "./search.ts";
import { exclusionOf, maskOptions, type ToolMask } from "./tool-mask.ts";

/** The plan's library-only options: the DAG's graph and a mask of denied tools. */
const planOptions = dagOptions.extend(maskOptions.shape);

/**
 * Task similarity (BM25 over every query word, memory-recall.ts) from which the most similar successful past
 * execution supplies the plan's main tools.
 */
export const PLAN_MEMORY_SIMILARITY = 0.6;

export async function runPlan(
  view: ProjectView,
  req: PlanRequest & { graph?: DagGraph; closureDepth?: number; deny?: ToolMask | undefined },
) {
  const t0 = performance.now();
  const s = view.snapshot;
  const limit = req.limit ?? 5;
  const ranking = await rankSearch(
    view,
    {
      intent: req.intent,
      limit: Math.max(limit, 10),
      exclude: req.exclude,
      deny: req.deny,
      excludeSafetyTags: req.excludeSafetyTags,
      user: req.user,
      environment: req.environment,
      urgency: req.urgency,
    },
    { contentWeight: 1 },
  );
  // The search's items as its answer lists them (tool, score, gate decision): the plan needs no explanation.
  const found = { results: rankedSearchItems(view, ranking) };
  const mem = ranking.memory;
  const unsafe = safetyFilter(s, req.excludeSafetyTags);
  const excluded = exclusionOf(req);
  const allowed = (tool: string) => s.index.has(tool) && !excluded.has(tool) && !unsafe(s.index.get(tool)!);
  // The capabilities job's own answer for the intent: its top match when the gate did not abstain on it. The
  // workflow goes without its id: the plan's own gate records the request on the workflow's timeline, once.
  const workflow = req.workflow ? { steps: req.workflow.steps, replans: req.workflow.replans } : undefined;
  const capabilities = await runMatchCapabilities(view, {
    intent: req.intent,
    user: req.user,
    limit: 1,
    environment: req.environment,
    urgency: req.urgency,
    workflow,
  });
  const topCapability = capabilities.results[0];
  const matchedCapability = topCapability && topCapability.gate.decision !== "abstained" ? topCapability : undefined;
  // Main tools. From the matched capability when it matches strongly: its tools, so the plan and the
  // capability match agree. Else from the intent memory when a successful past execution
  // matches the intent closely (task similarity ≥ PLAN_MEMORY_SIMILARITY): its tools, in its order.
  // Otherwise from search: the top hit, plus further hits scoring within 5 % of it (at most `limit`).
  // The search's own recall (same intent, user and tokens).
  const bestAt = mem.past.findIndex((p) => p.success);
  const best = bestAt >= 0 ? mem.past[bestAt] : undefined;
  const bestTask = bestAt >= 0 ? mem.taskSimilarity[bestAt]! : 0;
  let main: { tool: string; score: number; why: string }[] = [];
  // Strong: accepted with high confidence, and holding the search's top tool (two channels agree; a match
  // carried by one channel alone, e.g. "back up …" voting for rollback through shared words, is not strong).
  const topTool = found.results[0]?.tool;
  if (
    matchedCapability &&
    matchedCapability.gate.decision === "accepted" &&
    matchedCapability.gate.confidence === "high" &&
    topTool !== undefined &&
    matchedCapability.tools.includes(topTool)
  ) {
    const c = matchedCapability;
    main = c.tools.filter(allowed).map((tool) => ({
      tool,
      score: Math.min(1, c.score),
      why: `in capability ${c.capability}, matched to the intent with high confidence (score ${c.score.toFixed(3)})`,
    }));
  }
  if (main.length === 0 && best && bestTask >= PLAN_MEMORY_SIMILARITY) {
    const seen = new Set<string>();
    main = best.steps
      .filter(
        (st) =>
          st.success &&
          s.index.has(st.tool) &&
          !excluded.has(st.tool) &&
          !unsafe(s.index.get(st.tool)!) &&
          !seen.has(st.tool) &&
          seen.add(st.tool),
      )
      .map((st) => ({
        tool: st.tool,
        score: bestTask,
        why: `used by the most similar past request ${best.executionId} (task similarity ${bestTask.toFixed(2)}, succeeded)`,
      }));
  }
  if (main.length === 0) {
    const top = found.results[0];
    main = top
      ? found.results
          .filter((r) => inMainBand(r.score, top.score))
          .slice(0, limit)
          .map((r) => ({
            tool: r.tool,
            score: r.score,
            why: `chosen by search (score ${r.score.toFixed(3)}, ${r.decision})`,
          }))
      : [];
  }
  const mainIdx = main.map((r) => s.index.get(r.tool)!);
  // Required prerequisites (listed once per tool and graph version), less the unsafe and excluded tools, and
  // only those with evidence connected to the intent (algorithms/dag/prerequisite-evidence.ts): a declared
  // edge, the matched capability, or the matched past requests (similar tasks, task similarity ≥ the floor).
  const filtered = excluded.size > 0 || filtersAnything(s, req.excludeSafetyTags);
  const sources: EvidenceSources<number> = {
    declared: (u, v) => (s.edgeAt(u, v)?.declared.dependency ?? 0) > 0,
    capability: matchedCapability
      ? {
          id: matchedCapability.capability,
          tools: new Set(matchedCapability.tools.flatMap((x) => (s.index.has(x) ? [s.index.get(x)!] : []))),
        }
      : undefined,
    past: mem.past.flatMap((p, r) =>
      p.success && mem.taskSimilarity[r]! >= MEMORY_DEFAULTS.similarTaskFloor
        ? [p.steps.flatMap((st) => (st.success && s.index.has(st.tool) ? [s.index.get(st.tool)!] : []))]
        : [],
    ),
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
  const dag = dagOver(s, caps.kept, graph, 3, req.schemaEdges ?? false, {
    intent: req.intent,
    intentTokens: ranking.tokens,
    historyFallback,
  });
  const id = (i: number) => s.tools[i]!.id;
  const why = new Map<string, string>();
  for (const r of main) why.set(r.tool, r.why);
  for (const a of closure.added) {
    const e = evidence.get(a.node * s.n + a.requiredBy)!;
    why.set(
      id(a.node),
      `prerequisite of ${id(a.requiredBy)} (depth ${a.depth}, dependency weight ${a.weight.toFixed(2)}): ${describeEvidence(e, id(a.requiredBy))}`,
    );
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
  const gateRequest = {
    project: view.project,
    user: req.user,
    text: req.intent,
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
  };
  const prepared = view.gate.preparedNow(gateRequest) ?? (await view.gate.prepare(gateRequest));
  // Ranked without the embedding channel (a catalog still being embedded): said, and never accepted outright.
  const gate = capForChannels(view.gate.gateItem("plan", confidence, prepared), ranking.channels);
  const described = describeDag(s, dag);
  return {
    project: view.project,
    intent: req.intent,
    ...(ranking.channels.embedding ? {} : { degraded: "embedding" as const }),
    tools: caps.kept.map((i) => ({
      tool: id(i),
      why: why.get(id(i)) ?? "",
      server: s.tools[i]!.server,
      inputSchema: s.tools[i]!.inputSchema,
    })),
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

/** Intent → plan: search, intent memory, dependency closure, then the DAG. */
export const planJob = defineJob({
  request: planRequest,
  result: RESULT_SCHEMAS.plan,
  libraryOptions: planOptions,
  answerKey: "runPlan",
  run: (ctx, req) => runPlan(ctx.view, req),
});
