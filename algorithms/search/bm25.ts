/**
 * Okapi BM25 over pre-tokenised documents, built once into an inverted index, queried many times.
 *
 *   score(D, Q) = Σ_{t ∈ distinct(Q)} idf(t) · tf(t,D) · (k1 + 1) / (tf(t,D) + k1 · (1 − b + b · |D| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * N = number of documents, df(t) = documents containing t, |D| = tokens in D, avgdl = mean |D|. The idf is
 * Lucene's non-negative variant (classic Robertson–Spärck Jones idf goes negative for df > N/2). Repeated
 * query terms count once (a query is a set of terms; weight fields by repeating them in documents instead).
 * Each posting stores its precomputed term impact idf · tf·(k1+1)/(tf + k1·norm), so a query only sums.
 * Only documents sharing at least one term with the query are returned (score > 0), score descending, then
 * document index ascending.
 *
 * Top-N with MaxScore pruning (Turtle & Flood, "Query evaluation: strategies and optimizations", IP&M 1995):
 * query terms are summed in decreasing order of their largest posting impact; once the N-th best partial score
 * exceeds the sum of the remaining terms' largest impacts, no document outside the current candidates can reach
 * the top N, so the remaining (low-idf, long) posting lists only update candidates. Exact: the same top N as a
 * full evaluation. Terms are summed in this same order everywhere (bm25Scores too), so scores agree bit for bit.
 *
 * Source: Robertson & Zaragoza, "The probabilistic relevance framework: BM25 and beyond" (2009), §3;
 * idf as in Apache Lucene `BM25Similarity`.
 */
import { SearchError } from "./search-error.ts";
import { kthLargestInPlace, type ScoredId, TopK } from "./top-k.ts";

export const DEFAULTS = {
  k1: 1.2,
  b: 0.75,
  topN: 100,
} as const;

export interface Bm25Options {
  /** Term-frequency saturation, ≥ 0. Default 1.2. */
  readonly k1?: number;
  /** Length normalisation in [0, 1]. Default 0.75. */
  readonly b?: number;
}

export interface Bm25Index {
  readonly k1: number;
  readonly b: number;
  /** Number of documents N. */
  readonly n: number;
  readonly avgdl: number;
  /** Term → term id. */
  readonly vocabulary: ReadonlyMap<string, number>;
  /** idf per term id. */
  readonly idf: Float64Array;
  /** Postings of term t are [postingOffsets[t], postingOffsets[t+1]). */
  readonly postingOffsets: Uint32Array;
  /** Document index per posting (ascending within a term). */
  readonly postingDocs: Uint32Array;
  /** Term frequency per posting. */
  readonly postingTf: Uint32Array;
  /** Precomputed impact per posting (the summand of the score). */
  readonly postingImpact: Float64Array;
  /** Largest posting impact per term (MaxScore's upper bound). */
  readonly maxImpact: Float64Array;
  /** Token count per document. */
  readonly docLength: Uint32Array;
}

/** A document index and its BM25 score. */
export type Bm25Hit = ScoredId;

const MODULE = "bm25";

/** Builds the inverted index. O(total tokens + V). */
export function buildBm25Index(docs: readonly (readonly string[])[], options: Bm25Options = {}): Bm25Index {
  const k1 = options.k1 ?? DEFAULTS.k1;
  const b = options.b ?? DEFAULTS.b;
  if (!Number.isFinite(k1) || k1 < 0) throw new SearchError(MODULE, "bad-k1", `k1 must be a finite number ≥ 0, got ${k1}`);
  if (!Number.isFinite(b) || b < 0 || b > 1) throw new SearchError(MODULE, "bad-b", `b must be in [0, 1], got ${b}`);
  const n = docs.length;
  const vocabulary = new Map<string, number>();
  const docLength = new Uint32Array(n);
  // Per document: term id → tf, in first-seen order.
  const perDoc: Map<number, number>[] = [];
  const df: number[] = [];
  let total = 0;
  for (let d = 0; d < n; d++) {
    const counts = new Map<number, number>();
    for (const tok of docs[d]!) {
      let t = vocabulary.get(tok);
      if (t === undefined) {
        t = vocabulary.size;
        vocabulary.set(tok, t);
        df.push(0);
      }
      const c = counts.get(t);
      if (c === undefined) {
        counts.set(t, 1);
        df[t]!++;
      } else counts.set(t, c + 1);
    }
    docLength[d] = docs[d]!.length;
    total += docs[d]!.length;
    perDoc.push(counts);
  }
  const V = vocabulary.size;
  const avgdl = n > 0 ? total / n : 0;
  const idf = new Float64Array(V);
  const postingOffsets = new Uint32Array(V + 1);
  for (let t = 0; t < V; t++) {
    idf[t] = Math.log(1 + (n - df[t]! + 0.5) / (df[t]! + 0.5));
    postingOffsets[t + 1] = postingOffsets[t]! + df[t]!;
  }
  const m = postingOffsets[V]!;
  const postingDocs = new Uint32Array(m);
  const postingTf = new Uint32Array(m);
  const postingImpact = new Float64Array(m);
  const maxImpact = new Float64Array(V);
  const fill = postingOffsets.slice(0, V);
  // Documents are visited in ascending order, so each term's postings come out sorted by document.
  for (let d = 0; d < n; d++) {
    const norm = avgdl > 0 ? 1 - b + (b * docLength[d]!) / avgdl : 1;
    for (const [t, tf] of perDoc[d]!) {
      const p = fill[t]!++;
      postingDocs[p] = d;
      postingTf[p] = tf;
      const impact = (idf[t]! * (tf * (k1 + 1))) / (tf + k1 * norm);
      postingImpact[p] = impact;
      if (impact > maxImpact[t]!) maxImpact[t] = impact;
    }
  }
  return { k1, b, n, avgdl, vocabulary, idf, postingOffsets, postingDocs, postingTf, postingImpact, maxImpact, docLength };
}

function distinctTermIds(index: Bm25Index, query: readonly string[]): number[] {
  const ids = new Set<number>();
  for (const tok of query) {
    const t = index.vocabulary.get(tok);
    if (t !== undefined) ids.add(t);
  }
  // Largest impact first (MaxScore order), then term id: one fixed summation order for every function.
  return [...ids].sort((a, b) => index.maxImpact[b]! - index.maxImpact[a]! || a - b);
}

/** Full score array (index = document), 0 for documents that share no term with the query. */
export function bm25Scores(index: Bm25Index, query: readonly string[]): Float64Array {
  const scores = new Float64Array(index.n);
  for (const t of distinctTermIds(index, query)) {
    for (let p = index.postingOffsets[t]!; p < index.postingOffsets[t + 1]!; p++) {
      scores[index.postingDocs[p]!]! += index.postingImpact[p]!;
    }
  }
  return scores;
}

/** Top-N documents for the query tokens (score > 0 only), score descending then document ascending. */
export function searchBm25(index: Bm25Index, query: readonly string[], topN: number = DEFAULTS.topN): Bm25Hit[] {
  if (!Number.isInteger(topN) || topN < 0) throw new SearchError(MODULE, "bad-top-n", `topN must be a non-negative integer, got ${topN}`);
  const terms = distinctTermIds(index, query);
  if (terms.length === 0 || topN === 0) return [];
  // remaining[j] = Σ_{l ≥ j} maxImpact(term l): the most a document not yet touched can still gain.
  const remaining = new Float64Array(terms.length + 1);
  for (let j = terms.length - 1; j >= 0; j--) remaining[j] = remaining[j + 1]! + index.maxImpact[terms[j]!]!;
  const scores = scoreBuffer(index.n);
  const touched: number[] = [];
  let pruning = false;
  for (let j = 0; j < terms.length; j++) {
    if (!pruning && j > 0 && touched.length >= topN) {
      const partial = new Float64Array(touched.length);
      for (let i = 0; i < touched.length; i++) partial[i] = scores[touched[i]!]!;
      pruning = kthLargestInPlace(partial, partial.length, topN) > remaining[j]!;
    }
    const t = terms[j]!;
    const end = index.postingOffsets[t + 1]!;
    for (let p = index.postingOffsets[t]!; p < end; p++) {
      const d = index.postingDocs[p]!;
      if (scores[d] === 0) {
        if (pruning) continue;
        touched.push(d);
      }
      scores[d]! += index.postingImpact[p]!;
    }
  }
  const heap = new TopK(Math.min(topN, touched.length));
  for (const d of touched) {
    heap.offer(d, scores[d]!);
    scores[d] = 0; // leave the shared buffer zeroed
  }
  return heap.result();
}

/** A zeroed score buffer reused across queries (searches are synchronous; every touched entry is reset). */
let shared = new Float64Array(0);
function scoreBuffer(n: number): Float64Array {
  if (shared.length < n) shared = new Float64Array(Math.max(n, 2 * shared.length));
  return shared;
}

/**
 * The score of an "ideal single match": a document of average length containing every known query term
 * once, i.e. Σ_{t ∈ distinct(Q) ∩ V} idf(t) (each tf factor is exactly 1 there). Used by fusion as a
 * query-dependent normalisation floor. 0 when no query term is in the vocabulary.
 */
export function bm25IdealScore(index: Bm25Index, query: readonly string[]): number {
  let s = 0;
  for (const t of distinctTermIds(index, query)) s += index.idf[t]!;
  return s;
}
