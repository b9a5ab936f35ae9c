import { type Bm25Index, buildBm25Index } from "../../algorithms/search/bm25.ts";
import { type Int8Vectors, quantizeInt8 } from "../../algorithms/search/int8-vectors.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { buildVectorIndexSteps, type VectorIndex } from "../../algorithms/search/vector-index.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "./background.ts";
import { DerivedState } from "./derived.ts";
import type { Engine } from "./engine.ts";
import { executionHistory, memoryRowsOf } from "./history.ts";
import { appendMemory, dueForFullBuild } from "./memory-append.ts";
import { MEMORY_DEFAULTS } from "./memory-defaults.ts";
import { groupByText } from "./memory-neighbours.ts";
import { appendMemoryRowsSteps, type MemoryRows } from "./memory-rows.ts";
import { ensureEmbeddings } from "./search-index.ts";

export { MEMORY_DEFAULTS } from "./memory-defaults.ts";
export { groupByText, semanticNeighbours } from "./memory-neighbours.ts";
export { type MemoryRows, memoryRow, toMemoryRows } from "./memory-rows.ts";

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
  /** Texts at the last full build (an append keeps its centre; memory-append.ts dueForFullBuild). */
  fullBuildTexts: number;
  /** Derived state of this build (recall scratch, explanation texts): see view/derived.ts. */
  derived: DerivedState;
}

/** A project's intent memory in one engine (Engine.memorySlots). */
export interface MemorySlot {
  index: Promise<MemoryIndex>;
  dirty: boolean;
  rebuilding?: Promise<MemoryIndex> | undefined;
  /** A full build after appends (re-centred codes), swapped in when done unless a newer index replaced it. */
  recentring?: Promise<MemoryIndex> | undefined;
  /** Set once the first build is in (a recall without a query vector does not wait for that build). */
  built?: boolean | undefined;
}

/** Marks a project's memory stale (after recorded executions). */
export function markMemoryDirty(engine: Engine, project: string): void {
  const slot = engine.memorySlots.get(project);
  if (slot) slot.dirty = true;
}

async function buildMemory(engine: Engine, project: string): Promise<MemoryIndex> {
  const loaded = memoryRowsOf(await executionHistory(engine, project));
  // Each stage is tens of ms at 17.5k executions: a turn of the event loop between them.
  await yieldToEventLoop();
  const { texts, memberOffsets, members } = groupByText(loaded.map((r) => r.intent));
  await yieldToEventLoop();
  const rows = await drainInSlices(appendMemoryRowsSteps(undefined, loaded));
  const textOf = new Int32Array(rows.length);
  for (let t = 0; t < texts.length; t++)
    for (let m = memberOffsets[t]!; m < memberOffsets[t + 1]!; m++) textOf[members[m]!] = t;
  await yieldToEventLoop();
  const slice = slicer();
  const tokens: string[][] = [];
  for (const t of texts) {
    tokens.push(tokenize(t));
    await slice();
  }
  const bm25 = buildBm25Index(tokens);
  await yieldToEventLoop();
  const { vectors } = await ensureEmbeddings(engine.db, project, engine.embedder, texts);
  const dims = vectors.find((v) => v.length > 0)?.length ?? 0;
  const packed = new Float32Array(texts.length * dims);
  vectors.forEach((v, i) => {
    if (v.length === dims) packed.set(v, i * dims);
  });
  // Memory budget (100k past executions ≤ 200 MB): keep 1-bit codes for the first stage and int8 vectors
  // for re-ranking, not the float32 matrix (2 KiB per 512-d vector).
  const vindex =
    dims > 0 && texts.length > 0
      ? {
          ...(await drainInSlices(buildVectorIndexSteps(packed, dims, { vectorStore: "reference", ivfFrom: 0 }))),
          vectors: new Float32Array(0),
        }
      : undefined;
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
    fullBuildTexts: texts.length,
    derived: new DerivedState(),
  };
}

export async function memoryIndex(engine: Engine, project: string): Promise<MemoryIndex> {
  const m = engine.memorySlots;
  const slot = m.get(project);
  if (!slot) {
    const fresh: MemorySlot = { index: buildMemory(engine, project), dirty: false };
    m.set(project, fresh);
    fresh.index.then(
      () => {
        fresh.built = true;
      },
      () => m.delete(project),
    );
    return fresh.index;
  }
  const built = await slot.index.catch(() => undefined);
  if (!built) {
    m.delete(project);
    return memoryIndex(engine, project);
  }
  if (slot.dirty && !slot.rebuilding && performance.now() - built.builtAt >= MEMORY_DEFAULTS.rebuildAfterMs) {
    slot.dirty = false;
    const next = refreshed(engine, project, built);
    slot.rebuilding = next;
    next.then(
      (mem) => {
        slot.index = next;
        slot.rebuilding = undefined;
        recentreLater(engine, project, slot, next, mem);
      },
      () => {
        slot.dirty = true;
        slot.rebuilding = undefined;
      },
    );
  }
  return built;
}

/**
 * The project's intent memory with every recorded execution in it: rebuilds now when executions were recorded
 * since the last build (recall keeps answering from the previous index meanwhile, and rebuilds at most every
 * `rebuildAfterMs` on its own). What `Toolgraph.settle` waits for.
 */
export async function settledMemory(engine: Engine, project: string): Promise<MemoryIndex> {
  const slot = engine.memorySlots.get(project);
  if (!slot) return memoryIndex(engine, project);
  if (slot.rebuilding) await slot.rebuilding.catch(() => undefined);
  if (slot.recentring) await slot.recentring.catch(() => undefined);
  if (!slot.dirty) return slot.index;
  slot.dirty = false;
  const next = slot.index.catch(() => undefined).then((held) => refreshed(engine, project, held));
  slot.index = next;
  next.then(
    (mem) => recentreLater(engine, project, slot, next, mem),
    () => undefined,
  );
  return next;
}

/** The memory with the executions recorded since `held`: appended (memory-append.ts), else built in full. */
async function refreshed(engine: Engine, project: string, held: MemoryIndex | undefined): Promise<MemoryIndex> {
  const appended = held ? await appendMemory(engine, project, held) : undefined;
  return appended ?? buildMemory(engine, project);
}

/**
 * After an append that took the texts past MEMORY_DEFAULTS.rebuildAfterGrowth of the last full build: a full build
 * in the background (the codes re-centred on today's mean), swapped in when done unless a newer index replaced
 * `current` meanwhile (then the next append schedules it again).
 */
function recentreLater(
  engine: Engine,
  project: string,
  slot: MemorySlot,
  current: Promise<MemoryIndex>,
  mem: MemoryIndex,
): void {
  if (slot.recentring || mem.fullBuildTexts === mem.texts.length || !dueForFullBuild(mem)) return;
  const full = buildMemory(engine, project);
  slot.recentring = full;
  full
    .then(
      () => {
        if (slot.index === current) slot.index = full;
      },
      () => undefined,
    )
    .finally(() => {
      slot.recentring = undefined;
    });
}
