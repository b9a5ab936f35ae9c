/**
 * What appending to the intent memory's vector index costs in recall, by how much it has grown since its full build:
 * the index built on n₀ rows, then g · n₀ rows appended on its centre and rotation (appendVectorIndex), against a
 * full build of the same rows. Searched as the intent memory searches (algorithms' codeShortlist with its shortlist
 * max(256, 0.5 % of n) and prefilter factor 4, then the exact re-rank of that shortlist): recall@20 vs brute force,
 * for queries like the old rows and queries like the new ones. Two kinds of growth: "same" (new rows from the same
 * mixture) and "drift" (new rows from another mixture: another shared direction and other topics — a new domain,
 * the worst case for a centre fixed at the first build). Also the time of an append vs a full build.
 *
 *   npx tsx bench/vector-append.ts [--n 20000] [--d 512] [--queries 200] [--seed 1] [--out vector-index-append]
 *
 * Data: algorithms/search/synthetic-embeddings.ts, anisotropic (mean weight 1.5, spectrum decay 1, 100 topics).
 * Results: bench/results/<out>.json and .md.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../algorithms/search/synthetic-embeddings.ts";
import {
  appendVectorIndex,
  buildVectorIndex,
  codeShortlist,
  exactTopK,
  rerankIds,
  type VectorIndex,
} from "../algorithms/search/vector-index.ts";
import { codeVersion, machine, markdownTable, RESULTS_DIR, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "20000" },
    d: { type: "string", default: "512" },
    queries: { type: "string", default: "200" },
    seed: { type: "string", default: "1" },
    out: { type: "string", default: "vector-index-append" },
  },
});
const n0 = Number(values.n);
const d = Number(values.d);
const nq = Number(values.queries);
const seed = Number(values.seed);
const K = 20;
const GROWTH = [0.05, 0.1, 0.25, 0.5, 1, 2];
const shape = { meanWeight: 1.5, spectrumDecay: 1, clusters: 100 } as const;
const loadAtStart = loadavg();

function concat(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The intent memory's semantic stage (src/view/memory-neighbours.ts) with an exact float re-rank. */
function memorySearch(index: VectorIndex, q: Float32Array): number[] {
  const ids = codeShortlist(index, q, Math.min(index.n, Math.max(256, Math.ceil(0.005 * index.n))), {
    prefilterFactor: 4,
  });
  return rerankIds(index, ids, q, K).map((h) => h.id);
}

function truthOf(all: Float32Array, queries: Float32Array): Set<number>[] {
  return Array.from(
    { length: nq },
    (_, k) => new Set(exactTopK(all, d, queries.subarray(k * d, (k + 1) * d), K).map((h) => h.id)),
  );
}

function recall(index: VectorIndex, truth: Set<number>[], queries: Float32Array): number {
  let found = 0;
  for (let k = 0; k < nq; k++)
    for (const id of memorySearch(index, queries.subarray(k * d, (k + 1) * d))) if (truth[k]!.has(id)) found++;
  return found / (nq * K);
}

interface Row {
  growth: number;
  kind: "same" | "drift";
  queries: "old" | "new";
  appended: number;
  rebuilt: number;
}
const rows: Row[] = [];
const timing: { growth: number; appendMs: number; buildMs: number }[] = [];
const old = syntheticEmbeddings(d, mulberry32(seed), shape);
const other = syntheticEmbeddings(d, mulberry32(seed + 1000), shape);
const base = old.sample(n0);
const baseIndex = buildVectorIndex(base, d, { vectorStore: "reference", ivfFrom: 0 });
const oldQueries = old.sample(nq);
for (const kind of ["same", "drift"] as const) {
  const source = kind === "same" ? old : other;
  const newQueries = source.sample(nq);
  for (const g of GROWTH) {
    const added = source.sample(Math.round(g * n0));
    const all = concat(base, added);
    let t = performance.now();
    const appended = appendVectorIndex(baseIndex, added);
    const appendMs = performance.now() - t;
    t = performance.now();
    const rebuilt = buildVectorIndex(all, d, { vectorStore: "reference", ivfFrom: 0 });
    const buildMs = performance.now() - t;
    if (kind === "same") timing.push({ growth: g, appendMs, buildMs });
    for (const [label, qs] of [
      ["old", oldQueries],
      ["new", newQueries],
    ] as const) {
      const truth = truthOf(all, qs);
      const row = {
        growth: g,
        kind,
        queries: label,
        appended: recall(appended, truth, qs),
        rebuilt: recall(rebuilt, truth, qs),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
}

const command = `npx tsx bench/vector-append.ts --n ${n0} --d ${d} --queries ${nq} --seed ${seed} --out ${values.out}`;
const recallTable = markdownTable(
  ["growth since the full build", "new rows", "queries like", "recall@20 appended", "recall@20 rebuilt"],
  rows.map((r) => [r.growth, r.kind, r.queries, r.appended.toFixed(4), r.rebuilt.toFixed(4)]),
);
const timeTable = markdownTable(
  ["growth", "append ms", "full build ms"],
  timing.map((r) => [r.growth, r.appendMs.toFixed(1), r.buildMs.toFixed(1)]),
);
const md = `# Appending to the intent memory's vector index\n\n${n0} × ${d} anisotropic rows built, then appended; the intent memory's search (shortlist max(256, 0.5 % of n), prefilter factor 4, exact re-rank), ${nq} queries, recall@${K} vs brute force. \`${command}\`\n\n${recallTable}\n\n${timeTable}\n`;
writeFileSync(join(RESULTS_DIR, `${values.out}.md`), md);
writeResult(values.out, {
  bench: "vector-append",
  command,
  code: codeVersion(),
  machine: machine(),
  date: new Date().toISOString(),
  loadAverage: { start: loadAtStart, end: loadavg() },
  rows,
  timing,
});
console.log(md);
