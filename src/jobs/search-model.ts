/**
 * `searchModel`: a project's search read model as the ranking core takes it (algorithms/search/rank-candidates.ts),
 * with the tool ids by index and the query embedder the search uses (its cache in front of the provider). A
 * library-only read for measurements: calling rankCandidates on it ranks as the search job's core does, before
 * the job's own steps (recall, the history guard's inputs, exclusions, routing, limits); docs/decisions/layout.md.
 */
import type { RankingData } from "../../algorithms/search/rank-candidates.ts";
import type { RecallOptions, RecallResult } from "../view/memory-recall.ts";
import type { ProjectView } from "../view/project-view.ts";
import { rankingData } from "./search-scoring.ts";

export interface SearchModel {
  /** Tool ids by index: the core's hits carry indices, its `memory` votes are keyed by them. */
  tools: readonly string[];
  /** The graph version the data is of. */
  version: number;
  data: RankingData;
  /** Embeds query texts as the search does. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /**
   * The search's similar-past-requests step as the core takes it (its `memory` option: `toolVotes`, keyed by tool
   * index) on the project's intent memory now; `vector` is the intent's embedding (`embed`).
   */
  recall(intent: string, vector: Float32Array, options?: RecallOptions): Promise<RecallResult>;
}

export async function searchModel(view: ProjectView): Promise<SearchModel> {
  const idx = await view.searchIndex();
  const s = view.snapshot;
  return {
    tools: s.tools.map((t) => t.id),
    version: s.version,
    data: rankingData(s, view.analytics(), idx),
    embed: (texts) => view.embedQueries(texts),
    recall: (intent, vector, options) => view.recall(intent, vector, options),
  };
}
