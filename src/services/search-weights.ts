/**
 * Search weights fitted on the project's own traces (beyond the seed): the fusion weight β of cosine vs
 * BM25 in the content score, the weight μ of the intent memory, the weight w_c of the content channel
 * against it, and the graph weight. Which channel carries the signal depends on the catalog (tool names in
 * the requests favour BM25, paraphrases favour embeddings, poor descriptions make content useless) and on how
 * often requests repeat (memory), so they are chosen per project by maximising mAP@10 of the tools that past
 * executions used, for up to 200 past intents, with the staged grid search and channel anchors of
 * algorithms/search/fit-fusion-weights.ts (so the fitted weights are never worse on these intents than the
 * content, memory or graph channel alone). Each past execution is scored with the memory of the OTHER
 * executions and with usage and execution counts without its own steps (leave-one-out, heldOutSignals), so
 * the fit never sees its own answer: a tool that ran only in that execution is scored as never run.
 * Without enough intents (< 30) the defaults stay: β = 0.5, μ = 0.8, w_c = 1, graph 1.
 */
import { averagePrecisionAtK } from "../../algorithms/evaluation/retrieval-metrics.ts";
import { mulberry32, shuffled } from "../../algorithms/random/rng.ts";
import { fitFusionWeights } from "../../algorithms/search/fit-fusion-weights.ts";
import { globalSignal } from "../../algorithms/search/global-signal.ts";
import type { GraphSnapshot } from "../snapshot/graph-snapshot.ts";
import { projectConfig, setProjectConfig } from "../store/projects.ts";
import { startOnce, yieldToEventLoop } from "./background.ts";
import type { Engine } from "./engine.ts";
import { cachedProjectConfig, forgetProjectConfig } from "./filters.ts";
import { memoryIndex, memoryRow, recallMemory } from "./memory.ts";
import { searchCandidates } from "./search.ts";

export interface SearchWeights {
  beta: number;
  memoryWeight: number;
  /** Weight of the content channel against the memory (channel-fusion.ts; 1 = the plain memory lift). */
  contentWeight: number;
  /** Multiplier of the graph term (0 turns it off). */
  graphWeight: number;
}

export const DEFAULT_SEARCH_WEIGHTS: SearchWeights = { beta: 0.5, memoryWeight: 0.8, contentWeight: 1, graphWeight: 1 };
export const SEARCH_FIT_MIN_INTENTS = 30;

export interface SearchWeightsFit extends SearchWeights {
  intents: number;
  /** mAP@10 on the fitting intents: per β (μ = 0), then per μ, per w_c, per graph weight. */
  betaCurve: { beta: number; map: number }[];
  memoryCurve: { memoryWeight: number; map: number }[];
  contentCurve: { contentWeight: number; map: number }[];
  graphCurve: { graphWeight: number; map: number }[];
  /** mAP@10 of the fitted weights and of each channel alone (content, memory, graph) on the same intents. */
  map?: number;
  channels?: { content: number; memory: number; graph: number };
  reason?: string;
}

export async function fitSearchWeights(engine: Engine, project: string, opts: { maxIntents?: number; seed?: number } = {}): Promise<SearchWeightsFit> {
  // The memory index already holds every execution with an intent: reuse its rows rather than reading them
  // again (on the embedded database a read of 100k steps runs on the event loop's thread).
  const memory = await memoryIndex(engine, project);
  // Executions with at least one successful step (row indices; rows are built for the sample only).
  const { stepOffsets, stepSuccess } = memory.rows;
  const rows: number[] = [];
  for (let i = 0; i < memory.rows.length; i++) {
    let anySuccess = false;
    for (let k = stepOffsets[i]!; k < stepOffsets[i + 1]! && !anySuccess; k++) anySuccess = stepSuccess[k] === 1;
    if (anySuccess) rows.push(i);
  }
  if (rows.length < SEARCH_FIT_MIN_INTENTS) {
    return { ...DEFAULT_SEARCH_WEIGHTS, intents: rows.length, betaCurve: [], memoryCurve: [], contentCurve: [], graphCurve: [], reason: `fewer than ${SEARCH_FIT_MIN_INTENTS} past executions with an intent` };
  }
  const sample = shuffled(rows, mulberry32(opts.seed ?? 1))
    .slice(0, opts.maxIntents ?? 200)
    .map((i) => memoryRow(memory, i));
  const s = await engine.snapshot(project);
  const a = await engine.analytics(project);
  const idx = await engine.searchIndex(project);
  const cases: { intent: string; v: Float32Array; relevant: Set<string>; memory: Map<number, number> | undefined; held: HeldOutSignals }[] = [];
  let maxSucc = 0;
  for (let i = 0; i < s.n; i++) maxSucc = Math.max(maxSucc, s.successes[i]!);
  for (let i = 0; i < sample.length; i += 64) {
    const batch = sample.slice(i, i + 64);
    const vs = await engine.embedder.embed(batch.map((r) => r.intent));
    for (let j = 0; j < batch.length; j++) {
      const r = batch[j]!;
      const mem = await recallMemory(engine, project, r.intent, vs[j]!, { excludeIds: new Set([r.id]) });
      const held = heldOutSignals(s, a.analytics.pagerank, r.steps, maxSucc);
      cases.push({ intent: r.intent, v: vs[j]!, relevant: new Set(r.steps.filter((st) => st.success).map((st) => st.tool)), memory: mem.toolVotes, held });
    }
  }
  // The fit runs beside live requests: it yields to the event loop after every case, so a search never waits
  // behind more than one case's scoring (one grid point over 200 cases is ~0.4 s of work at 10k tools).
  const mapOf = async (w: { beta: number; memoryWeight: number; contentWeight: number; graphWeight: number }): Promise<number> => {
    let sum = 0;
    for (const c of cases) {
      const ranked = searchCandidates(s, a, idx, c.intent, c.v, { ...w, memory: w.memoryWeight > 0 ? c.memory : undefined, global: c.held.global, executions: c.held.executions, top: 10 }).map((h) => s.tools[h.index]!.id);
      sum += averagePrecisionAtK(ranked, c.relevant, 10);
      await yieldToEventLoop();
    }
    return sum / cases.length;
  };
  const fit = await fitFusionWeights(mapOf);
  const { beta, memoryWeight, contentWeight, graphWeight } = fit.weights;
  const betaCurve = fit.curves.beta.map((p) => ({ beta: p.weights.beta, map: p.objective }));
  const memoryCurve = fit.curves.memory.map((p) => ({ memoryWeight: p.weights.memoryWeight, map: p.objective }));
  const contentCurve = fit.curves.content.map((p) => ({ contentWeight: p.weights.contentWeight, map: p.objective }));
  const graphCurve = fit.curves.graph.map((p) => ({ graphWeight: p.weights.graphWeight, map: p.objective }));
  const cfg = await projectConfig(engine.db, project);
  await setProjectConfig(engine.db, project, { ...cfg, searchWeights: { beta, memoryWeight, contentWeight, graphWeight } });
  forgetProjectConfig(engine, project);
  const channels = { content: fit.channels.content.objective, memory: fit.channels.memory.objective, graph: fit.channels.graph.objective };
  return { beta, memoryWeight, contentWeight, graphWeight, intents: cases.length, betaCurve, memoryCurve, contentCurve, graphCurve, map: fit.objective, channels };
}

export interface HeldOutSignals {
  /** The no-context graph signal with the execution's successful steps removed from the usage counts. */
  global: Float64Array;
  /** Executions (steps) per tool with the execution's own steps removed: α's cold start sees them as not run. */
  executions: Uint32Array;
}

/**
 * The per-tool history a held-out past execution is scored with (leave-one-out): its own steps removed from
 * the counts. Without it the fit scores every one of the execution's tools as a tool with history — one that
 * ran only there keeps α < 1 (cold start at n = 1 instead of α = 1 at n = 0) and is lifted by the graph —
 * while a new request's tools have often never run; the fit then overrates the graph (Seal-Tools,
 * hash:512: graph 0.5 fitted, out-of-domain mAP@10 0.794 against BM25's 0.803; issue 20). Not removed:
 * the execution's edges, so PageRank and coherence still include it (a second-order effect: both only act
 * through α < 1, which a tool that ran nowhere else no longer has).
 */
export function heldOutSignals(
  s: Pick<GraphSnapshot, "n" | "index" | "executions" | "successes">,
  pagerank: ArrayLike<number>,
  steps: readonly { tool: string; success: boolean }[],
  maxSuccesses: number,
): HeldOutSignals {
  const executions = new Uint32Array(s.executions);
  const successes = new Float64Array(s.n);
  for (let i = 0; i < s.n; i++) successes[i] = s.successes[i]!;
  for (const st of steps) {
    const k = s.index.get(st.tool);
    if (k === undefined) continue;
    if (executions[k]! > 0) executions[k]!--;
    if (st.success && successes[k]! > 0) successes[k]!--;
  }
  return { global: globalSignal(pagerank, successes, s.n, maxSuccesses), executions };
}

/**
 * The project's search weights: the stored ones, else the defaults while a fit runs in the background
 * (started at most once per engine and project; it needs ≥ 30 past intents). The first searches are never
 * delayed by the fit (it takes seconds on a large catalog).
 */
export async function searchWeightsFor(engine: Engine, project: string): Promise<SearchWeights> {
  const cfg = await cachedProjectConfig(engine, project);
  const stored = cfg.searchWeights as SearchWeights | undefined;
  if (stored) return { ...DEFAULT_SEARCH_WEIGHTS, ...stored };
  startOnce(engine, "fit-search-weights", project, () => fitSearchWeights(engine, project));
  return DEFAULT_SEARCH_WEIGHTS;
}
