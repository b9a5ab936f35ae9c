/** The intent memory's defaults, each with its measurement (bench/memory.ts; docs/decisions/similar-task-floor.md). */
export const MEMORY_DEFAULTS = {
  k: 20,
  /** Candidates from each channel before fusion. */
  channelTopN: 60,
  rebuildAfterMs: 2000,
  /**
   * An appended memory codes new texts on the centre of its last full build; once the texts have grown by this share
   * since, a full build runs in the background. Measured: docs/decisions/ingestion-first-answer.md ("Fourth pass").
   */
  rebuildAfterGrowth: 0.25,
  /** Minimum fused similarity for a past execution to vote. */
  minSimilarity: 0.05,
  /**
   * Semantic channel: int8 re-ranking of max(256, shortlistFraction · n) sign-code candidates. 0.5 % (500 at
   * 100k) keeps the top-20 recall against an exact float scan of the 100k unique-intent bench (0.949, as 1 %
   * did) for half the re-ranking; below 25.6k intents the 256 floor decides.
   */
  shortlistFraction: 0.005,
  /**
   * The 128-bit prefix stage keeps prefilterFactor × the shortlist for the full-code stage. 4 (the vector index
   * default is 8) halves the full-code gathers (~0.2 ms at 100k) for a top-20 recall of 0.948 against 0.949
   * (bench/memory.ts, 100k unique intents).
   */
  prefilterFactor: 4,
  /**
   * A past execution is a *similar task* (the gate's similar_task_success rule, the plan's prerequisite
   * evidence) only when its task similarity — the fused similarity with BM25 normalised over every query word,
   * known or not (bm25FullIdealScore) — reaches this floor. Measured: docs/decisions/similar-task-floor.md.
   */
  similarTaskFloor: 0.5,
} as const;
