/**
 * `memoryStats` and `memoryNeighbours`: the intent memory's own costs, library-only reads for measurements
 * (docs/decisions/layout.md). The stats count the index's typed arrays (the memory it takes beside its JS
 * objects); the neighbours are the semantic channel's (sign-code stages + int8 re-ranking) or, with `exact`, a
 * float32 cosine scan over every distinct intent embedded again: the channel's neighbour recall is their overlap.
 */
import { simdScanBytes } from "../../algorithms/search/vector-index.ts";
import { semanticNeighbours } from "../view/intent-memory.ts";
import type { ProjectView } from "../view/project-view.ts";

export interface MemoryStats {
  /** Executions the memory holds. */
  executions: number;
  /** Distinct intent texts (each indexed once). */
  distinctIntents: number;
  dims: number;
  /** Bytes of the index's typed arrays: int8 vectors, sign codes, BM25 postings, members, the executions' columns. */
  typedArrayBytes: number;
  /** Bytes of the SIMD code-scan kernel's WebAssembly memory (0 until the first recall makes it). */
  scanKernelBytes: number;
}

export async function memoryStats(view: ProjectView): Promise<MemoryStats> {
  const mem = await view.memory();
  const b = mem.bm25;
  const r = mem.rows;
  const v = mem.vindex;
  const typed =
    mem.vectors.data.byteLength +
    mem.vectors.scales.byteLength +
    (v
      ? v.codes.byteLength +
        (v.prefixCodes?.byteLength ?? 0) +
        v.scales.byteLength +
        v.mean.byteLength +
        v.signs.byteLength
      : 0) +
    b.idf.byteLength +
    b.postingOffsets.byteLength +
    b.postingDocs.byteLength +
    b.postingTf.byteLength +
    b.postingImpact.byteLength +
    b.maxImpact.byteLength +
    b.docLength.byteLength +
    mem.memberOffsets.byteLength +
    mem.members.byteLength +
    mem.textOf.byteLength +
    r.startedAt.byteLength +
    r.success.byteLength +
    r.userOf.byteLength +
    r.capabilityOf.byteLength +
    r.stepOffsets.byteLength +
    r.stepTool.byteLength +
    r.stepSuccess.byteLength;
  return {
    executions: r.length,
    distinctIntents: mem.texts.length,
    dims: mem.dims,
    typedArrayBytes: typed,
    scanKernelBytes: v ? simdScanBytes(v) : 0,
  };
}

/** One neighbour: a distinct intent text and its cosine similarity to the query. */
export interface MemoryNeighbour {
  text: string;
  similarity: number;
}

/**
 * The `k` nearest distinct intents of each query vector, best first: the semantic channel's, or with `exact` a
 * float32 scan (ties by the intents' order).
 */
export async function memoryNeighbours(
  view: ProjectView,
  vectors: readonly Float32Array[],
  opts: { k: number; exact?: boolean | undefined },
): Promise<MemoryNeighbour[][]> {
  if (!Number.isInteger(opts?.k) || opts.k < 1)
    throw new RangeError(`memoryNeighbours: k must be a positive integer, got ${opts?.k}`);
  const mem = await view.memory();
  for (const [i, q] of vectors.entries())
    if (!(q instanceof Float32Array) || q.length !== mem.dims)
      throw new RangeError(`memoryNeighbours: vectors[${i}] must be a Float32Array of ${mem.dims} dimensions`);
  if (!opts.exact)
    return vectors.map((q) =>
      semanticNeighbours(mem, q, opts.k).map((h) => ({ text: mem.texts[h.id]!, similarity: h.score })),
    );
  const all = await view.embedQueries(mem.texts);
  return vectors.map((q) =>
    all
      .map((v, i) => {
        let s = 0;
        for (let j = 0; j < q.length; j++) s += v[j]! * q[j]!;
        return { i, s };
      })
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, opts.k)
      .map((x) => ({ text: mem.texts[x.i]!, similarity: x.s })),
  );
}
