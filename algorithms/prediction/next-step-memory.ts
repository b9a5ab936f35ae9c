/**
 * The next step with the intent memory's vote (the next-step job's scoring, docs/decisions/next-step-weights.md):
 *
 *   confidence'(B) = 1 − (1 − confidence(B))·(1 − μ·vote(B)),   μ = NEXT_MEMORY_WEIGHT = 0.8
 *
 * where confidence(B) is the next-step model's (next-step.ts: score / Σ w) and vote(B) ∈ [0, 1] is "what followed
 * this context in similar past executions" (memory/knn-vote.ts `nextAfter`); no vote leaves the confidence bit
 * for bit (memory/noisy-or.ts). A tool only the memory proposes (not among the model's candidates) is scored by
 * the same weighted terms (`memoryCandidate`), so it competes on the same scale.
 *
 * `topNextStep`: the top-1 answer as the job ranks it — the model's 15 best candidates plus the memory's, best
 * first by confidence', then score, then tool id (ascending). Used by the gate's calibration pairs and by the
 * bench on a public read model (tg.nextStepModel()).
 *
 * Invariants: pure (no I/O, no clock: `now` is given); confidence' ≥ confidence; the last context tool is never
 * a memory candidate; context ids unknown to `index` are left out (none left → undefined).
 */
import { nextAfter, type PastExecution } from "../memory/knn-vote.ts";
import { noisyOr } from "../memory/noisy-or.ts";
import {
  type NextStepModel,
  type NextStepWeights,
  nextStepTerms,
  suggestNextSteps,
  weighNextStepTerms,
} from "./next-step.ts";

/** μ: the weight of the intent memory's vote in the next step's confidence. */
export const NEXT_MEMORY_WEIGHT = 0.8;

/** Next-step confidence lifted by the intent memory's vote v ∈ [0,1]: 1 − (1 − c)·(1 − 0.8·v). */
export function withMemoryVote(confidence: number, vote: number | undefined): number {
  return noisyOr(confidence, NEXT_MEMORY_WEIGHT, vote);
}

/** A tool only the intent memory proposed (not among the model's candidates), scored by the same weighted terms. */
export function memoryCandidate(
  model: NextStepModel,
  context: number[],
  now: number,
  tool: number,
  weights: NextStepWeights,
) {
  return weighNextStepTerms(nextStepTerms(model, { context, now }, tool), weights);
}

/** The tools of a next-step model by index (`ids`) and their index by id. */
export interface ToolIds {
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
}

/**
 * The top-1 next step as the next-step job ranks it: the model's candidates (limit 15), the intent memory's
 * "what followed" votes added, best first by confidence', then score, then tool id.
 */
export function topNextStep(
  tools: ToolIds,
  model: NextStepModel,
  context: readonly string[],
  now: number,
  weights: NextStepWeights,
  past?: readonly PastExecution<string, string>[],
): { tool: string; confidence: number } | undefined {
  const ctx = context.map((t) => tools.index.get(t)).filter((i): i is number => i !== undefined);
  if (ctx.length === 0) return undefined;
  const r = suggestNextSteps(model, { context: ctx, now }, { weights, limit: 15 });
  const list = new Map(r.suggestions.map((x) => [tools.ids[x.tool]!, { score: x.score, confidence: x.confidence }]));
  let votes = new Map<string, number>();
  if (past && past.length > 0) {
    votes = new Map(nextAfter(past, [...context], now, { limit: 20 }).votes.map((v) => [v.key, v.vote]));
    const last = context[context.length - 1];
    for (const tool of votes.keys()) {
      const i = tools.index.get(tool);
      if (list.has(tool) || tool === last || i === undefined) continue;
      const { score, confidence } = memoryCandidate(model, ctx, now, i, weights);
      list.set(tool, { score, confidence });
    }
  }
  let best: { tool: string; confidence: number; score: number } | undefined;
  for (const [tool, x] of list) {
    const v = votes.get(tool);
    const confidence = withMemoryVote(x.confidence, v);
    if (
      !best ||
      confidence > best.confidence ||
      (confidence === best.confidence && (x.score > best.score || (x.score === best.score && tool < best.tool)))
    ) {
      best = { tool, confidence, score: x.score };
    }
  }
  return best && { tool: best.tool, confidence: best.confidence };
}
