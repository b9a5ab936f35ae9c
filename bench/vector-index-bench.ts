/**
 * Vector index benchmark: exact float32 scan vs the two-stage index (sign codes + exact re-ranking).
 *
 *   npx tsx bench/vector-index-bench.ts [--queries 200] [--shortlist 256] [--prefilter-words 2] [--prefilter-factor 8]
 *
 * Data: seeded synthetic unit vectors, d = 512 (the USE-lite dimension), two mixtures:
 *   - "clustered": 100 gaussian topics, noise 0.7, isotropic;
 *   - "anisotropic": 300 topics, noise 1.2, a shared mean component (weight 1.5) and a power-law spectrum,
 *     the shape of real sentence embeddings.
 * Queries are fresh draws from the same mixture. Prints one markdown table: latency p50/p95/p99 (ms per query,
 * top-10), the p50 speed-up over the exact scan (stable under machine load, unlike the absolute times) and
 * recall@10 against the exact scan.
 */
import { mulberry32 } from "../algorithms/random/rng.ts";
import { type SyntheticEmbeddingOptions, syntheticEmbeddings } from "../algorithms/search/synthetic-embeddings.ts";
import { buildVectorIndex, DEFAULTS, exactTopK, searchVectorIndex } from "../algorithms/search/vector-index.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const d = 512;
const queries = arg("queries", 200);
const shortlist = arg("shortlist", DEFAULTS.shortlist);
const prefilterWords = arg("prefilter-words", DEFAULTS.prefilterWords);
const prefilterFactor = arg("prefilter-factor", DEFAULTS.prefilterFactor);
const sizes = [1_000, 10_000, 50_000];
const datasets: { name: string; options: SyntheticEmbeddingOptions }[] = [
  { name: "clustered", options: { clusters: 100, noise: 0.7 } },
  { name: "anisotropic", options: { clusters: 300, noise: 1.2, meanWeight: 1.5, spectrumDecay: 1 } },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function fmt(x: number): string {
  return x < 10 ? x.toFixed(3) : x.toFixed(1);
}

const rows: string[] = [];
rows.push(`| data | n | method | build ms | p50 ms | p95 ms | p99 ms | p50 speed-up | recall@10 |`);
rows.push(`| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |`);
for (const ds of datasets) {
  for (const n of sizes) {
    const gen = syntheticEmbeddings(d, mulberry32(42), ds.options);
    const X = gen.sample(n);
    const Q = gen.sample(queries);
    const t0 = performance.now();
    const index = buildVectorIndex(X, d, { rng: mulberry32(7) });
    const buildMs = performance.now() - t0;
    // Warm up both paths so the JIT has compiled them before timing.
    for (let r = 0; r < Math.min(20, queries); r++) {
      const q = Q.subarray(r * d, (r + 1) * d);
      exactTopK(X, d, q, 10);
      searchVectorIndex(index, q, 10, { shortlist, prefilterWords, prefilterFactor });
    }
    const exactMs: number[] = [];
    const indexMs: number[] = [];
    let recall = 0;
    for (let r = 0; r < queries; r++) {
      const q = Q.subarray(r * d, (r + 1) * d);
      let t = performance.now();
      const truth = exactTopK(X, d, q, 10);
      exactMs.push(performance.now() - t);
      t = performance.now();
      const got = searchVectorIndex(index, q, 10, { shortlist, prefilterWords, prefilterFactor });
      indexMs.push(performance.now() - t);
      const ids = new Set(truth.map((h) => h.id));
      recall += got.filter((h) => ids.has(h.id)).length / truth.length;
    }
    exactMs.sort((a, b) => a - b);
    indexMs.sort((a, b) => a - b);
    const speedUp = (ms: number[]) => (percentile(exactMs, 0.5) / percentile(ms, 0.5)).toFixed(1);
    const line = (method: string, ms: number[], build: string, rec: string) =>
      `| ${ds.name} | ${n.toLocaleString("en")} | ${method} | ${build} | ${fmt(percentile(ms, 0.5))} | ${fmt(percentile(ms, 0.95))} | ${fmt(percentile(ms, 0.99))} | ${speedUp(ms)}× | ${rec} |`;
    rows.push(line("exact scan", exactMs, "–", "1.000"));
    rows.push(line(`index (shortlist ${shortlist}, prefilter ${32 * prefilterWords} bits × ${prefilterFactor})`, indexMs, buildMs.toFixed(0), (recall / queries).toFixed(4)));
  }
}
console.log(`Vector index, d = ${d}, top-10, ${queries} queries per row, Node ${process.version}\n`);
console.log(rows.join("\n"));
