/**
 * What the three adapters (ai-sdk.ts, openai.ts, anthropic.ts) share: the slice of the library they call,
 * the mapping between a framework's tool names and toolgraph's tool ids, and the choice of tools from one
 * gated answer (docs/decisions/adapters.md).
 *
 * Only the public API is used (`src/index.ts`): the adapters are typed structurally against it, so they work over
 * an in-process `Toolgraph` as over any object with these methods.
 */
import { type RecommenderApi, type SearchResult, type SuggestNextResult, ToolgraphError } from "../index.ts";
import type { NameMap } from "./names.ts";

export { defaultToolId, NameMap, type NameMapOptions } from "./names.ts";

/** The methods of `Toolgraph` (from `openToolgraph`) an adapter calls. */
export type ToolgraphLike = Pick<RecommenderApi, "search" | "suggestNext" | "recordExecution">;

/** One tool an answer picked, with why: its rank in the answer, its score and the answer's explanation. */
export interface PickedTool {
  /** The framework's tool name. */
  name: string;
  /** The toolgraph tool id. */
  tool: string;
  /** 1-based rank in toolgraph's answer. */
  rank: number;
  /** Hybrid score (search) or confidence (next step), in [0, 1]. */
  score: number;
  explanation: string;
  /** The gate's decision on this item. */
  decision: "accepted" | "accepted-with-caution" | "abstained";
}

/** One selection: the tools chosen, where they came from, and the answer they came from. */
export interface Selection {
  /** The framework's tool names, in toolgraph's order (fallback tools after the picked ones). */
  names: string[];
  /** search: the first step (or a later one where next-step abstained); next: the next-step job; fallback: the gate abstained. */
  source: "search" | "next" | "fallback";
  /** The tools of this answer that are offered to the model, with rank, score and explanation. */
  picked: PickedTool[];
  /** True when the gate abstained on the answer (the fallback set was used). */
  abstained: boolean;
  /** The answer's id in the recommendation log, when it carried one (joins a later recorded execution). */
  recommendationId?: string | undefined;
}

type Answer =
  | Pick<SearchResult, "results" | "abstained" | "fallbacks">
  | Pick<SuggestNextResult, "suggestions" | "abstained" | "fallbacks">;

/** The answer's tools that the caller offers, best first, at most `k`, each with rank, score and explanation. */
export function pickedTools(answer: Answer, names: NameMap, k: number): PickedTool[] {
  const items =
    "results" in answer
      ? answer.results.map((r) => ({
          tool: r.tool,
          score: r.score,
          explanation: r.explanation,
          decision: r.gate.decision,
        }))
      : answer.suggestions.map((s) => ({
          tool: s.tool,
          score: s.confidence,
          explanation: s.explanation,
          decision: s.gate.decision,
        }));
  const out: PickedTool[] = [];
  for (const [i, it] of items.entries()) {
    const name = names.nameOf(it.tool);
    if (name === undefined) continue;
    out.push({ name, tool: it.tool, rank: i + 1, score: it.score, explanation: it.explanation, decision: it.decision });
    if (out.length >= k) break;
  }
  return out;
}

/**
 * What the model gets when the gate abstained: "all" (every offered tool: nothing is narrowed on a guess),
 * "answer" (the answer's own tools all the same, the gate's verdict only reported), or a list of names (with the
 * project's fallback tools that the caller offers before them).
 */
export type Fallback = "all" | "answer" | readonly string[];

/** The selection for one answer: its top `k` offered tools, or the fallback set when the gate abstained. */
export function selectFrom(
  answer: Answer & { recommendationId?: string },
  source: "search" | "next",
  names: NameMap,
  k: number,
  fallback: Fallback,
): Selection {
  const picked = pickedTools(answer, names, k);
  const base = { picked, recommendationId: answer.recommendationId };
  if (!answer.abstained || fallback === "answer")
    return { ...base, names: picked.map((p) => p.name), source, abstained: answer.abstained };
  if (fallback === "all") return { ...base, names: names.names, source: "fallback", abstained: true };
  const project = (answer.fallbacks ?? []).map((id) => names.nameOf(id)).filter((n): n is string => n !== undefined);
  return {
    ...base,
    names: [...new Set([...project, ...fallback.filter((n) => names.idOf(n) !== undefined)])],
    source: "fallback",
    abstained: true,
  };
}

/** Misuse of an adapter: the library's error family, naming the field. */
export function invalid(message: string): ToolgraphError {
  return new ToolgraphError("invalid-input", message);
}

/** A positive whole number option, or a clear error naming it. */
export function positiveInt(value: number | undefined, field: string, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1 || v > 100)
    throw invalid(`${field}: must be a whole number from 1 to 100 (got ${JSON.stringify(value)})`);
  return v;
}
