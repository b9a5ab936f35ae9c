/**
 * `recall`: what past requests similar to an intent did — the intent memory read on its own
 * (view/intent-memory.ts; algorithms/README.md, "Intent memory"). The same recall the search, plan and gate use,
 * embedded the same way (the query-embedding cache), answered as plain data: the neighbours best first with their
 * fused and task similarities, the tools they vote for, and the similar past tasks' success. Library-only, and
 * `excludeIds` (executions that must not vote: a measurement's held-out ones) with it: docs/decisions/layout.md.
 */
import { ToolgraphError } from "../contract/errors.ts";
import type { ProjectView } from "../view/project-view.ts";
import type { SimilarPastSuccess } from "../view/memory-recall.ts";

export interface RecallOptions {
  /** Only this user's past executions vote. */
  user?: string | undefined;
  /** Most neighbours (executions). Default MEMORY_DEFAULTS.k (20). */
  k?: number | undefined;
  /** Executions that must not vote (a measurement's held-out ones). */
  excludeIds?: ReadonlySet<string> | undefined;
  /** The intent's embedding when the caller has it (`searchModel().embed`): not embedded again. */
  vector?: Float32Array | undefined;
}

export interface RecalledExecution {
  executionId: string;
  /** Fused similarity of its intent to the query (0.5·cos⁺ + 0.5·BM25 over the known words). */
  similarity: number;
  /** Task similarity: the same fusion with every query word in the BM25 normaliser (the gate's floor applies to it). */
  taskSimilarity: number;
  success: boolean;
  /** Epoch ms. */
  startedAt: number;
  steps: { tool: string; success: boolean }[];
  capability?: string;
  user?: string;
}

export interface RecallAnswer {
  /** The best neighbour's similarity (the history guard's input); 0 when none is similar, null with no history. */
  similarity: number | null;
  /** The neighbours, best first. */
  past: RecalledExecution[];
  /** The tools they vote for, best first: normalised vote × the best similarity, and why. */
  tools: { tool: string; vote: number; explanation: string }[];
  /** The capabilities they vote for, best first (ties by name): normalised vote × the best similarity. */
  capabilities: { capability: string; vote: number }[];
  /** The similar past tasks' success (the gate's similar_task_success); null when the memory is silent. */
  similarSuccess: SimilarPastSuccess | null;
}

export async function recallPast(
  view: ProjectView,
  intent: string,
  options: RecallOptions = {},
): Promise<RecallAnswer> {
  if (typeof intent !== "string" || intent.trim() === "")
    throw new ToolgraphError("invalid-input", "intent: a non-empty text is required", { field: "intent" });
  if (options.k !== undefined && !(Number.isInteger(options.k) && options.k >= 1))
    throw new ToolgraphError("invalid-input", `k: a positive integer is required, got ${options.k}`, { field: "k" });
  if (
    options.vector !== undefined &&
    !(options.vector instanceof Float32Array && options.vector.length === view.embedder.dimensions)
  )
    throw new ToolgraphError(
      "invalid-input",
      `vector: a Float32Array of ${view.embedder.dimensions} dimensions (the project's embedder) is required`,
      { field: "vector" },
    );
  const qv = options.vector ?? (await view.embedQueries([intent]))[0]!;
  const m = await view.recall(intent, qv, {
    ...(options.user !== undefined && { user: options.user }),
    ...(options.k !== undefined && { k: options.k }),
    ...(options.excludeIds !== undefined && { excludeIds: options.excludeIds }),
  });
  const s = view.snapshot;
  const tools = [...(m.toolVotes ?? new Map<number, number>())]
    .map(([i, vote]) => ({ tool: s.tools[i]!.id, vote, explanation: m.explanations.get(i) ?? "" }))
    .sort((a, b) => b.vote - a.vote || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  return {
    similarity: m.similarity ?? null,
    past: m.past.map((p, r) => ({
      executionId: p.executionId,
      similarity: p.similarity,
      taskSimilarity: m.taskSimilarity[r]!,
      success: p.success,
      startedAt: p.startedAt,
      steps: p.steps.map((st) => ({ tool: st.tool, success: st.success })),
      ...(p.capability !== undefined && { capability: p.capability }),
      ...(p.user !== undefined && { user: p.user }),
    })),
    tools,
    capabilities: [...m.capabilityVotes]
      .map(([capability, vote]) => ({ capability, vote }))
      .sort((a, b) => b.vote - a.vote || (a.capability < b.capability ? -1 : a.capability > b.capability ? 1 : 0)),
    similarSuccess: m.similarSuccess ?? null,
  };
}
