/**
 * Vector index benchmark: toolgraph's staged index beside two native HNSW indexes (hnswlib-node, usearch; bench-only
 * devDependencies) and the exact float32 scan, on the same data and the same queries, contenders alternating.
 *
 *   nice -n 10 npx tsx bench/vector-index-bench.ts [--queries 200] [--sizes 100000] [--data clustered,anisotropic,real]
 *       [--contenders exact,toolgraph,toolgraph-cascade,hnswlib,usearch] [--ef 64] [--M 16] [--ef-construction 200]
 *       [--stages] [--repeats 1] [--out vector-index] [--hnsw-efs 128,256] [--tg-variants "shortlistFraction=0.003;..."]
 *       [--hnsw-cache /tmp/hnsw] [--tg-build "ivfMaxProbeFraction=1"]
 *
 * --hnsw-efs adds hnswlib contenders at other search widths on the same build, --tg-variants toolgraph contenders
 * with other VectorSearchOptions on the same index: the speed–recall frontier of both, from one run. --tg-build passes
 * VectorIndexOptions to toolgraph's build (e.g. ivfMaxProbeFraction=1 keeps the IVF stage whatever its calibration). --hnsw-cache DIR
 * writes hnswlib's index (and its build measurements) there after a build and reads it in later runs, to iterate
 * without its minutes-long build: the comparison stays within one process, the build columns are the building run's.
 *
 * Data: seeded synthetic unit vectors, d = 512 (the USE-lite dimension), two mixtures:
 *   - "clustered": 100 gaussian topics, noise 0.7, isotropic;
 *   - "anisotropic": 300 topics, noise 1.2, a shared mean component (weight 1.5) and a power-law spectrum,
 *     the shape of real sentence embeddings.
 * Queries are fresh draws from the same mixture; the truth is the exact top-10 (float64 dot products).
 * And one of real embeddings (bench/lib/real-embeddings.ts):
 *   - "real": USE-lite vectors of the real tool descriptions, parameter descriptions and intents of Seal-Tools,
 *     ToolLinkOS and NESTFUL (29,060 texts), then deterministic paraphrases of them beyond that; the first n + queries
 *     texts of a fixed hash order are embedded (cached in bench/tmp/real-embeddings/, rebuilt when missing: minutes),
 *     the first n are indexed and the last `queries` (held-out real texts) are the queries.
 *
 * Contenders (top-10 per query; each query runs every contender once, the order rotating per query):
 *   - exact: exactTopK, the full JS scan (the ground truth's own cost);
 *   - toolgraph: searchVectorIndex with its defaults (on an index built with its defaults);
 *   - toolgraph-cascade: the same index searched without its IVF stage (`ivf: false`): one blocked SIMD pass over
 *     every full sign code, then the exact re-rank (the same as "toolgraph" when the build kept no IVF stage);
 *   - hnswlib: hnswlib-node HierarchicalNSW, inner product, M 16, efConstruction 200, efSearch --ef;
 *   - usearch: usearch Index, inner product, float32, connectivity M, expansion_add efConstruction,
 *     expansion_search --ef, one search thread (build with its default threads).
 * Reported per contender: p50/p95/p99 ms per query, p50 as a ratio to hnswlib's from the same run, recall@10,
 * build time and memory. Memory: the bytes the toolgraph index holds (vectorIndexBytes: its typed arrays and the
 * WebAssembly memories of its kernels; the input array is not counted when the index keeps its vectors only in
 * the kernel), the resident-set growth of the process during a native build (RSS after − before, the native
 * heap being invisible to JS), both also as a ratio to the raw float32 vectors (n · d · 4 bytes).
 * `uptime` (load average) is recorded: the machine is shared, so compare contenders within a run. With
 * --repeats r, each contender answers each query r times in a row and the query's time is the fastest of them
 * (a search preempted by another process's time slice is not the search's cost; r = 1 reports every time).
 *
 * --stages adds the per-stage table of the JS and SIMD kernels (code scan, float32 and int8 re-ranks).
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { dotsInt8, quantizeInt8 } from "../algorithms/search/int8-vectors.ts";
import { type SyntheticEmbeddingOptions, syntheticEmbeddings } from "../algorithms/search/synthetic-embeddings.ts";
import { topKOfArray } from "../algorithms/search/top-k.ts";
import {
  buildVectorIndex,
  codeShortlist,
  DEFAULTS,
  exactTopK,
  rerankIds,
  searchVectorIndex,
  type VectorIndex,
  vectorIndexBytes,
} from "../algorithms/search/vector-index.ts";
import { simdAvailable } from "../algorithms/simd/row-dots.ts";
import { realEmbeddings } from "./lib/real-embeddings.ts";
import { machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    queries: { type: "string", default: "200" },
    sizes: { type: "string", default: "100000" },
    data: { type: "string", default: "clustered,anisotropic" },
    contenders: { type: "string", default: "exact,toolgraph,toolgraph-cascade,hnswlib,usearch" },
    ef: { type: "string", default: "64" },
    "hnsw-efs": { type: "string", default: "" },
    "tg-variants": { type: "string", default: "" },
    "tg-build": { type: "string", default: "" },
    M: { type: "string", default: "16" },
    "ef-construction": { type: "string", default: "200" },
    stages: { type: "boolean", default: false },
    repeats: { type: "string", default: "1" },
    out: { type: "string", default: "vector-index" },
    "hnsw-cache": { type: "string", default: "" },
  },
});

const d = 512;
const K = 10;
const queries = Number(values.queries);
const sizes = values.sizes.split(",").map(Number);
const ef = Number(values.ef);
const M = Number(values.M);
const efc = Number(values["ef-construction"]);
const repeats = Number(values.repeats);
/** Extra hnswlib search widths on the same build (the speed–recall frontier), e.g. "128,256". */
const extraEfs = values["hnsw-efs"] === "" ? [] : values["hnsw-efs"].split(",").map(Number);
/**
 * Extra toolgraph search settings on the same index, ";"-separated, each "key=value,key=value" of
 * VectorSearchOptions numbers, e.g. "shortlist=64,shortlistFraction=0.002;ivfProbeFraction=0.02;ivfFine=0" (the boolean
 * options take 0/1 or false/true).
 */
const BOOLEAN_OPTIONS = new Set(["ivf", "ivfFine", "simd", "scanSimd", "graph"]);
const tgVariants: Record<string, number | boolean>[] =
  values["tg-variants"] === ""
    ? []
    : values["tg-variants"].split(";").map((v) =>
        Object.fromEntries(
          v.split(",").map((kv) => {
            const [k, x] = kv.split("=");
            return [k!, BOOLEAN_OPTIONS.has(k!) ? x === "1" || x === "true" : Number(x)];
          }),
        ),
      );
/** Build options of toolgraph's index, "key=value,…" of VectorIndexOptions numbers, e.g. "ivfMaxProbeFraction=1" (graph: 0/1). */
const tgBuild: Record<string, number | boolean> =
  values["tg-build"] === ""
    ? {}
    : Object.fromEntries(
        values["tg-build"].split(",").map((kv) => {
          const [k, x] = kv.split("=");
          return [k!, k === "graph" ? x === "1" || x === "true" : Number(x)];
        }),
      );
const wantedContenders = values.contenders.split(",");
const all: { name: string; options?: SyntheticEmbeddingOptions }[] = [
  { name: "clustered", options: { clusters: 100, noise: 0.7 } },
  { name: "anisotropic", options: { clusters: 300, noise: 1.2, meanWeight: 1.5, spectrumDecay: 1 } },
  { name: "real" },
];
const datasets = all.filter((ds) => values.data.split(",").includes(ds.name));
const uptime = () => execSync("uptime").toString().trim();
const log = (s: string) => console.error(`[vector-index] ${s}`);
const gc = (globalThis as { gc?: () => void }).gc;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rss = () => {
  gc?.();
  return process.memoryUsage().rss;
};

interface Contender {
  name: string;
  buildMs: number;
  /** CPU seconds of the process during the build (user + system, all threads): the build's cost on a loaded machine. */
  buildCpuMs: number;
  /** Bytes held (toolgraph: counted; natives: RSS growth during the build). */
  memoryBytes: number;
  memoryHow: string;
  search(q: Float32Array): number[];
  dispose?(): void;
}

const require = createRequire(import.meta.url);

function toolgraphContender(
  name: string,
  index: VectorIndex,
  buildMs: number,
  buildCpuMs: number,
  options: Parameters<typeof searchVectorIndex>[3],
): Contender {
  return {
    name,
    buildMs,
    buildCpuMs,
    memoryBytes: vectorIndexBytes(index),
    memoryHow: "counted (typed arrays + kernel memories)",
    search: (q) => searchVectorIndex(index, q, K, options).map((h) => h.id),
  };
}

/**
 * hnswlib's index, built here, or read from --hnsw-cache (a directory: the index file and its build measurements,
 * keyed by data, n, d, M and efConstruction; the data are seeded) — the build columns then are the run that built
 * it, and the contender's memoryHow says so.
 */
function hnswlibContender(X: Float32Array, n: number, data: string): Contender[] {
  const { HierarchicalNSW } = require("hnswlib-node") as typeof import("hnswlib-node");
  const cache =
    values["hnsw-cache"] === ""
      ? undefined
      : `${values["hnsw-cache"]}/hnswlib-${data}-n${n}-d${d}-M${M}-efc${efc}-seed42`;
  const before = rss();
  const t0 = performance.now();
  const c0 = cpuMs();
  const h = new HierarchicalNSW("ip", d);
  let loaded: { buildMs: number; buildCpuMs: number; memoryBytes: number } | undefined;
  if (cache && existsSync(`${cache}.json`) && existsSync(`${cache}.bin`)) {
    h.readIndexSync(`${cache}.bin`);
    loaded = JSON.parse(readFileSync(`${cache}.json`, "utf8"));
    log(`hnswlib: read ${cache}.bin (built in an earlier run)`);
  } else {
    h.initIndex(n, M, efc, 100);
    for (let i = 0; i < n; i++) {
      h.addPoint(Array.from(X.subarray(i * d, (i + 1) * d)), i);
      if (i % 20000 === 19999) log(`hnswlib: ${i + 1} added`);
    }
  }
  h.setEf(ef);
  const buildMs = loaded?.buildMs ?? performance.now() - t0;
  const buildCpuMs = loaded?.buildCpuMs ?? cpuMs() - c0;
  const memoryBytes = loaded?.memoryBytes ?? rss() - before;
  if (cache && !loaded) {
    mkdirSync(values["hnsw-cache"]!, { recursive: true });
    h.writeIndexSync(`${cache}.bin`);
    writeFileSync(`${cache}.json`, JSON.stringify({ buildMs, buildCpuMs, memoryBytes }));
  }
  // One build, several search widths: each contender sets its ef before its search (a field store).
  return [ef, ...extraEfs].map((e) => ({
    name: `hnswlib (M ${M}, ef ${e})`,
    buildMs,
    buildCpuMs,
    memoryBytes,
    memoryHow: loaded
      ? "RSS growth during the build (index read from --hnsw-cache; build columns from the run that built it)"
      : "RSS growth during the build",
    search: (q: Float32Array) => {
      h.setEf(e);
      return h.searchKnn(Array.from(q), K).neighbors;
    },
  }));
}

function usearchContender(X: Float32Array, n: number): Contender {
  const us = require("usearch") as typeof import("usearch");
  const before = rss();
  const t0 = performance.now();
  const c0 = cpuMs();
  const index = new us.Index({
    metric: us.MetricKind.IP,
    connectivity: M,
    dimensions: d,
    expansion_add: efc,
    expansion_search: ef,
    quantization: us.ScalarKind.F32,
    multi: false,
  });
  const keys = new BigUint64Array(n);
  for (let i = 0; i < n; i++) keys[i] = BigInt(i);
  index.add(keys, X);
  const buildMs = performance.now() - t0;
  const buildCpuMs = cpuMs() - c0;
  return {
    name: `usearch (M ${M}, ef ${ef})`,
    buildMs,
    buildCpuMs,
    memoryBytes: rss() - before,
    memoryHow: "RSS growth during the build",
    search: (q) => Array.from((index.search(q, K, 1) as { keys: BigUint64Array }).keys, Number),
  };
}

function time<T>(ms: number[], f: () => T): T {
  const t = performance.now();
  const r = f();
  ms.push(performance.now() - t);
  return r;
}

interface Row {
  data: string;
  n: number;
  d: number;
  contender: string;
  p50: number;
  p95: number;
  p99: number;
  p50VsHnswlib: number | null;
  recall10: number;
  buildMs: number;
  buildCpuMs: number;
  memoryBytes: number;
  memoryVsRaw: number;
  memoryHow: string;
}

const rows: Row[] = [];
const stageRows: string[][] = [];
const uptimes: string[] = [uptime()];
const results = () => ({
  bench: "vector-index",
  command: `node --expose-gc --import tsx bench/vector-index-bench.ts ${process.argv.slice(2).join(" ")}`,
  machine: machine(),
  note: "shared 2-core machine (other helpers' jobs running): compare contenders within one run; p50 ratios are to hnswlib's p50 of the same run",
  uptime: uptimes,
  options: {
    queries,
    sizes,
    d,
    k: K,
    ef,
    M,
    efConstruction: efc,
    contenders: wantedContenders,
    repeats,
    simd: simdAvailable(),
    toolgraphBuild: tgBuild,
  },
  rows,
});

for (const ds of datasets) {
  for (const n of sizes) {
    log(`${ds.name} n=${n}: generating`);
    const { X, Q } = await dataOf(ds.options, n);
    const truth: Set<number>[] = [];
    for (let r = 0; r < queries; r++)
      truth.push(new Set(exactTopK(X, d, Q.subarray(r * d, (r + 1) * d), K).map((h) => h.id)));
    const contenders: Contender[] = [];
    if (wantedContenders.includes("exact"))
      contenders.push({
        name: "exact scan (JS)",
        buildMs: 0,
        buildCpuMs: 0,
        memoryBytes: 4 * n * d,
        memoryHow: "the raw vectors",
        search: (q) => exactTopK(X, d, q, K).map((h) => h.id),
      });
    if (wantedContenders.some((c) => c.startsWith("toolgraph"))) {
      log(`${ds.name} n=${n}: building toolgraph's index`);
      const t0 = performance.now();
      const c0 = cpuMs();
      const index = buildVectorIndex(X, d, tgBuild);
      log(
        `${ds.name} n=${n}: IVF ${index.ivf ? `${index.ivf.lists} lists, probe ${(100 * index.ivf.probeFraction).toFixed(2)} % of n` : "not kept"}${index.graph ? `; graph degree ${index.graph.degree}, beam ${index.graph.beam}` : ""} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      // The first search creates the SIMD kernels (their copies are part of the build).
      searchVectorIndex(index, Q.subarray(0, d), K);
      const buildMs = performance.now() - t0;
      const buildCpuMs = cpuMs() - c0;
      if (wantedContenders.includes("toolgraph"))
        contenders.push(toolgraphContender("toolgraph (defaults)", index, buildMs, buildCpuMs, {}));
      for (const v of tgVariants)
        contenders.push(
          toolgraphContender(
            `toolgraph (${Object.entries(v)
              .map(([k, x]) => `${k} ${x}`)
              .join(", ")})`,
            index,
            buildMs,
            buildCpuMs,
            v,
          ),
        );
      if (wantedContenders.includes("toolgraph-cascade"))
        contenders.push(
          toolgraphContender("toolgraph (no IVF, no graph: full-code scan)", index, buildMs, buildCpuMs, {
            ivf: false,
            graph: false,
          }),
        );
      if (values.stages) stageRows.push(...stages(ds.name, X, Q, n, index));
    }
    if (wantedContenders.includes("hnswlib")) {
      log(`${ds.name} n=${n}: building hnswlib`);
      contenders.push(...hnswlibContender(X, n, ds.name));
    }
    if (wantedContenders.includes("usearch")) {
      log(`${ds.name} n=${n}: building usearch`);
      contenders.push(usearchContender(X, n));
    }
    uptimes.push(uptime());
    const ms = contenders.map(() => [] as number[]);
    const recall = contenders.map(() => 0);
    const warm = Math.min(10, queries);
    for (let r = -warm; r < queries; r++) {
      const qi = r < 0 ? r + warm : r;
      const q = Q.subarray(qi * d, (qi + 1) * d);
      for (let k = 0; k < contenders.length; k++) {
        const c = (k + (r < 0 ? 0 : r)) % contenders.length;
        const sink: number[] = [];
        const tries: number[] = [];
        let ids: number[] = [];
        for (let t = 0; t < repeats; t++) ids = time(tries, () => contenders[c]!.search(q));
        (r < 0 ? sink : ms[c]!).push(Math.min(...tries));
        if (r >= 0) recall[c]! += ids.filter((id) => truth[qi]!.has(id)).length / K;
      }
    }
    uptimes.push(uptime());
    const hnsw = contenders.findIndex((c) => c.name === `hnswlib (M ${M}, ef ${ef})`);
    const hnswP50 = hnsw >= 0 ? percentiles(ms[hnsw]!).p50 : null;
    contenders.forEach((c, k) => {
      const p = percentiles(ms[k]!);
      rows.push({
        data: ds.name,
        n,
        d,
        contender: c.name,
        p50: p.p50,
        p95: p.p95,
        p99: p.p99,
        p50VsHnswlib: hnswP50 ? p.p50 / hnswP50 : null,
        recall10: recall[k]! / queries,
        buildMs: c.buildMs,
        buildCpuMs: c.buildCpuMs,
        memoryBytes: c.memoryBytes,
        memoryVsRaw: c.memoryBytes / (4 * n * d),
        memoryHow: c.memoryHow,
      });
      log(
        `${ds.name} n=${n} ${c.name}: p50 ${p.p50.toFixed(3)} ms, recall@10 ${(recall[k]! / queries).toFixed(4)}, build ${(c.buildMs / 1000).toFixed(1)} s (CPU ${(c.buildCpuMs / 1000).toFixed(1)} s), ${(c.memoryBytes / 2 ** 20).toFixed(1)} MiB`,
      );
    });
    writeResult(values.out, results());
  }
}

/** n indexed vectors and the queries: a seeded synthetic mixture, or real embeddings (the last `queries` held out). */
async function dataOf(
  options: SyntheticEmbeddingOptions | undefined,
  n: number,
): Promise<{ X: Float32Array; Q: Float32Array }> {
  if (options) {
    const gen = syntheticEmbeddings(d, mulberry32(42), options);
    return { X: gen.sample(n), Q: gen.sample(queries) };
  }
  const real = await realEmbeddings(n + queries, log);
  if (real.texts.length < n + queries) throw new Error(`real: only ${real.texts.length} texts, ${n + queries} wanted`);
  return { X: real.vectors.slice(0, n * d), Q: real.vectors.slice(n * d, (n + queries) * d) };
}

/** Per-stage p50 of the JS and SIMD kernels on the cascade's shortlist (the former bench's second table). */
function stages(name: string, X: Float32Array, Q: Float32Array, n: number, index: VectorIndex): string[][] {
  const i8js = quantizeInt8(X, d, { simd: false });
  const i8simd = quantizeInt8(X, d, { simd: true });
  const size = Math.min(n, Math.max(DEFAULTS.shortlist, Math.ceil(DEFAULTS.shortlistFraction * n)));
  const st = {
    scan: [] as number[],
    scanSimd: [] as number[],
    fJs: [] as number[],
    fSimd: [] as number[],
    iJs: [] as number[],
    iSimd: [] as number[],
  };
  let overlap = 0;
  let sameF = 0;
  let sameI = 0;
  const same = (a: { id: number }[], b: { id: number }[]) =>
    a.length === b.length && a.every((h, i) => h.id === b[i]!.id);
  for (let r = 0; r < queries; r++) {
    const q = Q.subarray(r * d, (r + 1) * d);
    const ids = time(st.scan, () => codeShortlist(index, q, size, { scanSimd: false }));
    const idsSimd = time(st.scanSimd, () => codeShortlist(index, q, size, { scanSimd: true }));
    const fj = time(st.fJs, () => rerankIds(index, ids, q, K, { simd: false }));
    const fs = time(st.fSimd, () => rerankIds(index, ids, q, K, { simd: true }));
    const ij = time(st.iJs, () => dotsInt8(i8js, ids, q));
    const is = time(st.iSimd, () => dotsInt8(i8simd, ids, q));
    const jsIds = new Set(ids);
    overlap += Array.from(idsSimd).filter((id) => jsIds.has(id)).length / ids.length;
    if (same(fj, fs)) sameF++;
    if (same(topKOfArray(ij, K), topKOfArray(is, K))) sameI++;
  }
  const p = (x: number[]) => percentiles(x).p50;
  return [
    [
      name,
      String(n),
      String(size),
      p(st.scan).toFixed(3),
      p(st.scanSimd).toFixed(3),
      (overlap / queries).toFixed(3),
      p(st.fJs).toFixed(3),
      p(st.fSimd).toFixed(3),
      `${sameF}/${queries}`,
      p(st.iJs).toFixed(3),
      p(st.iSimd).toFixed(3),
      `${sameI}/${queries}`,
    ],
  ];
}

const mib = (b: number) => (b / 2 ** 20).toFixed(1);
console.log(
  `Vector index, d = ${d}, top-${K}, ${queries} queries per row, Node ${process.version}, SIMD ${simdAvailable() ? "available" : "unavailable"}; load: ${uptimes.join(" | ")}\n`,
);
console.log(
  markdownTable(
    [
      "data",
      "n",
      "contender",
      "p50 ms",
      "p95 ms",
      "p99 ms",
      "p50 / hnswlib",
      "recall@10",
      "build s",
      "build CPU s",
      "memory MiB",
      "memory / raw",
    ],
    rows.map((r) => [
      r.data,
      String(r.n),
      r.contender,
      r.p50.toFixed(3),
      r.p95.toFixed(3),
      r.p99.toFixed(3),
      r.p50VsHnswlib === null ? "–" : `${r.p50VsHnswlib.toFixed(2)}×`,
      r.recall10.toFixed(4),
      (r.buildMs / 1000).toFixed(1),
      (r.buildCpuMs / 1000).toFixed(1),
      mib(r.memoryBytes),
      r.memoryVsRaw.toFixed(2),
    ]),
  ),
);
if (stageRows.length > 0) {
  console.log("\nStages alone, p50 ms per query (the cascade's shortlist):\n");
  console.log(
    markdownTable(
      [
        "data",
        "n",
        "shortlist",
        "code scan JS",
        "code scan SIMD",
        "shortlist overlap",
        "f32 re-rank JS",
        "f32 re-rank SIMD",
        "same top-10",
        "int8 re-rank JS",
        "int8 re-rank SIMD",
        "same top-10",
      ],
      stageRows,
    ),
  );
}
writeResult(values.out, results());
