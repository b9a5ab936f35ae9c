/**
 * Recall from the intent memory (intent-memory.ts has the model): the k most similar past intents of a project by
 * fused similarity, their executions' votes for tools and capabilities, the similar past tasks' success for the
 * gate, and the explanation of each vote.
 */
import { fuseSimilarity } from "../../algorithms/memory/fuse-similarity.ts";
import {
  memoryScore,
  type PastExecution,
  similarSuccessRate,
  voteCapabilities,
  voteTools,
} from "../../algorithms/memory/knn-vote.ts";
import { bm25FullIdealScore, bm25IdealScore, searchBm25 } from "../../algorithms/search/bm25.ts";
import { DEFAULTS as GUARD_DEFAULTS } from "../../algorithms/search/history-guard.ts";
import { dotInt8 } from "../../algorithms/search/int8-vectors.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import type { SimilarPastSuccess as ThresholdSimilarPastSuccess } from "../../algorithms/thresholds/types.ts";
import { derivedKey } from "./derived.ts";
import type { Engine } from "./engine.ts";
import { type MemoryIndex, memoryIndex } from "./intent-memory.ts";
import { MEMORY_DEFAULTS } from "./memory-defaults.ts";
import { CandidateHeap, semanticNeighbours } from "./memory-neighbours.ts";

export interface RecallResult {
  /** Tool index → normalised vote in [0,1]. */
  toolVotes: Map<number, number> | undefined;
  /** Tool index → "used in 7 similar past requests, 6 succeeded". */
  explanations: Map<number, string>;
  capabilityVotes: Map<string, number>;
  neighbours: number;
  /**
   * Similar past tasks' success (similar_task_success signal of the gate): over the neighbours whose task
   * similarity reaches MEMORY_DEFAULTS.similarTaskFloor; `rate` null and `executions` 0 when none does (the
   * gate then says there was no similar past task). Undefined when the memory is silent.
   */
  similarSuccess: SimilarPastSuccess | undefined;
  /** The neighbours, best first (for plan and next-step). */
  past: PastExecution<string, string>[];
  /** Task similarity of each neighbour of `past` (same order): the fused similarity with BM25 over every query word. */
  taskSimilarity: number[];
  /**
   * The query's best fused similarity to a past intent that may vote (the history guard's input,
   * algorithms/search/history-guard.ts): 0 when none is similar, undefined when the memory holds no execution.
   */
  similarity: number | undefined;
  /**
   * The latest recording time (epoch ms) of the neighbours the query repeats (similarity ≥ the history guard's
   * high): what their runs could have known of the catalog. Undefined when it repeats none.
   */
  repeatRecordedAt?: number | undefined;
  reason?: string | undefined;
}

/** What the gate reads of the similar past tasks (algorithms/thresholds/types.ts), with the floor they passed. */
export type SimilarPastSuccess = ThresholdSimilarPastSuccess & { floor: number; best: number };

const SILENT: RecallResult = {
  toolVotes: undefined,
  explanations: new Map(),
  capabilityVotes: new Map(),
  neighbours: 0,
  similarSuccess: undefined,
  past: [],
  taskSimilarity: [],
  similarity: undefined,
  reason: "no similar past executions",
};

/** Silent recall while the memory's first build (its intents' embeddings) is still running. */
const MEMORY_BEING_BUILT: RecallResult = {
  ...SILENT,
  reason: "the intent memory is still being built (its past intents wait for the embedding model)",
};

/** Silent recall over a memory that has executions, none similar enough to vote: the history guard's similarity 0. */
const SILENT_WITH_HISTORY: RecallResult = { ...SILENT, similarity: 0 };

export interface RecallOptions {
  user?: string | undefined;
  k?: number;
  /** Executions that must not vote (evaluation leakage guard). */
  excludeIds?: ReadonlySet<string>;
  /** tokenize(intent), when the caller has it already. */
  tokens?: readonly string[];
}

export async function recallMemory(
  engine: Engine,
  project: string,
  intent: string,
  qv: Float32Array,
  options: RecallOptions = {},
): Promise<RecallResult> {
  // Without a query vector (the catalog is being embedded and the model is busy with it), a first build, which
  // embeds the past intents, is not waited for: it starts, and this answer has no memory vote.
  if (qv.length === 0 && !engine.memorySlots.get(project)?.built) {
    memoryIndex(engine, project).catch(() => undefined);
    return MEMORY_BEING_BUILT;
  }
  const mem = await memoryIndex(engine, project);
  if (mem.rows.length === 0) return SILENT;
  const s = await engine.snapshot(project);
  const k = options.k ?? MEMORY_DEFAULTS.k;
  const tokens = options.tokens ?? tokenize(intent);
  const lex = searchBm25(mem.bm25, tokens, MEMORY_DEFAULTS.channelTopN);
  const sem = semanticNeighbours(mem, qv, MEMORY_DEFAULTS.channelTopN);
  if (lex.length + sem.length === 0) return SILENT_WITH_HISTORY;
  // BM25 is normalised by max(best score, ideal score of the query) so that a past intent sharing one weak
  // word gets a low lexical similarity (the same floor as the tool fusion), keeping similarities absolute.
  let maxLex = 0;
  for (let j = 0; j < lex.length; j++) maxLex = Math.max(maxLex, lex[j]!.score);
  maxLex = Math.max(maxLex, bm25IdealScore(mem.bm25, tokens));
  // Task similarity's normaliser: every query word counts, known or not (a past intent sharing the one known
  // word of "get the version of the angular library" is not the same task).
  const taskLex = Math.max(maxLex, bm25FullIdealScore(mem.bm25, tokens));
  // Candidate texts (each hit list holds distinct ids): the semantic hits' scores by text through a stamped
  // scratch column (membership without a Map), then the BM25 hits fused with theirs, then the semantic-only
  // hits. A BM25 hit the semantic channel missed is fused with its exact int8 cosine, computed only when it
  // reaches the top of the heap: it enters with the bound fuse(bm25, cos = 1) (fusion is monotone in the
  // cosine), so texts come out in the order of a full sort (similarity desc, text asc) while those never
  // reached (once k executions are found) need no cosine.
  const scratch = scratchOf(mem);
  const stamp = ++scratch.epoch;
  for (let j = 0; j < sem.length; j++) {
    scratch.seen[sem[j]!.id] = stamp;
    scratch.semScore[sem[j]!.id] = sem[j]!.score;
  }
  const hasCosine = qv.length === mem.dims && mem.dims > 0;
  const cand = new CandidateHeap(lex.length + sem.length);
  for (let j = 0; j < lex.length; j++) {
    const t = lex[j]!.id;
    const lexical = lex[j]!.score;
    if (scratch.seen[t] === stamp)
      cand.push(
        t,
        fuseSimilarity({ lexical, semantic: scratch.semScore[t]! }, maxLex),
        lexical,
        true,
        scratch.semScore[t]!,
      );
    else if (hasCosine) cand.push(t, fuseSimilarity({ lexical, semantic: 1 }, maxLex), lexical, false, 1);
    else cand.push(t, fuseSimilarity({ lexical, semantic: 0 }, maxLex), lexical, true, 0);
    scratch.seen[t] = stamp + 1;
  }
  for (let j = 0; j < sem.length; j++) {
    const t = sem[j]!.id;
    if (scratch.seen[t] === stamp)
      cand.push(t, fuseSimilarity({ lexical: 0, semantic: sem[j]!.score }, maxLex), 0, true, sem[j]!.score);
  }
  scratch.epoch++;
  // Expand texts, best first, into their executions (most recent first), skipping other users' and excluded
  // ones, until k.
  cand.heapify();
  const rows = mem.rows;
  const ranked: number[] = [];
  const sims: number[] = [];
  const taskSims: number[] = [];
  while (ranked.length < k && cand.size > 0) {
    const t = cand.topId();
    if (!cand.topExact()) {
      const cosine = dotInt8(mem.vectors, t, qv);
      cand.settleTop(fuseSimilarity({ lexical: cand.topLexical(), semantic: cosine }, maxLex), cosine);
      continue;
    }
    const sim = cand.topScore();
    const taskSim = fuseSimilarity({ lexical: cand.topLexical(), semantic: cand.topSemantic() }, taskLex);
    cand.pop();
    for (let j = mem.memberOffsets[t]!; j < mem.memberOffsets[t + 1]! && ranked.length < k; j++) {
      const i = mem.members[j]!;
      const u = rows.userOf[i]!;
      if ((options.user && (u < 0 || rows.users[u] !== options.user)) || options.excludeIds?.has(rows.ids[i]!))
        continue;
      ranked.push(i);
      sims.push(sim);
      taskSims.push(taskSim);
    }
  }
  if (ranked.length === 0) return SILENT_WITH_HISTORY;
  const past: PastExecution<string, string>[] = new Array(ranked.length);
  for (let r = 0; r < ranked.length; r++) past[r] = pastExecution(mem, ranked[r]!, sims[r]!);
  const now = engine.now();
  const tv = voteTools(past, now, { limit: 50 });
  const cv = voteCapabilities(past, now, { limit: 20 });
  // memory(t) = normalised vote(t) × max similarity (algorithms/memory/knn-vote.ts memoryScore).
  const strength = sims[0]!;
  let repeatRecordedAt: number | undefined;
  for (let r = 0; r < ranked.length && sims[r]! >= GUARD_DEFAULTS.high; r++)
    repeatRecordedAt = Math.max(repeatRecordedAt ?? Number.NEGATIVE_INFINITY, rows.recordedAt[ranked[r]!]!);
  const toolVotes = new Map<number, number>();
  const explanations = new Map<number, string>();
  for (const v of tv.votes) {
    const i = s.index.get(v.key);
    if (i === undefined) continue;
    toolVotes.set(i, memoryScore(v.vote, strength));
    explanations.set(i, explanation(mem, v.executions, v.succeeded));
  }
  const capabilityVotes = new Map<string, number>();
  for (const v of cv.votes) capabilityVotes.set(v.key, memoryScore(v.vote, strength));
  return {
    toolVotes,
    explanations,
    capabilityVotes,
    neighbours: past.length,
    similarSuccess: similarPastSuccess(past, taskSims, now),
    past,
    taskSimilarity: taskSims,
    similarity: Math.min(1, strength),
    repeatRecordedAt,
  };
}

/**
 * The success of the neighbours that are similar tasks (task similarity ≥ MEMORY_DEFAULTS.similarTaskFloor),
 * weighted by that similarity and recency (knn-vote.ts similarSuccessRate); rate null when none is.
 */
function similarPastSuccess(
  past: readonly PastExecution<string, string>[],
  taskSims: readonly number[],
  now: number,
): SimilarPastSuccess {
  const floor = MEMORY_DEFAULTS.similarTaskFloor;
  const similar: PastExecution<string, string>[] = [];
  let best = 0;
  for (let r = 0; r < past.length; r++) {
    const sim = taskSims[r]!;
    if (sim > best) best = sim;
    if (sim >= floor) similar.push({ ...past[r]!, similarity: sim });
  }
  const sr = similarSuccessRate(similar, now);
  return { rate: sr.rate, executions: sr.rate === null ? 0 : similar.length, floor, best };
}

/** Execution i as a neighbour of similarity sim (the fields of memoryRow, without the intent). */
function pastExecution(mem: MemoryIndex, i: number, similarity: number): PastExecution<string, string> {
  const rows = mem.rows;
  const end = rows.stepOffsets[i + 1]!;
  const steps: { tool: string; success: boolean }[] = [];
  for (let j = rows.stepOffsets[i]!; j < end; j++)
    steps.push({ tool: rows.stepTools[rows.stepTool[j]!]!, success: rows.stepSuccess[j] === 1 });
  const e: {
    executionId: string;
    similarity: number;
    success: boolean;
    startedAt: number;
    steps: typeof steps;
    capability?: string;
    user?: string;
  } = {
    executionId: rows.ids[i]!,
    similarity,
    success: rows.success[i] === 1,
    startedAt: rows.startedAt[i]!,
    steps,
  };
  const cap = rows.capabilityOf[i]!;
  if (cap >= 0) e.capability = rows.capabilities[cap]!;
  const user = rows.userOf[i]!;
  if (user >= 0) e.user = rows.users[user]!;
  return e;
}

/** Explanation texts by executions × 4096 + succeeded: derived state of the memory index. */
const EXPLANATIONS = derivedKey<Map<number, string>>("memory explanations");

/** "memory: used in 7 similar past requests, 6 succeeded", built once per (executions, succeeded) and index. */
function explanation(mem: MemoryIndex, executions: number, succeeded: number): string {
  const cache = mem.derived.get(EXPLANATIONS, () => new Map<number, string>());
  const key = executions * 4096 + succeeded;
  let text = cache.get(key);
  if (text === undefined) {
    text = `memory: used in ${executions} similar past request${executions === 1 ? "" : "s"}, ${succeeded} succeeded`;
    if (executions < 4096 && succeeded < 4096) cache.set(key, text);
  }
  return text;
}

/**
 * Per-index scratch of recallMemory (used synchronously, between awaits): semantic score of each text and the
 * recall stamp that wrote it, so membership needs no Map.
 */
interface RecallScratch {
  epoch: number;
  seen: Uint32Array;
  semScore: Float64Array;
}

const SCRATCH = derivedKey<RecallScratch>("recall scratch");
function scratchOf(mem: MemoryIndex): RecallScratch {
  const n = mem.texts.length;
  const s = mem.derived.get(SCRATCH, () => ({ epoch: 0, seen: new Uint32Array(n), semScore: new Float64Array(n) }));
  if (s.epoch > 0xfffffff0) {
    s.epoch = 0;
    s.seen.fill(0);
  }
  return s;
}
