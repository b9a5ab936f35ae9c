/**
 * Next-step suggestion (docs/decisions/next-step-weights.md): score(B | context) = 0.6·cooc + 0.3·community +
 * 0.1·recency + 0.1·pagerank over the snapshot, its analytics (Louvain, PageRank) and tool recency. Weight modes:
 * "seed" (the formula's weights), "learned" (fitted on the project's own traces, see learnNextStepWeights), "markov"
 * (cooc only: the first-order baseline). Each suggestion lists its four terms.
 */
import {
  buildNextStepModel,
  type NextStepModel,
  type NextStepSuggestion,
  type NextStepWeights,
  suggestNextSteps,
} from "../../algorithms/prediction/next-step.ts";
import type { ToolIds } from "../../algorithms/prediction/next-step-memory.ts";
import { formatFixed } from "../formats/fixed.ts";
import type { AnalyticsView } from "../view/analytics.ts";
import { derivedKey } from "../view/derived.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import { resolveKnownTools, resolveTools } from "../view/resolve.ts";

export interface SuggestRequest {
  /** Tools that completed successfully so far, in order (last = most recent). */
  context: string[];
  /** Tools that failed or are unavailable: never suggested. */
  exclude?: string[] | undefined;
  limit?: number | undefined;
  /** Weights override (partial). Default: the mode's weights. */
  weights?: Partial<NextStepWeights> | undefined;
}

export interface SuggestionTerm {
  value: number;
  weight: number;
  contribution: number;
}

export interface RawSuggestion {
  tool: string;
  name: string;
  score: number;
  confidence: number;
  terms: { cooc: SuggestionTerm; community: SuggestionTerm; recency: SuggestionTerm; pagerank: SuggestionTerm };
  coocFrom: string | null;
  explanation: string;
}

const NEXT_STEP_MODEL = derivedKey<NextStepModel>("next-step model");
const TOOL_IDS = derivedKey<ToolIds>("tool ids", "catalog");

/** The snapshot's tool ids by index and their index by id, as the next-step cores take them (derived state of the catalog). */
export function toolIdsOf(s: GraphSnapshot): ToolIds {
  return s.derived(TOOL_IDS, () => ({ ids: s.tools.map((t) => t.id), index: s.index }));
}

/** The next-step model of the graph version and its analytics (derived state of the snapshot). */
export function nextStepModel(s: GraphSnapshot, a: AnalyticsView): NextStepModel {
  return s.derived(
    NEXT_STEP_MODEL,
    () =>
      buildNextStepModel({
        graph: s.csr,
        transitions: s.transitions,
        community: a.analytics.community,
        pagerank: a.analytics.pagerank,
        lastUsedAt: s.lastUsedAt,
      }),
    [a.analytics],
  );
}

export function explainSuggestion(sug: Omit<RawSuggestion, "explanation">, last: string | undefined): string {
  return explainTerms(sug.tool, sug.score, sug.confidence, sug.terms, sug.coocFrom, last);
}

/** The explanation of one suggestion (explainSuggestion) from its fields, without an intermediate object. */
export function explainTerms(
  tool: string,
  score: number,
  confidence: number,
  t: {
    readonly cooc: { readonly value: number };
    readonly community: { readonly value: number };
    readonly recency: { readonly value: number };
    readonly pagerank: { readonly value: number };
  },
  coocFrom: string | null,
  last: string | undefined,
): string {
  return (
    `${tool}: score ${formatFixed(score, 3)} (confidence ${formatFixed(confidence, 2)}) = cooc ${formatFixed(t.cooc.value, 2)}${coocFrom ? ` (after ${coocFrom})` : ""}, ` +
    `community ${t.community.value ? `shared with ${last ?? "context"}` : "different"}, recency ${formatFixed(t.recency.value, 2)}, pagerank ${formatFixed(t.pagerank.value, 2)}`
  );
}

export function rawSuggestions(
  s: GraphSnapshot,
  a: AnalyticsView,
  req: SuggestRequest,
  now: number,
  weights: Partial<NextStepWeights> | undefined,
): { suggestions: RawSuggestion[]; candidatesScored: number; reason?: string | undefined } {
  const context = resolveTools(s, req.context, "context");
  const excluded = new Set(resolveKnownTools(s, req.exclude));
  const model = nextStepModel(s, a);
  const r = suggestNextSteps(
    model,
    { context, now },
    {
      weights: req.weights ?? weights,
      limit: req.limit ?? 5,
      blocked: excluded.size > 0 ? (t) => excluded.has(t) : undefined,
    },
  );
  const last = req.context[req.context.length - 1];
  const suggestions = r.suggestions.map((x) => rawSuggestion(s, x, last));
  return { suggestions, candidatesScored: r.candidatesScored, reason: r.reason };
}

/** One model suggestion with tool ids, copied terms and its explanation (`last`: the context's last tool id). */
export function rawSuggestion(s: GraphSnapshot, x: NextStepSuggestion, last: string | undefined): RawSuggestion {
  const tool = s.tools[x.tool]!;
  const xt = x.terms;
  const terms = {
    cooc: { ...xt.cooc },
    community: { ...xt.community },
    recency: { ...xt.recency },
    pagerank: { ...xt.pagerank },
  };
  const coocFrom = x.coocFrom === null ? null : s.tools[x.coocFrom]!.id;
  return {
    tool: tool.id,
    name: tool.name,
    score: x.score,
    confidence: x.confidence,
    terms,
    coocFrom,
    explanation: explainTerms(tool.id, x.score, x.confidence, terms, coocFrom, last),
  };
}
