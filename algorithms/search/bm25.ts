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
 * Top-N with exact MaxScore-style pruning (Turtle & Flood, "Query evaluation: strategies and optimizations",
 * IP&M 1995), term at a time with the accumulator "continue" strategy (Moffat & Zobel, "Self-indexing inverted
 * files for fast text retrieval", TOIS 1996). Query terms are summed shortest posting list first. θ is a lower
 * bound of the final N-th best score: the smallest complete score of N candidates among the best partial
 * scores (completed by binary search in the remaining lists). Phase 1 reads whole lists until θ exceeds the sum
 * of the remaining terms' largest impacts — no document not yet seen can then reach the top N. Phase 2 keeps
 * only the candidates whose partial score plus that sum still reaches θ (re-checked after every term) and adds
 * the remaining terms to them: by reading a list while it is short next to the candidates, otherwise by
 * galloping search of the sorted candidates in it (a list of a word in every document costs O(candidates ·
 * log), not its length). Exact: the same top N as a full evaluation (bounds carry a 1e-12 relative margin against
 * rounding). Terms are summed in this same order everywhere (bm25Scores too), so scores agree bit for bit.
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
  const steps = buildBm25IndexSteps(docs, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Documents counted (or posted) between two pauses of buildBm25IndexSteps. */
export const BM25_DOCS_PER_STEP = 256;

/**
 * buildBm25Index as a generator that pauses after every `BM25_DOCS_PER_STEP` documents of each pass (term
 * counts, then postings), so a caller can return to its event loop between steps; the index is the same.
 */
export function* buildBm25IndexSteps(
  docs: readonly (readonly string[])[],
  options: Bm25Options = {},
): Generator<number, Bm25Index, void> {
  const k1 = options.k1 ?? DEFAULTS.k1;
  const b = options.b ?? DEFAULTS.b;
  if (!Number.isFinite(k1) || k1 < 0)
    throw new SearchError(MODULE, "bad-k1", `k1 must be a finite number ≥ 0, got ${k1}`);
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
    if ((d + 1) % BM25_DOCS_PER_STEP === 0) yield d + 1;
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
    if ((d + 1) % BM25_DOCS_PER_STEP === 0) yield n + d + 1;
  }
  return {
    k1,
    b,
    n,
    avgdl,
    vocabulary,
    idf,
    postingOffsets,
    postingDocs,
    postingTf,
    postingImpact,
    maxImpact,
    docLength,
  };
}

function distinctTermIds(index: Bm25Index, query: readonly string[]): number[] {
  const ids = new Set<number>();
  for (const tok of query) {
    const t = index.vocabulary.get(tok);
    if (t !== undefined) ids.add(t);
  }
  // Shortest posting list first (rarest term), then largest impact, then term id: one fixed summation order
  // for every function. Short lists first gather the high-scoring candidates for the fewest postings read.
  const off = index.postingOffsets;
  return [...ids].sort(
    (a, b) => off[a + 1]! - off[a]! - (off[b + 1]! - off[b]!) || index.maxImpact[b]! - index.maxImpact[a]! || a - b,
  );
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
  if (!Number.isInteger(topN) || topN < 0)
    throw new SearchError(MODULE, "bad-top-n", `topN must be a non-negative integer, got ${topN}`);
  const terms = distinctTermIds(index, query);
  if (terms.length === 0 || topN === 0) return [];
  const m = terms.length;
  // remaining[j] = Σ_{l ≥ j} maxImpact(term l): the most a document can still gain from term j on.
  const remaining = new Float64Array(m + 1);
  for (let j = m - 1; j >= 0; j--) remaining[j] = remaining[j + 1]! + index.maxImpact[terms[j]!]!;
  const { postingOffsets: offsets, postingDocs: docs, postingImpact: impact } = index;
  const scores = scoreBuffer(index.n);
  let touched = touchedBuffer(0);
  let count = 0;
  let theta = 0;
  // Phase 1 (term at a time): every posting is added and new documents enter the candidates until θ, a lower
  // bound of the final N-th best score, exceeds everything a document not yet seen could still score. θ is the
  // smallest complete score of N candidates (those with the best partial scores, completed by binary search in
  // the remaining lists): N documents score at least θ, so a document bounded below θ cannot enter the top N.
  // Completing N candidates costs about count + N·(m − j) galloping searches; it is repeated only once the
  // postings read since the last completion outweigh that (amortised: at most about as much work as the scan
  // itself). The schedule decides only when to stop early, never what is returned.
  let j = 0;
  let sinceCheck = 0;
  let checkCost = 0;
  for (; j < m; j++) {
    if (j > 0 && count >= topN && sinceCheck >= checkCost) {
      const considered = Math.min(count, Math.max(COMPLETION_POOL, 8 * topN));
      theta = Math.max(theta, completedNth(index, terms, j, scores, touched, considered, topN, remaining[j]!));
      if (below(remaining[j]!, theta)) break;
      checkCost = considered + 8 * topN * (m - j);
      sinceCheck = 0;
    }
    const start = offsets[terms[j]!]!;
    const end = offsets[terms[j]! + 1]!;
    sinceCheck += end - start;
    for (let p = start; p < end; p++) {
      const d = docs[p]!;
      if (scores[d] === 0) {
        if (count === touched.length) touched = touchedBuffer(count + 1);
        touched[count++] = d;
      }
      scores[d]! += impact[p]!;
    }
  }
  // Phase 2 (candidates closed): drop the candidates that cannot reach θ even with every remaining term at its
  // largest impact (their score is reset to 0, so score ≠ 0 ⇔ live candidate), then add the remaining terms to
  // the live candidates only: by reading the posting list while it is short next to the candidates, and by
  // galloping search of the (then sorted) candidates in it once it is long — a long low-idf list then costs
  // O(candidates · log(list / candidates)), not its length.
  if (j < m) {
    const cand = candidateBuffer(count);
    cand.set(touched.subarray(0, count));
    let live = count;
    let sorted = false;
    for (let first = true; j < m; j++, first = false) {
      // The N-th best partial is a lower bound too (partials only grow).
      if (!first) theta = Math.max(theta, nthPartial(scores, cand, live, topN));
      let kept = 0;
      for (let i = 0; i < live; i++) {
        const d = cand[i]!;
        if (below(scores[d]! + remaining[j]!, theta)) scores[d] = 0;
        else cand[kept++] = d;
      }
      live = kept;
      const t = terms[j]!;
      let p = offsets[t]!;
      const end = offsets[t + 1]!;
      if (!sorted && 8 * live >= end - p) {
        for (; p < end; p++) {
          const d = docs[p]!;
          if (scores[d] !== 0) scores[d]! += impact[p]!;
        }
        continue;
      }
      if (!sorted) {
        cand.subarray(0, live).sort(); // the filter keeps the order afterwards
        sorted = true;
      }
      for (let i = 0; i < live && p < end; i++) {
        const d = cand[i]!;
        p = gallop(docs, p, end, d);
        if (p < end && docs[p] === d) scores[d]! += impact[p]!;
      }
    }
    const heap = new TopK(Math.min(topN, live));
    for (let i = 0; i < live; i++) {
      heap.offer(cand[i]!, scores[cand[i]!]!);
      scores[cand[i]!] = 0; // leave the shared buffer zeroed (dropped candidates were reset already)
    }
    return heap.result();
  }
  const heap = new TopK(Math.min(topN, count));
  for (let i = 0; i < count; i++) {
    const d = touched[i]!;
    heap.offer(d, scores[d]!);
    scores[d] = 0; // leave the shared buffer zeroed
  }
  return heap.result();
}

/** Touched documents (first met first) among which completedNth picks its N candidates. */
const COMPLETION_POOL = 4096;

/**
 * bound < θ with a relative margin of 1e-12: bounds and scores are sums of the same impacts in different orders,
 * so they may differ in the last bits; the margin keeps the pruning exact (it only prunes a little less).
 */
function below(bound: number, theta: number): boolean {
  return bound * (1 + 1e-12) < theta;
}

/**
 * A lower bound of the N-th best final score, from N candidates: among the first `count` touched documents
 * (the caller caps count: documents first met in the rarest lists, where the best partial scores are; any N
 * documents give a valid bound, the cap only trades how high it is for how long it takes), the N with the best
 * partial scores (terms before j already summed) are completed, in ascending document order, by galloping
 * forward through the posting lists of terms j.. in the order of the full evaluation. Terms whose largest impact
 * is below 1 % of what terms j.. can add at most are skipped (a long low-idf list costs the most and changes θ
 * the least). Adding a non-negative number never lowers a float sum and rounding is monotone, so each completed
 * value is at most that document's final score: N documents score at least the minimum.
 */
function completedNth(
  index: Bm25Index,
  terms: readonly number[],
  j: number,
  scores: Float64Array,
  ids: Int32Array,
  count: number,
  nth: number,
  remaining: number,
): number {
  const cut = nthPartial(scores, ids, count, nth);
  const { postingOffsets: offsets, postingDocs: docs, postingImpact: impact } = index;
  const chosen = completionBuffer(nth);
  let taken = 0;
  for (let i = 0; i < count && taken < nth; i++) if (scores[ids[i]!]! >= cut) chosen[taken++] = ids[i]!;
  const docsOf = chosen.subarray(0, taken).sort();
  const sums = completionSums(taken);
  for (let k = 0; k < taken; k++) sums[k] = scores[docsOf[k]!]!;
  for (let l = j; l < terms.length; l++) {
    const t = terms[l]!;
    if (index.maxImpact[t]! < 0.01 * remaining) continue;
    const end = offsets[t + 1]!;
    let p = offsets[t]!;
    for (let k = 0; k < taken && p < end; k++) {
      const d = docsOf[k]!;
      p = gallop(docs, p, end, d);
      if (p < end && docs[p] === d) sums[k]! += impact[p]!;
    }
  }
  let min = Number.POSITIVE_INFINITY;
  for (let k = 0; k < taken; k++) if (sums[k]! < min) min = sums[k]!;
  return min;
}

let completionIds = new Uint32Array(0);
function completionBuffer(n: number): Uint32Array {
  if (completionIds.length < n) completionIds = new Uint32Array(n);
  return completionIds;
}
let completionScores = new Float64Array(0);
function completionSums(n: number): Float64Array {
  if (completionScores.length < n) completionScores = new Float64Array(n);
  return completionScores;
}

/** The N-th largest partial score among the first `count` candidates (count ≥ N ≥ 1). */
function nthPartial(scores: Float64Array, ids: Int32Array, count: number, nth: number): number {
  const partial = partialBuffer(count);
  for (let i = 0; i < count; i++) partial[i] = scores[ids[i]!]!;
  return kthLargestInPlace(partial, count, nth);
}

/** The first position in [p, end) whose document is ≥ d (end when none): exponential then binary search. */
function gallop(docs: Uint32Array, p: number, end: number, d: number): number {
  if (p >= end || docs[p]! >= d) return p;
  let lo = p; // docs[lo] < d
  let step = 1;
  let hi = p + 1;
  while (hi < end && docs[hi]! < d) {
    lo = hi;
    step <<= 1;
    hi = lo + step;
  }
  if (hi > end) hi = end;
  // docs[lo] < d, and hi = end or docs[hi] ≥ d.
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < d) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * Scratch buffers reused across queries (searches are synchronous, so they are never shared in flight): a zeroed
 * score per document (every touched entry is reset before returning), the touched documents, the phase-2
 * candidates and the partial scores of a selection.
 */
let shared = new Float64Array(0);
function scoreBuffer(n: number): Float64Array {
  if (shared.length < n) shared = new Float64Array(Math.max(n, 2 * shared.length));
  return shared;
}
let touchedScratch = new Int32Array(1024);
/** The touched buffer with room for `size` entries; grows by doubling, keeping its content. */
function touchedBuffer(size: number): Int32Array {
  if (touchedScratch.length < size) {
    const grown = new Int32Array(Math.max(size, 2 * touchedScratch.length));
    grown.set(touchedScratch);
    touchedScratch = grown;
  }
  return touchedScratch;
}
let candidateScratch = new Int32Array(1024);
function candidateBuffer(size: number): Int32Array {
  if (candidateScratch.length < size) candidateScratch = new Int32Array(Math.max(size, 2 * candidateScratch.length));
  return candidateScratch;
}
let partialScratch = new Float64Array(1024);
function partialBuffer(size: number): Float64Array {
  if (partialScratch.length < size) partialScratch = new Float64Array(Math.max(size, 2 * partialScratch.length));
  return partialScratch;
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

/**
 * The ideal single match over *every* distinct query term: Σ_{t ∈ distinct(Q)} idf(t), where a term outside
 * the vocabulary has df = 0, idf = ln(1 + (N + 0.5) / 0.5) (the rarest possible). A document that shares one
 * known word of a query made mostly of unknown words scores a small fraction of it, where bm25IdealScore (known
 * terms only) would call it a full match. 0 for an empty query.
 */
export function bm25FullIdealScore(index: Bm25Index, query: readonly string[]): number {
  const unseen = Math.log(1 + (index.n + 0.5) / 0.5);
  const s = bm25IdealScore(index, query);
  const unknown = new Set<string>();
  for (const tok of query) if (!index.vocabulary.has(tok)) unknown.add(tok);
  return s + unknown.size * unseen;
}
