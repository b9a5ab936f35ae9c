/**
 * Appending documents to a built BM25 index (bm25.ts has the formula): the index over docs₀ … docs_{n−1} followed by
 * m new documents, equal field for field to buildBm25Index over all n + m documents (vocabulary ids in first-seen
 * order, postings by term then document, the same idf, impacts and bounds bit for bit).
 *
 * N and avgdl change with every document, so every idf(t) and every posting's impact idf · tf·(k1+1)/(tf + k1·norm)
 * changes too; but they are functions of (N, df(t), tf, |D|, avgdl) only, all held by the index. So only the new
 * documents are tokenised and counted; the old postings are copied and their impacts recomputed from their stored
 * tf and document length, with the same expressions as the build (hence the same floating-point values: the token
 * total is an integer sum, exact in float64).
 *
 * Cost: O(new tokens + postings + V) arithmetic — no string work on the old documents (the build's cost is
 * dominated by hashing every token of every document into the vocabulary).
 *
 * Source: Robertson & Zaragoza, "The probabilistic relevance framework: BM25 and beyond" (2009), §3; incremental
 * inverted-index updates: Zobel & Moffat, "Inverted files for text search engines" (2006), §8.
 */
import type { Bm25Index } from "./bm25.ts";

/** The index over its documents followed by `docs` (document ids n … n + m − 1). */
export function appendBm25Index(index: Bm25Index, docs: readonly (readonly string[])[]): Bm25Index {
  const { k1, b } = index;
  const n0 = index.n;
  const m = docs.length;
  const n = n0 + m;
  const V0 = index.idf.length;
  const vocabulary = new Map(index.vocabulary);
  const added: number[] = [];
  const perDoc: Map<number, number>[] = [];
  const docLength = new Uint32Array(n);
  docLength.set(index.docLength);
  let total = 0;
  for (let d = 0; d < n0; d++) total += index.docLength[d]!;
  for (let d = 0; d < m; d++) {
    const counts = new Map<number, number>();
    for (const tok of docs[d]!) {
      let t = vocabulary.get(tok);
      if (t === undefined) {
        t = vocabulary.size;
        vocabulary.set(tok, t);
        added.push(0);
      }
      const c = counts.get(t);
      if (c === undefined) {
        counts.set(t, 1);
        if (t >= V0) added[t - V0]!++;
      } else counts.set(t, c + 1);
    }
    docLength[n0 + d] = docs[d]!.length;
    total += docs[d]!.length;
    perDoc.push(counts);
  }
  const V = vocabulary.size;
  // df of each term among the new documents (old terms too).
  const newDf = new Uint32Array(V);
  for (const counts of perDoc) for (const t of counts.keys()) newDf[t]!++;
  const avgdl = n > 0 ? total / n : 0;
  const idf = new Float64Array(V);
  const postingOffsets = new Uint32Array(V + 1);
  for (let t = 0; t < V; t++) {
    const old = t < V0 ? index.postingOffsets[t + 1]! - index.postingOffsets[t]! : 0;
    const df = old + newDf[t]!;
    idf[t] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    postingOffsets[t + 1] = postingOffsets[t]! + df;
  }
  const total2 = postingOffsets[V]!;
  const postingDocs = new Uint32Array(total2);
  const postingTf = new Uint32Array(total2);
  const postingImpact = new Float64Array(total2);
  const maxImpact = new Float64Array(V);
  const fill = new Uint32Array(V);
  for (let t = 0; t < V; t++) {
    const start = postingOffsets[t]!;
    if (t < V0) {
      const from = index.postingOffsets[t]!;
      const to = index.postingOffsets[t + 1]!;
      postingDocs.set(index.postingDocs.subarray(from, to), start);
      postingTf.set(index.postingTf.subarray(from, to), start);
      fill[t] = start + (to - from);
    } else fill[t] = start;
  }
  // New documents come after every old one, so each term's postings stay sorted by document.
  for (let d = 0; d < m; d++) {
    for (const [t, tf] of perDoc[d]!) {
      const p = fill[t]!++;
      postingDocs[p] = n0 + d;
      postingTf[p] = tf;
    }
  }
  for (let t = 0; t < V; t++) {
    const w = idf[t]!;
    for (let p = postingOffsets[t]!; p < postingOffsets[t + 1]!; p++) {
      const tf = postingTf[p]!;
      const norm = avgdl > 0 ? 1 - b + (b * docLength[postingDocs[p]!]!) / avgdl : 1;
      const impact = (w * (tf * (k1 + 1))) / (tf + k1 * norm);
      postingImpact[p] = impact;
      if (impact > maxImpact[t]!) maxImpact[t] = impact;
    }
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
