/**
 * Next-step suggestion end to end: the seed formula (or learned / Markov weights) over the snapshot and its
 * analytics, the intent memory's "what followed in similar executions" when an intent is given
 * (confidence' = 1 − (1 − confidence)(1 − μ·vote), μ = 0.8, the same lift as in search), and the gate.
 */
import { capForSafety } from "../../algorithms/thresholds/safety-cap.ts";
import { nextAfter } from "../../algorithms/memory/knn-vote.ts";
import { noisyOr } from "../../algorithms/memory/noisy-or.ts";
import { learnWeights, type TrainingExample } from "../../algorithms/prediction/learned-weights.ts";
import { DEFAULTS as NEXT_DEFAULTS, type NextStepModel, type NextStepSuggestion, type NextStepWeights, nextStepTerms, suggestNextSteps, weighNextStepTerms } from "../../algorithms/prediction/next-step.ts";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import type { SuggestNextRequest } from "../api/requests.ts";
import { derivedKey } from "../snapshot/derived.ts";
import type { GraphSnapshot } from "../snapshot/graph-snapshot.ts";
import { projectConfig, setProjectConfig } from "../store/projects.ts";
import { loadExecutionSequences } from "../store/reads.ts";
import type { AnalyticsView } from "./analytics.ts";
import { startOnce } from "./background.ts";
import type { Engine } from "./engine.ts";
import { cachedProjectConfig, cachedProjectConfigNow, forgetProjectConfig, projectFallbacks, projectFallbacksNow } from "./filters.ts";
import { type GatedItem, gatedSummary } from "./gating.ts";
import { recallMemory, type SimilarPastSuccess } from "./memory.ts";
import { resolveKnownTools, resolveTools } from "./resolve.ts";
import { explainTerms, nextStepModel, type RawSuggestion } from "./suggest.ts";

export const MARKOV_WEIGHTS: NextStepWeights = { cooc: 1, community: 0, recency: 0, pagerank: 0 };
export const NEXT_MEMORY_WEIGHT = 0.8;

/** Next-step confidence lifted by the intent memory's vote v ∈ [0,1]: 1 − (1 − c)·(1 − 0.8·v). */
export function withMemoryVote(confidence: number, vote: number | undefined): number {
  return noisyOr(confidence, NEXT_MEMORY_WEIGHT, vote);
}

/** A tool only the intent memory proposed (not among the model's candidates), scored by the same weighted terms. */
export function memoryCandidate(model: NextStepModel, context: number[], now: number, tool: number, weights: NextStepWeights) {
  return weighNextStepTerms(nextStepTerms(model, { context, now }, tool), weights);
}

/** Recorded steps a project needs before the default mode fits learned weights. */
export const AUTO_FIT_MIN_STEPS = 200;

/**
 * Weights per mode. "auto" (the default): the project's learned weights — fitted once on its own traces
 * when it has at least 200 recorded steps, then reused until `learn-weights` refits them — else the seed's.
 * A request never waits for that fit: it runs in the background and the seed's weights answer meanwhile
 * (`awaitFit` waits instead, for batch callers such as calibration and the bench).
 * Measured on ToolLinkOS (README Results) the seed's fixed weights lose to the first-order Markov
 * baseline while the learned weights beat it, hence this default.
 */
export async function weightsFor(
  engine: Engine,
  project: string,
  mode: "seed" | "learned" | "markov" | "auto" | undefined,
  opts: { awaitFit?: boolean } = {},
): Promise<NextStepWeights> {
  const now = weightsNow(engine, project, mode);
  if (now) return now;
  const cfg = await cachedProjectConfig(engine, project);
  const stored = cfg.nextStepWeights as NextStepWeights | undefined;
  if (stored) return stored;
  if (mode === "learned") return (await fitNextStepWeights(engine, project)).weights;
  const s = await engine.snapshot(project);
  let executions = 0;
  for (let i = 0; i < s.n; i++) executions += s.executions[i]!;
  if (executions >= AUTO_FIT_MIN_STEPS && opts.awaitFit) {
    const fit = await fitNextStepWeights(engine, project);
    if (!fit.reason) return fit.weights;
  } else if (executions >= AUTO_FIT_MIN_STEPS) {
    // Fitted off the request path, once per engine and project: a request never waits seconds for it; the
    // seed's weights answer until the learned ones are stored.
    startOnce(engine, "fit-next-step-weights", project, () => fitNextStepWeights(engine, project));
  }
  return NEXT_DEFAULTS.weights;
}


/** The weights `weightsFor` answers without I/O (a fixed mode, or stored weights in the cached configuration), else undefined. */
export function weightsNow(engine: Engine, project: string, mode: "seed" | "learned" | "markov" | "auto" | undefined): NextStepWeights | undefined {
  if (mode === "markov") return MARKOV_WEIGHTS;
  if (mode === "seed") return NEXT_DEFAULTS.weights;
  return cachedProjectConfigNow(engine, project)?.nextStepWeights as NextStepWeights | undefined;
}

/** Training examples from executions: each prefix's true next tool vs the other top candidates. */
export function trainingExamples(
  s: GraphSnapshot,
  a: AnalyticsView,
  sequences: { steps: { tool: string; success: boolean }[]; startedAt: Date }[],
  negatives = 10,
): TrainingExample[] {
  const model = nextStepModel(s, a);
  const out: TrainingExample[] = [];
  for (const seq of sequences) {
    const ctx: number[] = [];
    const now = seq.startedAt.getTime();
    for (const st of seq.steps) {
      const i = s.index.get(st.tool);
      if (i === undefined) break;
      if (ctx.length > 0) {
        const r = suggestNextSteps(model, { context: ctx, now }, { limit: negatives + 1 });
        const negs = r.suggestions.filter((x) => x.tool !== i).slice(0, negatives).map((x) => ({ ...mapTerms(x.terms) }));
        if (negs.length > 0) out.push({ positive: nextStepTerms(model, { context: ctx, now }, i), negatives: negs });
      }
      if (st.success) ctx.push(i);
    }
  }
  return out;
}

function mapTerms(t: RawSuggestion["terms"] | { cooc: { value: number }; community: { value: number }; recency: { value: number }; pagerank: { value: number } }) {
  return { cooc: t.cooc.value, community: t.community.value, recency: t.recency.value, pagerank: t.pagerank.value };
}

/** Fits the four weights on the project's own recent traces and stores them in the project config. */
export async function fitNextStepWeights(engine: Engine, project: string, opts: { maxExecutions?: number; seed?: number } = {}) {
  const s = await engine.snapshot(project);
  const a = await engine.analytics(project);
  const seqs = await loadExecutionSequences(engine.db, project, opts.maxExecutions ?? 2000);
  const examples = trainingExamples(s, a, seqs);
  const r = learnWeights(examples, { rng: mulberry32(opts.seed ?? 1) });
  const cfg = await projectConfig(engine.db, project);
  await setProjectConfig(engine.db, project, { ...cfg, nextStepWeights: r.weights });
  forgetProjectConfig(engine, project);
  return { weights: r.weights, examples: examples.length, report: r.report, reason: r.reason };
}

/** One next-step suggestion of the answer. */
export interface SuggestNextItem {
  tool: string;
  name: string;
  /** The tool's safety tags (destructive, network, suspicious, …): a suspicious tool is never accepted outright. */
  safetyTags: string[];
  score: number;
  /** The model's confidence lifted by the intent memory's vote. */
  confidence: number;
  terms: NextStepSuggestion["terms"];
  coocFrom: string | null;
  explanation: string;
  /** The intent memory's vote (0 without one). */
  memory: number;
  gate: GatedItem & { reason?: string };
}

const TOOL_ID_RANK = derivedKey<Int32Array>("tool id rank", "catalog");

/** Each tool's position in the ascending order of tool ids (derived state of the catalog; ids are unique). */
export function toolIdRank(s: GraphSnapshot): Int32Array {
  return s.derived(TOOL_ID_RANK, () => {
    const ids = s.tools.map((t) => t.id);
    const order = ids.map((_, i) => i).sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));
    const rank = new Int32Array(ids.length);
    order.forEach((i, r) => {
      rank[i] = r;
    });
    return rank;
  });
}

/**
 * The answer's order of two suggestions of tools `pTool` and `qTool` (< 0: p first): confidence desc, then score
 * desc, then tool id asc (compared by `rank`, toolIdRank).
 */
function answerOrder(rank: Int32Array, p: { confidence: number; score: number }, pTool: number, q: { confidence: number; score: number }, qTool: number): number {
  return q.confidence - p.confidence || q.score - p.score || rank[pTool]! - rank[qTool]!;
}

/**
 * The model's suggestions (score desc, PageRank desc, index asc) in the answer's order. They come sorted by
 * score already, so an insertion sort moves only suggestions of equal score, compared by tool id rank.
 */
function inAnswerOrder(s: GraphSnapshot, xs: readonly NextStepSuggestion[]): NextStepSuggestion[] {
  const rank = toolIdRank(s);
  const out = xs.slice();
  for (let i = 1; i < out.length; i++) {
    const x = out[i]!;
    let j = i - 1;
    while (j >= 0 && answerOrder(rank, out[j]!, out[j]!.tool, x, x.tool) > 0) {
      out[j + 1] = out[j]!;
      j--;
    }
    out[j + 1] = x;
  }
  return out;
}

export async function runSuggest(engine: Engine, project: string, req: SuggestNextRequest) {
  const t0 = performance.now();
  // Synchronous fast paths (cached snapshot, weights, gate, configuration) before their awaited forms.
  const s = engine.cachedSnapshot(project) ?? (await engine.snapshot(project));
  // The analytics of this snapshot (engine.analytics would look the snapshot up again).
  const a = engine.analyticsCache.get(s);
  const mode = req.mode;
  const weights = weightsNow(engine, project, mode) ?? (await weightsFor(engine, project, mode));
  const limit = req.limit ?? 5;
  const now = engine.now();
  const ctxIdx = resolveTools(s, req.context, "context");
  const excludedIdx = req.exclude === undefined ? [] : resolveKnownTools(s, req.exclude);
  const blocked = excludedIdx.length > 0 ? new Set(excludedIdx) : undefined;
  const model = nextStepModel(s, a);
  // 3 × limit model candidates leave room for the intent memory's; only the kept ones get explained.
  const raw = suggestNextSteps(model, { context: ctxIdx, now }, { weights, limit: limit * 3, blocked: blocked ? (t) => blocked.has(t) : undefined });
  // Intent memory: what followed the same tools in similar past executions.
  let memoryVotes: Map<string, { vote: number; executions: number; succeeded: number }> | undefined;
  let similarSuccess: SimilarPastSuccess | undefined;
  if (req.intent && req.intent.trim().length > 0) {
    const [qv] = await engine.queryEmbedder.embed([req.intent]);
    const mem = await recallMemory(engine, project, req.intent, qv!, { user: req.user });
    similarSuccess = mem.similarSuccess;
    if (mem.past.length > 0) {
      const v = nextAfter(mem.past, req.context, now, { limit: 20 });
      memoryVotes = new Map(v.votes.map((x) => [x.key, { vote: x.vote, executions: x.executions, succeeded: x.succeeded }]));
    }
  }
  const last = req.context[req.context.length - 1];
  // Candidates ranked by the lifted confidence (then score, then tool id); the answer's objects and
  // explanations are built for the first `limit` only. Without memory votes the confidence is the model's and
  // its suggestions only need their ties reordered (inAnswerOrder); with votes, every candidate gets a row.
  type Candidate = { tool: string; index: number; score: number; confidence: number; model: NextStepSuggestion | undefined; memory: ReturnType<typeof memoryCandidate> | undefined };
  let ranked: Candidate[] | undefined;
  let ordered: NextStepSuggestion[] | undefined;
  if (memoryVotes) {
    ranked = [];
    for (const x of raw.suggestions) {
      const tool = s.tools[x.tool]!.id;
      ranked.push({ tool, index: x.tool, score: x.score, confidence: withMemoryVote(x.confidence, memoryVotes.get(tool)?.vote), model: x, memory: undefined });
    }
    const inModel = new Set(ranked.map((c) => c.tool));
    const excluded = new Set(req.exclude ?? []);
    for (const [tool, m] of memoryVotes) {
      if (inModel.has(tool) || excluded.has(tool) || tool === last) continue;
      const i = s.index.get(tool);
      if (i === undefined) continue;
      const c = memoryCandidate(model, ctxIdx, now, i, weights);
      ranked.push({ tool, index: i, score: c.score, confidence: withMemoryVote(c.confidence, m.vote), model: undefined, memory: c });
    }
    const rank = toolIdRank(s);
    ranked.sort((p, q) => answerOrder(rank, p, p.index, q, q.index));
  } else ordered = inAnswerOrder(s, raw.suggestions);
  const gateRequest = {
    project,
    user: req.user,
    text: req.intent ?? "",
    workflow: { steps: req.context.map((tool) => ({ tool, success: true })), replans: 0 },
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
    similarPastSuccess: similarSuccess,
  };
  const prepared = engine.gatekeeper.preparedNow(gateRequest) ?? (await engine.gatekeeper.prepare(gateRequest));
  const fallbacks = projectFallbacksNow(engine, project) ?? (await projectFallbacks(engine, project));
  // Each kept candidate in its final shape, explained and gated (fields in the answer's order).
  const kept = Math.min(limit, ranked ? ranked.length : ordered!.length);
  const suggestions: SuggestNextItem[] = new Array(kept);
  for (let k = 0; k < kept; k++) {
    const c = ranked?.[k];
    const x = c ? c.model : ordered![k]!;
    const index = c ? c.index : x!.tool;
    const tool = c ? c.tool : s.tools[index]!.id;
    const confidence = c ? c.confidence : x!.confidence;
    const m = memoryVotes?.get(tool);
    const note = m ? `; memory ${m.vote.toFixed(2)}: followed in ${m.executions} similar past requests, ${m.succeeded} succeeded` : "";
    const safetyTags = s.tools[index]!.safetyTags;
    const gate = capForSafety(engine.gatekeeper.gateItem("next-step", confidence, prepared), safetyTags);
    if (x) {
      const coocFrom = x.coocFrom === null ? null : s.tools[x.coocFrom]!.id;
      const explanation = explainTerms(tool, x.score, x.confidence, x.terms, coocFrom, last) + note;
      suggestions[k] = { tool, name: s.tools[index]!.name, safetyTags, score: x.score, confidence, terms: x.terms, coocFrom, explanation, memory: m?.vote ?? 0, gate };
    } else {
      const w = c!.memory!;
      suggestions[k] = { tool, name: s.tools[index]!.name, safetyTags, score: w.score, confidence, terms: w.terms, coocFrom: null, explanation: `${tool}: from the intent memory${note}`, memory: m?.vote ?? 0, gate };
    }
  }
  let report: unknown;
  const top = suggestions[0];
  if (req.explain && top) {
    report = engine.gatekeeper.report(
      { id: top.tool, label: top.name },
      engine.gatekeeper.gate("next-step", top.confidence, prepared, fallbacks),
      prepared,
      { cooc: top.terms.cooc.contribution, community: top.terms.community.contribution, recency: top.terms.recency.contribution, pagerank: top.terms.pagerank.contribution, memory: top.memory },
      suggestions.slice(1, 4).map((x) => ({ id: x.tool, score: x.confidence, reason: `confidence ${x.confidence.toFixed(3)} < ${top.confidence.toFixed(3)}` })),
    );
  }
  return {
    project,
    context: req.context,
    mode: req.mode ?? "auto",
    weights,
    suggestions,
    ...gatedSummary(suggestions, (x) => x.tool, prepared, fallbacks, { empty: raw.reason ?? "no candidate follows this context" }),
    analytics: { fresh: a.fresh, ageMs: a.ageMs, communities: a.analytics.communityCount },
    timings: { totalMs: performance.now() - t0 },
    ...(report ? { report } : {}),
  };
}
