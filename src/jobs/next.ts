/**
 * Next-step suggestion end to end: the fixed-weight formula (docs/decisions/next-step-weights.md; or learned /
 * Markov weights) over the snapshot and its
 * analytics, the intent memory's "what followed in similar executions" when an intent is given
 * (confidence' = 1 − (1 − confidence)(1 − μ·vote), μ = 0.8, the same lift as in search), and the gate.
 */
import { nextAfter } from "../../algorithms/memory/knn-vote.ts";
import { type NextStepSuggestion, suggestNextSteps } from "../../algorithms/prediction/next-step.ts";
import { memoryCandidate, withMemoryVote } from "../../algorithms/prediction/next-step-memory.ts";
import { capForSafety } from "../../algorithms/thresholds/safety-cap.ts";
import type { SuggestNextRequest } from "../contract/requests.ts";
import { suggestNextRequest } from "../contract/requests.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { type GatedItem, gatedSummary } from "../gate/gatekeeper.ts";
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import type { SimilarPastSuccess } from "../view/memory-recall.ts";
import type { ProjectView } from "../view/project-view.ts";
import { resolveKnownTools, resolveTools } from "../view/resolve.ts";
import { weightsFor, weightsNow } from "./fit-next-step-weights.ts";
import { defineJob } from "./job.ts";
import { explainTerms, nextStepModel } from "./next-scoring.ts";
import { exclusionOf, maskOptions, type ToolMask } from "./tool-mask.ts";

export {
  AUTO_FIT_MIN_STEPS,
  executionGroups,
  executionGroupsSteps,
  fitNextStepWeights,
  MARKOV_WEIGHTS,
  NEXT_FIT_DEFAULTS,
  trainingExamples,
  weightsFor,
  weightsNow,
} from "./fit-next-step-weights.ts";
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
function answerOrder(
  rank: Int32Array,
  p: { confidence: number; score: number },
  pTool: number,
  q: { confidence: number; score: number },
  qTool: number,
): number {
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

export async function runSuggest(view: ProjectView, req: SuggestNextRequest & { deny?: ToolMask | undefined }) {
  const t0 = performance.now();
  // Synchronous fast paths (cached snapshot, weights, gate, configuration) before their awaited forms.
  const s = view.snapshot;
  // The analytics of this snapshot (engine.analytics would look the snapshot up again).
  const a = view.analytics();
  const mode = req.mode;
  const weights = weightsNow(view, mode) ?? (await weightsFor(view, mode));
  const limit = req.limit ?? 5;
  const now = view.now();
  const ctxIdx = resolveTools(s, req.context, "context");
  const excludedIdx = req.exclude === undefined ? [] : resolveKnownTools(s, req.exclude);
  // The mask's tools are skipped by the scorer too (only those the catalog knows have an index).
  if (req.deny) for (const id of req.deny.ids()) if (s.index.has(id)) excludedIdx.push(s.index.get(id)!);
  const blocked = excludedIdx.length > 0 ? new Set(excludedIdx) : undefined;
  const model = nextStepModel(s, a);
  // 3 × limit model candidates leave room for the intent memory's; only the kept ones get explained.
  const raw = suggestNextSteps(
    model,
    { context: ctxIdx, now },
    { weights, limit: limit * 3, blocked: blocked ? (t) => blocked.has(t) : undefined },
  );
  // Intent memory: what followed the same tools in similar past executions.
  let memoryVotes: Map<string, { vote: number; executions: number; succeeded: number }> | undefined;
  let similarSuccess: SimilarPastSuccess | undefined;
  if (req.intent && req.intent.trim().length > 0) {
    // While the catalog is embedded (whileEmbedding "lexical") the model is busy: recall without a query vector.
    const [qv] = view.embeddingLive() ? await view.embedQueries([req.intent]) : [new Float32Array(0)];
    const mem = await view.recall(req.intent, qv!, { user: req.user });
    similarSuccess = mem.similarSuccess;
    if (mem.past.length > 0) {
      const v = nextAfter(mem.past, req.context, now, { limit: 20 });
      memoryVotes = new Map(
        v.votes.map((x) => [x.key, { vote: x.vote, executions: x.executions, succeeded: x.succeeded }]),
      );
    }
  }
  const last = req.context[req.context.length - 1];
  // Candidates ranked by the lifted confidence (then score, then tool id); the answer's objects and
  // explanations are built for the first `limit` only. Without memory votes the confidence is the model's and
  // its suggestions only need their ties reordered (inAnswerOrder); with votes, every candidate gets a row.
  type Candidate = {
    tool: string;
    index: number;
    score: number;
    confidence: number;
    model: NextStepSuggestion | undefined;
    memory: ReturnType<typeof memoryCandidate> | undefined;
  };
  let ranked: Candidate[] | undefined;
  let ordered: NextStepSuggestion[] | undefined;
  if (memoryVotes) {
    ranked = [];
    for (const x of raw.suggestions) {
      const tool = s.tools[x.tool]!.id;
      ranked.push({
        tool,
        index: x.tool,
        score: x.score,
        confidence: withMemoryVote(x.confidence, memoryVotes.get(tool)?.vote),
        model: x,
        memory: undefined,
      });
    }
    const inModel = new Set(ranked.map((c) => c.tool));
    const excluded = exclusionOf(req);
    for (const [tool, m] of memoryVotes) {
      if (inModel.has(tool) || excluded.has(tool) || tool === last) continue;
      const i = s.index.get(tool);
      if (i === undefined) continue;
      const c = memoryCandidate(model, ctxIdx, now, i, weights);
      ranked.push({
        tool,
        index: i,
        score: c.score,
        confidence: withMemoryVote(c.confidence, m.vote),
        model: undefined,
        memory: c,
      });
    }
    const rank = toolIdRank(s);
    ranked.sort((p, q) => answerOrder(rank, p, p.index, q, q.index));
  } else ordered = inAnswerOrder(s, raw.suggestions);
  const gateRequest = {
    project: view.project,
    user: req.user,
    text: req.intent ?? "",
    workflow: { steps: req.context.map((tool) => ({ tool, success: true })), replans: 0 },
    environment: req.environment,
    urgency: req.urgency,
    requestWorkflow: req.workflow,
    similarPastSuccess: similarSuccess,
  };
  const prepared = view.gate.preparedNow(gateRequest) ?? (await view.gate.prepare(gateRequest));
  const fallbacks = view.fallbacksNow() ?? (await view.fallbacks());
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
    const note = m
      ? `; memory ${m.vote.toFixed(2)}: followed in ${m.executions} similar past requests, ${m.succeeded} succeeded`
      : "";
    const safetyTags = s.tools[index]!.safetyTags;
    const gate = capForSafety(view.gate.gateItem("next-step", confidence, prepared), safetyTags);
    if (x) {
      const coocFrom = x.coocFrom === null ? null : s.tools[x.coocFrom]!.id;
      const explanation = explainTerms(tool, x.score, x.confidence, x.terms, coocFrom, last) + note;
      suggestions[k] = {
        tool,
        name: s.tools[index]!.name,
        safetyTags,
        score: x.score,
        confidence,
        terms: x.terms,
        coocFrom,
        explanation,
        memory: m?.vote ?? 0,
        gate,
      };
    } else {
      const w = c!.memory!;
      suggestions[k] = {
        tool,
        name: s.tools[index]!.name,
        safetyTags,
        score: w.score,
        confidence,
        terms: w.terms,
        coocFrom: null,
        explanation: `${tool}: from the intent memory${note}`,
        memory: m?.vote ?? 0,
        gate,
      };
    }
  }
  let report: unknown;
  const top = suggestions[0];
  if (req.explain && top) {
    report = view.gate.report(
      { id: top.tool, label: top.name },
      view.gate.gate("next-step", top.confidence, prepared, fallbacks),
      prepared,
      {
        cooc: top.terms.cooc.contribution,
        community: top.terms.community.contribution,
        recency: top.terms.recency.contribution,
        pagerank: top.terms.pagerank.contribution,
        memory: top.memory,
      },
      suggestions.slice(1, 4).map((x) => ({
        id: x.tool,
        score: x.confidence,
        reason: `confidence ${x.confidence.toFixed(3)} < ${top.confidence.toFixed(3)}`,
      })),
    );
  }
  return {
    project: view.project,
    context: req.context,
    mode: req.mode ?? "auto",
    weights,
    suggestions,
    ...gatedSummary(suggestions, (x) => x.tool, prepared, fallbacks, {
      empty: raw.reason ?? "no candidate follows this context",
    }),
    analytics: { fresh: a.fresh, ageMs: a.ageMs, communities: a.analytics.communityCount },
    timings: { totalMs: performance.now() - t0 },
    ...(report ? { report } : {}),
  };
}

/** The next-step job: the tools that most often follow the successful ones so far, gated. */
export const suggestNextJob = defineJob({
  request: suggestNextRequest,
  result: RESULT_SCHEMAS.suggestNext,
  libraryOptions: maskOptions,
  answerKey: "runSuggest",
  run: (ctx, req) => runSuggest(ctx.view, req),
});
