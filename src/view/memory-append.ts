/**
 * The intent memory after a batch of executions, in proportion to the batch (docs/decisions/ingestion-first-answer.md,
 * "Fourth pass"): the held index extended by the new executions — their columns appended, their intents grouped
 * onto the held texts, only the new texts tokenised (BM25 appended, equal to a build over all texts), embedded
 * or read by hash, quantised, and coded with the vector index's existing centre and rotation.
 *
 * Equal to a full build in everything but the sign codes: rows, texts, members, BM25 and int8 vectors are the same
 * values; the codes of the new texts are centred on the mean of the texts of the last full build, not of all of
 * them, so a shortlist may differ from a rebuild's where the true neighbours sit at its edge (the re-rank stays on
 * the exact int8 cosines). A full build runs in the background once the texts have grown by
 * MEMORY_DEFAULTS.rebuildAfterGrowth since the last one (`dueForFullBuild`).
 *
 * An append needs the held history as a prefix of today's (same executions, same order): otherwise, or when the
 * held index has no vectors, the caller builds in full.
 */
import { appendBm25Index } from "../../algorithms/search/bm25-append.ts";
import { appendInt8 } from "../../algorithms/search/int8-vectors.ts";
import { tokenize } from "../../algorithms/search/tokenize.ts";
import { appendVectorIndexSteps } from "../../algorithms/search/vector-index.ts";
import { drainInSlices, slicer, yieldToEventLoop } from "./background.ts";
import { DerivedState, derivedKey } from "./derived.ts";
import type { Engine } from "./engine.ts";
import { executionHistory, memoryRowsOf } from "./history.ts";
import type { MemoryIndex } from "./intent-memory.ts";
import { MEMORY_DEFAULTS } from "./memory-defaults.ts";
import { appendMemoryRowsSteps } from "./memory-rows.ts";
import { ensureEmbeddings } from "./search-index.ts";

/** Text → text id of a memory index (derived state: built on the first append, handed on to the next). */
const TEXT_IDS = derivedKey<Map<string, number>>("memory text ids");

/** Whether the memory's texts have grown by the share that calls for a full build (re-centred codes). */
export function dueForFullBuild(mem: MemoryIndex): boolean {
  return mem.texts.length > mem.fullBuildTexts * (1 + MEMORY_DEFAULTS.rebuildAfterGrowth);
}

/** The held memory extended by the executions recorded since; undefined when only a full build will do. */
export async function appendMemory(
  engine: Engine,
  project: string,
  held: MemoryIndex,
): Promise<MemoryIndex | undefined> {
  const loaded = memoryRowsOf(await executionHistory(engine, project));
  const n0 = held.executions;
  if (!held.vindex || held.dims === 0 || loaded.length < n0) return undefined;
  for (let i = 0; i < n0; i++) if (loaded[i]!.id !== held.rows.ids[i]) return undefined;
  const added = loaded.slice(n0);
  const n = loaded.length;
  const textIds = held.derived.get(TEXT_IDS, () => new Map(held.texts.map((t, k) => [t, k] as const)));
  const ids = new Map(textIds);
  const texts = held.texts.slice();
  const T0 = texts.length;
  const textOf = new Int32Array(n);
  textOf.set(held.textOf.subarray(0, n0));
  for (let j = 0; j < added.length; j++) {
    const intent = added[j]!.intent;
    let t = ids.get(intent);
    if (t === undefined) {
      t = texts.length;
      texts.push(intent);
      ids.set(intent, t);
    }
    textOf[n0 + j] = t;
  }
  // Members of each text, most recent first: its new rows (descending), then its held ones (as groupByText).
  const T = texts.length;
  const memberOffsets = new Int32Array(T + 1);
  for (let t = 0; t < T0; t++) memberOffsets[t + 1] = held.memberOffsets[t + 1]! - held.memberOffsets[t]!;
  for (let i = n0; i < n; i++) memberOffsets[textOf[i]! + 1]!++;
  for (let t = 0; t < T; t++) memberOffsets[t + 1]! += memberOffsets[t]!;
  const fill = memberOffsets.slice(0, T);
  const members = new Int32Array(n);
  for (let i = n - 1; i >= n0; i--) members[fill[textOf[i]!]!++] = i;
  for (let t = 0; t < T0; t++)
    members.set(held.members.subarray(held.memberOffsets[t]!, held.memberOffsets[t + 1]!), fill[t]!);
  const rows = await drainInSlices(appendMemoryRowsSteps(held.rows, added));
  await yieldToEventLoop();
  const fresh = texts.slice(T0);
  const slice = slicer();
  const tokens: string[][] = [];
  for (const t of fresh) {
    tokens.push(tokenize(t));
    await slice();
  }
  const bm25 = appendBm25Index(held.bm25, tokens);
  const dims = held.dims;
  const packed = new Float32Array(fresh.length * dims);
  if (fresh.length > 0) {
    const { vectors } = await ensureEmbeddings(engine.db, project, engine.embedder, fresh);
    vectors.forEach((v, i) => {
      if (v.length === dims) packed.set(v, i * dims);
    });
  }
  // The coding pass in slices (a batch of thousands of new texts is ~100 ms of rotations).
  const vindex = await drainInSlices(appendVectorIndexSteps(held.vindex, packed));
  const derived = new DerivedState();
  derived.get(TEXT_IDS, () => ids);
  return {
    rows,
    textOf,
    texts,
    memberOffsets,
    members,
    bm25,
    vectors: appendInt8(held.vectors, packed),
    dims,
    vindex,
    builtAt: performance.now(),
    executions: n,
    fullBuildTexts: held.fullBuildTexts,
    derived,
  };
}
