/** Nearest past intents: a bounded candidate heap over the memory's vectors, and intents grouped by text. */
import { groupByKey } from "../../algorithms/graph/group-by-key.ts";
import { dotsInt8 } from "../../algorithms/search/int8-vectors.ts";
import { type ScoredId, TopK } from "../../algorithms/search/top-k.ts";
import { codeShortlist } from "../../algorithms/search/vector-index.ts";
import type { MemoryIndex } from "./intent-memory.ts";
import { MEMORY_DEFAULTS } from "./memory-defaults.ts";

/**
 * Binary max-heap of candidate texts by (fused similarity desc, text asc). An entry is exact or a bound (an upper
 * bound of its similarity, with the BM25 score it was fused from, to be settled by the caller when on top).
 */
export class CandidateHeap {
  private readonly ids: Int32Array;
  private readonly scores: Float64Array;
  private readonly lexical: Float64Array;
  /** The cosine the score was fused from (1, the bound, until settled). */
  private readonly semantic: Float64Array;
  private readonly exact: Uint8Array;
  size = 0;
  constructor(capacity: number) {
    this.ids = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
    this.lexical = new Float64Array(capacity);
    this.semantic = new Float64Array(capacity);
    this.exact = new Uint8Array(capacity);
  }
  /** Appends (unordered until heapify); similarities below the memory's minimum do not vote and are dropped. */
  push(id: number, score: number, lexical: number, exact: boolean, semantic: number): void {
    if (!(score >= MEMORY_DEFAULTS.minSimilarity)) return;
    const n = this.size++;
    this.ids[n] = id;
    this.scores[n] = score;
    this.lexical[n] = lexical;
    this.semantic[n] = semantic;
    this.exact[n] = exact ? 1 : 0;
  }
  heapify(): void {
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }
  topId(): number {
    return this.ids[0]!;
  }
  topScore(): number {
    return this.scores[0]!;
  }
  topLexical(): number {
    return this.lexical[0]!;
  }
  topSemantic(): number {
    return this.semantic[0]!;
  }
  topExact(): boolean {
    return this.exact[0] === 1;
  }
  /** The top bound's exact similarity (≤ the bound, so it can only sink); dropped below the minimum. */
  settleTop(score: number, semantic: number): void {
    if (!(score >= MEMORY_DEFAULTS.minSimilarity)) {
      this.pop();
      return;
    }
    this.scores[0] = score;
    this.semantic[0] = semantic;
    this.exact[0] = 1;
    this.down(0);
  }
  pop(): void {
    const last = --this.size;
    this.move(last, 0);
    this.down(0);
  }
  private move(from: number, to: number): void {
    this.ids[to] = this.ids[from]!;
    this.scores[to] = this.scores[from]!;
    this.lexical[to] = this.lexical[from]!;
    this.semantic[to] = this.semantic[from]!;
    this.exact[to] = this.exact[from]!;
  }
  private before(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa > sb || (sa === sb && this.ids[a]! < this.ids[b]!);
  }
  private down(i: number): void {
    const n = this.size;
    const id = this.ids[i]!;
    const score = this.scores[i]!;
    const lexical = this.lexical[i]!;
    const semantic = this.semantic[i]!;
    const exact = this.exact[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const c = l + 1 < n && this.before(l + 1, l) ? l + 1 : l;
      const sc = this.scores[c]!;
      if (!(sc > score || (sc === score && this.ids[c]! < id))) break;
      this.move(c, i);
      i = c;
    }
    this.ids[i] = id;
    this.scores[i] = score;
    this.lexical[i] = lexical;
    this.semantic[i] = semantic;
    this.exact[i] = exact;
  }
}

/**
 * The topN distinct past intents by cosine to qv: sign-code stages over all of them (a 128-bit prefix first
 * when there are many), then int8 re-ranking of a shortlist of max(256, 0.5 % of n). Empty when the memory has
 * no vectors or qv has another dimension.
 */
export function semanticNeighbours(mem: MemoryIndex, qv: Float32Array, topN: number): ScoredId[] {
  const n = mem.texts.length;
  if (!mem.vindex || qv.length !== mem.dims || n === 0) return [];
  const shortlist = codeShortlist(
    mem.vindex,
    qv,
    Math.min(n, Math.max(256, Math.ceil(MEMORY_DEFAULTS.shortlistFraction * n))),
    {
      prefilterFactor: MEMORY_DEFAULTS.prefilterFactor,
    },
  );
  const scores = dotsInt8(mem.vectors, shortlist, qv);
  const exact = new TopK(Math.min(n, topN));
  for (let j = 0; j < shortlist.length; j++) exact.offer(shortlist[j]!, scores[j]!);
  return exact.result();
}

/** Distinct texts in first-seen order, and for each the rows carrying it, most recent (last) first. */
export function groupByText(intents: readonly string[]): {
  texts: string[];
  memberOffsets: Int32Array;
  members: Int32Array;
} {
  const g = groupByKey(intents, "descending");
  return { texts: g.keys, memberOffsets: g.offsets, members: g.members };
}
