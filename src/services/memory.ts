/**
 * Intent memory (issue 9): what past executions did for similar intents.
 *
 * Each recorded execution with an intent keeps its text, its embedding (same provider and store as the
 * tools, keyed by text hash) and a BM25 entry. Identical intent texts are indexed once (agents repeat their
 * requests: the 100k-execution synthetic bench has 1.6k distinct intents) and the executions behind a text are
 * expanded after the similarity ranking, most recent first. recall(intent): the k = 20 most similar past intents of the
 * same project (optionally of the same user) by fused similarity 0.5·cos⁺ + 0.5·BM25/max(best, ideal)
 * (fuse-similarity.ts), each voting for the tools it used with similarity × outcome × recency decay
 * (knn-vote.ts); votes normalised to [0,1] by the best tool and scaled by the best neighbour's similarity.
 * With no past intents the memory is silent and every answer is exactly what it
 * would be without it.
 *
 * Freshness: when executions were recorded since the index was built, the next read triggers a rebuild
 * in the background (at most once per `rebuildAfterMs`, default 2 s) and keeps answering from the
 * previous index until the new one is ready (stale-while-revalidate): writes never block reads.
 */
import { groupByKey } from "../../algorithms/graph/group-by-key.ts";
import { fuseSimilarity } from "../../algorithms/memory/fuse-similarity.ts";
import { type PastExecution, similarSuccessRate, voteCapabilities, voteTools } from "../../algorithms/memory/knn-vote.ts";
import { type Bm25Index, bm25IdealScore, buildBm25Index, searchBm25 } from "../../algorithms/search/bm25.ts";
import { dotInt8, dotsInt8, type Int8Vectors, quantizeInt8 } from "../../algorithms/search/int8-vectors.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { type ScoredId, TopK } from "../../algorithms/search/top-k.ts";
import { buildVectorIndex, codeShortlist, type VectorIndex } from "../../algorithms/search/vector-index.ts";
import { type ExecutionMemoryRow, loadExecutionMemory } from "../store/reads.ts";
import type { Engine } from "./engine.ts";
import { ensureEmbeddings } from "./search-index.ts";

export const MEMORY_DEFAULTS = {
  k: 20,
  /** Candidates from each channel before fusion. */
  channelTopN: 60,
  rebuildAfterMs: 2000,
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
} as const;

/**
 * The past executions in columns (struct of arrays) instead of 100k row objects: at 100k executions the row
 * objects (a Date, an id string, a 64-hex intent hash, a steps array of objects each) took ~120 MiB of JS heap
 * and a major GC had to trace every one of them; the columns are typed arrays plus interned strings.
 * Execution i: ids[i], startedAt[i] (epoch ms), success[i], user users[userOf[i]] (−1: none), capability
 * capabilities[capabilityOf[i]] (−1: none), steps k ∈ [stepOffsets[i], stepOffsets[i + 1]): tool
 * stepTools[stepTool[k]], success stepSuccess[k].
 */
export interface MemoryRows {
  length: number;
  ids: string[];
  startedAt: Float64Array;
  success: Uint8Array;
  userOf: Int32Array;
  users: string[];
  capabilityOf: Int32Array;
  capabilities: string[];
  stepOffsets: Int32Array;
  stepTool: Int32Array;
  stepTools: string[];
  stepSuccess: Uint8Array;
}

/** Past execution i of the memory as one object (built on demand from the columns). */
export function memoryRow(
  mem: MemoryIndex,
  i: number,
): { id: string; intent: string; user: string | null; capability: string | null; startedAt: number; success: boolean; steps: { tool: string; success: boolean }[] } {
  const rows = mem.rows;
  const steps: { tool: string; success: boolean }[] = [];
  for (let k = rows.stepOffsets[i]!; k < rows.stepOffsets[i + 1]!; k++) steps.push({ tool: rows.stepTools[rows.stepTool[k]!]!, success: rows.stepSuccess[k] === 1 });
  const user = rows.userOf[i]!;
  const cap = rows.capabilityOf[i]!;
  return {
    id: rows.ids[i]!,
    intent: mem.texts[mem.textOf[i]!]!,
    user: user >= 0 ? rows.users[user]! : null,
    capability: cap >= 0 ? rows.capabilities[cap]! : null,
    startedAt: rows.startedAt[i]!,
    success: rows.success[i] === 1,
    steps,
  };
}

/** Columns of the loaded rows (interning users, capabilities and tool ids). */
export function toMemoryRows(rows: readonly ExecutionMemoryRow[]): MemoryRows {
  const n = rows.length;
  const intern = (table: string[], index: Map<string, number>, v: string | null): number => {
    if (v === null) return -1;
    let k = index.get(v);
    if (k === undefined) {
      k = table.length;
      table.push(v);
      index.set(v, k);
    }
    return k;
  };
  const users: string[] = [];
  const userIndex = new Map<string, number>();
  const capabilities: string[] = [];
  const capIndex = new Map<string, number>();
  const stepTools: string[] = [];
  const toolIndex = new Map<string, number>();
  let steps = 0;
  for (const r of rows) steps += r.steps.length;
  const out: MemoryRows = {
    length: n,
    ids: new Array<string>(n),
    startedAt: new Float64Array(n),
    success: new Uint8Array(n),
    userOf: new Int32Array(n),
    users,
    capabilityOf: new Int32Array(n),
    capabilities,
    stepOffsets: new Int32Array(n + 1),
    stepTool: new Int32Array(steps),
    stepTools,
    stepSuccess: new Uint8Array(steps),
  };
  let k = 0;
  rows.forEach((r, i) => {
    out.ids[i] = r.id;
    out.startedAt[i] = r.startedAt.getTime();
    out.success[i] = r.success ? 1 : 0;
    out.userOf[i] = intern(users, userIndex, r.user);
    out.capabilityOf[i] = intern(capabilities, capIndex, r.capability);
    out.stepOffsets[i] = k;
    for (const st of r.steps) {
      out.stepTool[k] = intern(stepTools, toolIndex, st.tool);
      out.stepSuccess[k] = st.success ? 1 : 0;
      k++;
    }
  });
  out.stepOffsets[n] = k;
  return out;
}

export interface MemoryIndex {
  rows: MemoryRows;
  /** Distinct intent texts; BM25 documents, vectors and codes are indexed by text, not by row. */
  texts: string[];
  /** The text of row i. */
  textOf: Int32Array;
  /** Rows of text t: members[memberOffsets[t] .. memberOffsets[t + 1]), most recent first. */
  memberOffsets: Int32Array;
  members: Int32Array;
  bm25: Bm25Index;
  /** Intent vectors, int8-quantised (the float vectors are dropped after the build). */
  vectors: Int8Vectors;
  dims: number;
  /** Sign-code first stage (its float reference dropped: only codes, scales and the rotation are kept). */
  vindex: VectorIndex | undefined;
  /** performance.now() at build (monotonic; throttles rebuilds). */
  builtAt: number;
  executions: number;
}

export interface RecallResult {
  /** Tool index → normalised vote in [0,1]. */
  toolVotes: Map<number, number> | undefined;
  /** Tool index → "used in 7 similar past requests, 6 succeeded". */
  explanations: Map<number, string>;
  capabilityVotes: Map<string, number>;
  neighbours: number;
  /** Similar past executions' success (similar_past_success signal of the gate). */
  similarSuccess: { rate: number; executions: number } | undefined;
  /** The neighbours, best first (for plan and next-step). */
  past: PastExecution<string, string>[];
  reason?: string | undefined;
}

const SILENT: RecallResult = {
  toolVotes: undefined,
  explanations: new Map(),
  capabilityVotes: new Map(),
  neighbours: 0,
  similarSuccess: undefined,
  past: [],
  reason: "no similar past executions",
};

interface Slot {
  index: Promise<MemoryIndex>;
  dirty: boolean;
  rebuilding?: Promise<MemoryIndex> | undefined;
}

const slots = new WeakMap<Engine, Map<string, Slot>>();

/** Marks a project's memory stale (after recorded executions). */
export function markMemoryDirty(engine: Engine, project: string): void {
  const slot = slots.get(engine)?.get(project);
  if (slot) slot.dirty = true;
}

async function buildMemory(engine: Engine, project: string): Promise<MemoryIndex> {
  const loaded = await loadExecutionMemory(engine.db, project);
  const { texts, memberOffsets, members } = groupByText(loaded.map((r) => r.intent));
  const rows = toMemoryRows(loaded);
  const textOf = new Int32Array(rows.length);
  for (let t = 0; t < texts.length; t++) for (let m = memberOffsets[t]!; m < memberOffsets[t + 1]!; m++) textOf[members[m]!] = t;
  const bm25 = buildBm25Index(texts.map((t) => tokenize(t)));
  const { vectors } = await ensureEmbeddings(engine.db, project, engine.embedder, texts);
  const dims = vectors.find((v) => v.length > 0)?.length ?? 0;
  const packed = new Float32Array(texts.length * dims);
  vectors.forEach((v, i) => {
    if (v.length === dims) packed.set(v, i * dims);
  });
  // Memory budget (100k past executions ≤ 200 MB): keep 1-bit codes for the first stage and int8 vectors
  // for re-ranking, not the float32 matrix (2 KiB per 512-d vector).
  const vindex = dims > 0 && texts.length > 0 ? { ...buildVectorIndex(packed, dims), vectors: new Float32Array(0) } : undefined;
  return {
    rows,
    textOf,
    texts,
    memberOffsets,
    members,
    bm25,
    vectors: quantizeInt8(packed, dims),
    dims,
    vindex,
    builtAt: performance.now(),
    executions: rows.length,
  };
}

export async function memoryIndex(engine: Engine, project: string): Promise<MemoryIndex> {
  let m = slots.get(engine);
  if (!m) {
    m = new Map();
    slots.set(engine, m);
  }
  const slot = m.get(project);
  if (!slot) {
    const fresh: Slot = { index: buildMemory(engine, project), dirty: false };
    m.set(project, fresh);
    fresh.index.catch(() => m.delete(project));
    return fresh.index;
  }
  const built = await slot.index.catch(() => undefined);
  if (!built) {
    m.delete(project);
    return memoryIndex(engine, project);
  }
  if (slot.dirty && !slot.rebuilding && performance.now() - built.builtAt >= MEMORY_DEFAULTS.rebuildAfterMs) {
    slot.dirty = false;
    const next = buildMemory(engine, project);
    slot.rebuilding = next;
    next.then(
      () => {
        slot.index = next;
        slot.rebuilding = undefined;
      },
      () => {
        slot.dirty = true;
        slot.rebuilding = undefined;
      },
    );
  }
  return built;
}

export interface RecallOptions {
  user?: string | undefined;
  k?: number;
  /** Executions that must not vote (evaluation leakage guard). */
  excludeIds?: ReadonlySet<string>;
}

export async function recallMemory(engine: Engine, project: string, intent: string, qv: Float32Array, options: RecallOptions = {}): Promise<RecallResult> {
  const mem = await memoryIndex(engine, project);
  if (mem.rows.length === 0) return SILENT;
  const s = await engine.snapshot(project);
  const k = options.k ?? MEMORY_DEFAULTS.k;
  const tokens = tokenize(intent);
  const lex = new Map<number, number>();
  for (const h of searchBm25(mem.bm25, tokens, MEMORY_DEFAULTS.channelTopN)) lex.set(h.id, h.score);
  const sem = new Map<number, number>();
  for (const h of semanticNeighbours(mem, qv, MEMORY_DEFAULTS.channelTopN)) sem.set(h.id, h.score);
  const textIds = [...new Set([...lex.keys(), ...sem.keys()])];
  if (textIds.length === 0) return SILENT;
  // BM25 is normalised by max(best score, ideal score of the query) so that a past intent sharing one weak
  // word gets a low lexical similarity (the same floor as the tool fusion), keeping similarities absolute.
  const maxLex = Math.max(0, ...lex.values(), bm25IdealScore(mem.bm25, tokens));
  const byText = textIds
    .map((t) => ({ t, sim: fuseSimilarity({ lexical: lex.get(t) ?? 0, semantic: sem.get(t) ?? cosineRow(mem, t, qv) }, maxLex) }))
    .filter((x) => x.sim >= MEMORY_DEFAULTS.minSimilarity)
    .sort((a, b) => b.sim - a.sim || a.t - b.t);
  // Expand texts into their executions (most recent first), skipping other users' and excluded ones.
  const ranked: { i: number; sim: number }[] = [];
  for (const { t, sim } of byText) {
    for (let m = mem.memberOffsets[t]!; m < mem.memberOffsets[t + 1]! && ranked.length < k; m++) {
      const i = mem.members[m]!;
      const rows = mem.rows;
      const u = rows.userOf[i]!;
      if ((options.user && (u < 0 || rows.users[u] !== options.user)) || options.excludeIds?.has(rows.ids[i]!)) continue;
      ranked.push({ i, sim });
    }
    if (ranked.length >= k) break;
  }
  if (ranked.length === 0) return SILENT;
  const past: PastExecution<string, string>[] = ranked.map(({ i, sim }) => {
    const r = memoryRow(mem, i);
    return {
      executionId: r.id,
      similarity: sim,
      success: r.success,
      startedAt: r.startedAt,
      steps: r.steps,
      ...(r.capability !== null ? { capability: r.capability } : {}),
      ...(r.user !== null ? { user: r.user } : {}),
    };
  });
  const now = engine.now();
  const tv = voteTools(past, now, { limit: 50 });
  const cv = voteCapabilities(past, now, { limit: 20 });
  // Votes are normalised to [0,1] by the best tool, then scaled by the best neighbour's similarity, so
  // weak neighbours cannot cast full-strength votes: memory(t) = vote(t) × max similarity.
  const strength = ranked[0]!.sim;
  const toolVotes = new Map<number, number>();
  const explanations = new Map<number, string>();
  for (const v of tv.votes) {
    const i = s.index.get(v.key);
    if (i === undefined) continue;
    toolVotes.set(i, v.vote * strength);
    explanations.set(i, `memory: used in ${v.executions} similar past request${v.executions === 1 ? "" : "s"}, ${v.succeeded} succeeded`);
  }
  const sr = similarSuccessRate(past, now);
  return {
    toolVotes,
    explanations,
    capabilityVotes: new Map(cv.votes.map((v) => [v.key, v.vote * strength])),
    neighbours: past.length,
    similarSuccess: sr.rate === null ? undefined : { rate: sr.rate, executions: past.length },
    past,
  };
}

/**
 * The topN distinct past intents by cosine to qv: sign-code stages over all of them (a 128-bit prefix first
 * when there are many), then int8 re-ranking of a shortlist of max(256, 0.5 % of n). Empty when the memory has
 * no vectors or qv has another dimension.
 */
export function semanticNeighbours(mem: MemoryIndex, qv: Float32Array, topN: number): ScoredId[] {
  const n = mem.texts.length;
  if (!mem.vindex || qv.length !== mem.dims || n === 0) return [];
  const shortlist = codeShortlist(mem.vindex, qv, Math.min(n, Math.max(256, Math.ceil(MEMORY_DEFAULTS.shortlistFraction * n))), {
    prefilterFactor: MEMORY_DEFAULTS.prefilterFactor,
  });
  const scores = dotsInt8(mem.vectors, shortlist, qv);
  const exact = new TopK(Math.min(n, topN));
  for (let j = 0; j < shortlist.length; j++) exact.offer(shortlist[j]!, scores[j]!);
  return exact.result();
}

function cosineRow(mem: MemoryIndex, i: number, q: Float32Array): number {
  if (q.length !== mem.dims || mem.dims === 0) return 0;
  return dotInt8(mem.vectors, i, q);
}

/** Distinct texts in first-seen order, and for each the rows carrying it, most recent (last) first. */
export function groupByText(intents: readonly string[]): { texts: string[]; memberOffsets: Int32Array; members: Int32Array } {
  const g = groupByKey(intents, "descending");
  return { texts: g.keys, memberOffsets: g.offsets, members: g.members };
}
