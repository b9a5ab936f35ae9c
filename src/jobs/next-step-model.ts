/**
 * `nextStepModel`: a project's next-step read model as the next-step core takes it (algorithms/prediction/
 * next-step.ts, next-step-memory.ts), with the tool ids by index, the weights of a mode as the next-step job uses
 * them, and the training examples the weight fit learns from. `executionSequences`: the stored executions the fits
 * read (the most recent, oldest first). Library-only reads for measurements (docs/decisions/layout.md): ranking
 * with `suggestNextSteps(model.model, …)` ranks as the job's core does, before its own steps (the intent
 * memory's vote, exclusions, the gate).
 */
import type { Csr } from "../../algorithms/graph/csr.ts";
import type { TrainingExample } from "../../algorithms/prediction/learned-weights.ts";
import type { NextStepModel, NextStepWeights } from "../../algorithms/prediction/next-step.ts";
import { recentSequences } from "../view/history.ts";
import type { ProjectView } from "../view/project-view.ts";
import { trainingExamples, weightsFor } from "./fit-next-step-weights.ts";
import { nextStepModel as modelOf, rawSuggestions } from "./next-scoring.ts";

/** A stored execution with its ordered steps. */
export interface ExecutionSequence {
  id: string;
  success: boolean;
  startedAt: Date;
  steps: { tool: string; success: boolean; dependsOn: number[] }[];
}

export type NextStepMode = "auto" | "seed" | "learned" | "markov";
const MODES: readonly NextStepMode[] = ["auto", "seed", "learned", "markov"];

export interface NextStepReadModel {
  /** Tool ids by index: the core's suggestions carry indices. */
  tools: readonly string[];
  /** Each tool's index by id. */
  index: ReadonlyMap<string, number>;
  /** The graph version the model is of. */
  version: number;
  model: NextStepModel;
  /** The mode's weights as the next-step job uses them ("auto": after a pending fit, as a batch caller waits). */
  weights: NextStepWeights;
  /** Recorded steps per tool, by index. */
  executions: ArrayLike<number>;
  /** The successions (what followed what) as a CSR over the tool indices: the first-order baseline's counts. */
  transitions: Csr;
  /** The weight fit's examples from `sequences`: each prefix's true next tool against `negatives` top candidates. */
  trainingExamples(sequences: readonly ExecutionSequence[], negatives?: number): TrainingExample[];
  /**
   * The core's suggestions as the job's items before the intent memory and the gate: tool ids, the four terms and
   * the explanation of each (`weights`: default the mode's; `limit` default 5). An unknown context tool is refused.
   */
  suggest(
    context: readonly string[],
    now: number,
    opts?: { limit?: number; weights?: NextStepWeights },
  ): ReturnType<typeof rawSuggestions>;
  /** Embeds query texts as the search does. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export async function nextStepReadModel(view: ProjectView, mode: NextStepMode = "auto"): Promise<NextStepReadModel> {
  if (!MODES.includes(mode))
    throw new RangeError(`nextStepModel: mode must be one of ${MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  const weights = await weightsFor(view, mode, { awaitFit: true });
  const s = view.snapshot;
  const a = view.analytics();
  const model = modelOf(s, a);
  return {
    tools: s.tools.map((t) => t.id),
    index: s.index,
    version: s.version,
    model,
    weights,
    executions: s.executions,
    transitions: s.transitions,
    suggest: (context, now, opts = {}) =>
      rawSuggestions(s, a, { context: [...context], limit: opts.limit }, now, opts.weights ?? weights),
    trainingExamples: (sequences, negatives = 10) => trainingExamples(s, a, [...sequences], negatives, model),
    embed: (texts) => view.embedQueries(texts),
  };
}

/** The most recent `limit` stored executions with their steps, oldest first. */
export async function executionSequences(view: ProjectView, limit: number): Promise<ExecutionSequence[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`executionSequences: limit must be a positive integer, got ${limit}`);
  return recentSequences(await view.executionHistory(), limit).map((e) => ({
    id: e.id,
    success: e.success,
    startedAt: e.startedAt,
    steps: e.steps.map((st) => ({ tool: st.tool, success: st.success, dependsOn: [...st.dependsOn] })),
  }));
}
