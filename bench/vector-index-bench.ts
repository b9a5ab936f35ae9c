/**
 * Vector index benchmark: exact float32 scan vs the two-stage index (sign codes + exact re-ranking), and the
 * re-rank kernels in JS vs WebAssembly SIMD (algorithms/simd).
 *
 *   nice -n 10 npx tsx bench/vector-index-bench.ts [--queries 100] [--sizes 10000,100000] [--data anisotropic]
 *       [--shortlist 256] [--prefilter-words 4] [--prefilter-factor 8]
 *
 * Data: seeded synthetic unit vectors, d = 512 (the USE-lite dimension), two mixtures:
 *   - "clustered": 100 gaussian topics, noise 0.7, isotropic;
 *   - "anisotropic": 300 topics, noise 1.2, a shared mean component (weight 1.5) and a power-law spectrum,
 *     the shape of real sentence embeddings.
 * Queries are fresh draws from the same mixture. Prints two markdown tables of per-query latency (ms, top-10):
 *   1. whole searches: the exact scan, the index with the JS code scan and the JS re-rank, the JS scan and the
 *      SIMD re-rank, and the SIMD code scan (4-bit query) and the SIMD re-rank (p50/p95/p99, the p50 speed-up
 *      over the exact scan, recall@10 against the exact scan);
 *   2. the stages alone, p50: the code scan (codeShortlist, JS tables vs SIMD 4-bit query, with the share of the
 *      JS shortlist the SIMD shortlist keeps), the float32 re-rank of the JS shortlist (rerankIds,
 *      JS vs SIMD) and the int8 re-rank of the same ids (dotsInt8, JS vs SIMD), with the share of queries whose
 *      SIMD top-10 equals the JS top-10 (ids) for each.
 */
import { mulberry32 } from "../algorithms/random/rng.ts";
import { dotsInt8, quantizeInt8 } from "../algorithms/search/int8-vectors.ts";
import { type SyntheticEmbeddingOptions, syntheticEmbeddings } from "../algorithms/search/synthetic-embeddings.ts";
import { topKOfArray } from "../algorithms/search/top-k.ts";
import { buildVectorIndex, codeShortlist, DEFAULTS, exactTopK, rerankIds, searchVectorIndex } from "../algorithms/search/vector-index.ts";
import { simdAvailable } from "../algorithms/simd/row-dots.ts";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const d = 512;
const queries = Number(arg("queries", "100"));
const shortlist = Number(arg("shortlist", String(DEFAULTS.shortlist)));
const prefilterWords = Number(arg("prefilter-words", String(DEFAULTS.prefilterWords)));
const prefilterFactor = Number(arg("prefilter-factor", String(DEFAULTS.prefilterFactor)));
const sizes = arg("sizes", "10000,100000").split(",").map(Number);
const all: { name: string; options: SyntheticEmbeddingOptions }[] = [
  { name: "clustered", options: { clusters: 100, noise: 0.7 } },
  { name: "anisotropic", options: { clusters: 300, noise: 1.2, meanWeight: 1.5, spectrumDecay: 1 } },
];
const wanted = arg("data", "clustered,anisotropic").split(",");
const datasets = all.filter((ds) => wanted.includes(ds.name));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
const p50 = (ms: number[]) => percentile([...ms].sort((a, b) => a - b), 0.5);
function fmt(x: number): string {
  return x < 10 ? x.toFixed(3) : x.toFixed(1);
}
function time<T>(ms: number[], f: () => T): T {
  const t = performance.now();
  const r = f();
  ms.push(performance.now() - t);
  return r;
}
const sameIds = (a: { id: number }[], b: { id: number }[]) => a.length === b.length && a.every((h, i) => h.id === b[i]!.id);

const search: string[] = [
  "| data | n | method | p50 ms | p95 ms | p99 ms | p50 speed-up | recall@10 |",
  "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
];
const stages: string[] = [
  "| data | n | shortlist | code scan JS | code scan SIMD | speed-up | shortlist overlap | f32 re-rank JS | f32 re-rank SIMD | speed-up | same top-10 | int8 re-rank JS | int8 re-rank SIMD | speed-up | same top-10 |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
];
for (const ds of datasets) {
  for (const n of sizes) {
    const gen = syntheticEmbeddings(d, mulberry32(42), ds.options);
    const X = gen.sample(n);
    const Q = gen.sample(queries);
    const index = buildVectorIndex(X, d, { rng: mulberry32(7) });
    const i8js = quantizeInt8(X, d, { simd: false });
    const i8simd = quantizeInt8(X, d, { simd: true });
    const opts = { shortlist, prefilterWords, prefilterFactor };
    const ms = { exact: [] as number[], js: [] as number[], simd: [] as number[], both: [] as number[], scan: [] as number[], scanSimd: [] as number[] };
    const st = { fJs: [] as number[], fSimd: [] as number[], iJs: [] as number[], iSimd: [] as number[] };
    let recallJs = 0;
    let recallSimd = 0;
    let recallBoth = 0;
    let overlap = 0;
    let sameF = 0;
    let sameI = 0;
    let listSize = 0;
    for (let r = -Math.min(10, queries); r < queries; r++) {
      const warm = r < 0; // the first rounds warm the JIT (and create the SIMD kernel) untimed
      const q = Q.subarray((warm ? r + queries : r) * d, ((warm ? r + queries : r) + 1) * d);
      const sink = { exact: [] as number[], js: [] as number[], simd: [] as number[], both: [] as number[], scan: [] as number[], scanSimd: [] as number[] };
      const m = warm ? sink : ms;
      const truth = time(m.exact, () => exactTopK(X, d, q, 10));
      const js = time(m.js, () => searchVectorIndex(index, q, 10, { ...opts, simd: false, scanSimd: false }));
      const simd = time(m.simd, () => searchVectorIndex(index, q, 10, { ...opts, simd: true, scanSimd: false }));
      const both = time(m.both, () => searchVectorIndex(index, q, 10, { ...opts, simd: true, scanSimd: true }));
      const size = Math.min(n, Math.max(shortlist, Math.ceil(DEFAULTS.shortlistFraction * n)));
      const ids = time(m.scan, () => codeShortlist(index, q, size, { ...opts, scanSimd: false }));
      const idsSimd = time(m.scanSimd, () => codeShortlist(index, q, size, { ...opts, scanSimd: true }));
      listSize = ids.length;
      const s = warm ? { fJs: [], fSimd: [], iJs: [], iSimd: [] } : st;
      const fj = time(s.fJs, () => rerankIds(index, ids, q, 10, { simd: false }));
      const fs = time(s.fSimd, () => rerankIds(index, ids, q, 10, { simd: true }));
      const ij = time(s.iJs, () => dotsInt8(i8js, ids, q));
      const is = time(s.iSimd, () => dotsInt8(i8simd, ids, q));
      if (warm) continue;
      const set = new Set(truth.map((h) => h.id));
      recallJs += js.filter((h) => set.has(h.id)).length / truth.length;
      recallSimd += simd.filter((h) => set.has(h.id)).length / truth.length;
      recallBoth += both.filter((h) => set.has(h.id)).length / truth.length;
      const jsIds = new Set(ids);
      overlap += idsSimd.filter((id) => jsIds.has(id)).length / ids.length;
      if (sameIds(fj, fs)) sameF++;
      if (sameIds(topKOfArray(ij, 10), topKOfArray(is, 10))) sameI++;
    }
    const exactP50 = p50(ms.exact);
    const line = (method: string, t: number[], rec: string) => {
      const sorted = [...t].sort((a, b) => a - b);
      return `| ${ds.name} | ${n.toLocaleString("en")} | ${method} | ${fmt(percentile(sorted, 0.5))} | ${fmt(percentile(sorted, 0.95))} | ${fmt(percentile(sorted, 0.99))} | ${(exactP50 / percentile(sorted, 0.5)).toFixed(1)}× | ${rec} |`;
    };
    search.push(line("exact scan", ms.exact, "1.000"));
    search.push(line("index, JS scan + re-rank", ms.js, (recallJs / queries).toFixed(4)));
    search.push(line("index, JS scan, SIMD re-rank", ms.simd, (recallSimd / queries).toFixed(4)));
    search.push(line("index, SIMD scan + re-rank", ms.both, (recallBoth / queries).toFixed(4)));
    stages.push(
      `| ${ds.name} | ${n.toLocaleString("en")} | ${listSize} | ${fmt(p50(ms.scan))} | ${fmt(p50(ms.scanSimd))} | ${(p50(ms.scan) / p50(ms.scanSimd)).toFixed(1)}× | ${(overlap / queries).toFixed(3)} | ${fmt(p50(st.fJs))} | ${fmt(p50(st.fSimd))} | ${(p50(st.fJs) / p50(st.fSimd)).toFixed(1)}× | ${sameF}/${queries} | ${fmt(p50(st.iJs))} | ${fmt(p50(st.iSimd))} | ${(p50(st.iJs) / p50(st.iSimd)).toFixed(1)}× | ${sameI}/${queries} |`,
    );
  }
}
console.log(`Vector index, d = ${d}, top-10, ${queries} queries per row, shortlist ${shortlist}, prefilter ${32 * prefilterWords} bits × ${prefilterFactor}, Node ${process.version}, SIMD ${simdAvailable() ? "available" : "unavailable"}\n`);
console.log(search.join("\n"));
console.log("\nStages alone, p50 ms per query (re-ranks of the code scan's shortlist):\n");
console.log(stages.join("\n"));
