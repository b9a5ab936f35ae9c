/**
 * Intent-memory scale bench: 100k past executions with intents → recall latency (p50/p95/p99,
 * excluding the query embedding), the memory the index takes, and the neighbour recall of the quantised
 * semantic channel (sign-code stages + int8 re-ranking) against an exact float32 scan.
 *
 * Two workloads: the synthetic traces as generated (agents repeat their requests: 100k executions carry
 * ~1.6k distinct intents, which the memory indexes once each) and the same traces with every intent made
 * unique by a seeded three-word qualifier (the worst case: 100k distinct texts to search).
 *   node --expose-gc --import tsx bench/memory.ts [--executions 100000] [--queries 200] [--embeddings hash:512]
 */

import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { openToolgraph } from "../src/index.ts";
import { machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";
import { generateSyntheticProject } from "./synthetic/generate.ts";

const QUALIFIERS = (
  "alpha beta gamma delta north south east west red green blue amber quarterly weekly daily monthly urgent " +
  "draft final legacy staging production europe asia america billing payroll marketing sales support legal " +
  "finance design mobile desktop backend frontend partner vendor customer internal external archive nightly"
).split(" ");

interface Workload {
  name: string;
  unique: boolean;
}

async function runOne(o: { executions: number; queries: number; embeddings: string }, w: Workload) {
  const gen = generateSyntheticProject({ tools: 2000, traces: o.executions, seed: 7 });
  if (w.unique) {
    const rng = mulberry32(11);
    const pick = () => QUALIFIERS[Math.floor(rng() * QUALIFIERS.length)]!;
    gen.traces.forEach((t, i) => {
      const tr = t as { intent?: string };
      tr.intent = `${tr.intent ?? ""} for ${pick()} ${pick()} ${pick()} batch ${i}`;
    });
  }
  const tg = await openToolgraph({ home: "memory://", database: "", project: "mem", embeddings: o.embeddings });
  try {
    await tg.importCatalog(gen.catalog, { embed: false });
    for (let i = 0; i < gen.traces.length; i += 10_000)
      await tg.importTraces(gen.traces.slice(i, i + 10_000) as object[]);
    global.gc?.();
    const heapBefore = process.memoryUsage();
    const t0 = performance.now();
    const mem = await tg.memoryStats();
    const buildMs = performance.now() - t0;
    global.gc?.();
    const heapAfter = process.memoryUsage();
    let typed = mem.typedArrayBytes;
    // Queries: held-out paraphrases of past intents ("… please").
    const queries = gen.traces.slice(0, o.queries).map((t) => `${(t as { intent?: string }).intent ?? ""} please`);
    const vectors = await (await tg.searchModel()).embed(queries);
    for (let i = 0; i < 20; i++) await tg.recall(queries[i]!, { vector: vectors[i]! });
    // the SIMD code-scan kernel's WebAssembly memory (made by the first recall): its copies of the codes, blocked
    // prefixes and scales, and its buffers
    typed += (await tg.memoryStats()).scanKernelBytes;
    const times: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const t = performance.now();
      await tg.recall(queries[i]!, { vector: vectors[i]! });
      times.push(performance.now() - t);
    }
    // Neighbour recall of the semantic channel (sign-code stages + int8 re-ranking, top 20) against an exact
    // float32 cosine scan over every distinct intent.
    const probes = vectors.slice(0, Math.min(50, queries.length));
    const exact = await tg.memoryNeighbours(probes, { k: 20, exact: true });
    const semantic = await tg.memoryNeighbours(probes, { k: 20 });
    let agree = 0;
    let total = 0;
    for (let qi = 0; qi < probes.length; qi++) {
      const got = new Set(semantic[qi]!.map((h) => h.text));
      agree += exact[qi]!.filter((x) => got.has(x.text)).length;
      total += exact[qi]!.length;
    }
    const p = percentiles(times);
    return {
      workload: w.name,
      executions: mem.executions,
      distinctIntents: mem.distinctIntents,
      dims: mem.dims,
      buildMs,
      recallMs: p,
      typedArrayMiB: typed / 2 ** 20,
      // The index = JS objects it holds (rows, strings, maps: the heapUsed delta) + its typed arrays. The
      // arrayBuffers delta is not used: with the embedded PGlite it also counts the database's own WASM memory.
      indexMiB: (heapAfter.heapUsed - heapBefore.heapUsed + typed) / 2 ** 20,
      heapDeltaMiB:
        (heapAfter.heapUsed + heapAfter.arrayBuffers - heapBefore.heapUsed - heapBefore.arrayBuffers) / 2 ** 20,
      rssMiB: heapAfter.rss / 2 ** 20,
      semanticRecallAt20: total > 0 ? agree / total : null,
    };
  } finally {
    await tg.close();
  }
}

export async function runMemoryBench(o: { executions: number; queries: number; embeddings: string }) {
  const results = [];
  for (const w of [
    { name: "synthetic traces (repeated intents)", unique: false },
    { name: "every intent unique", unique: true },
  ]) {
    results.push(await runOne(o, w));
    global.gc?.();
  }
  console.log(`# intent memory at scale\n\nmachine: ${machine()}\n`);
  console.log(
    markdownTable(
      [
        "workload",
        "past executions",
        "distinct intents",
        "recall p50 ms",
        "p95",
        "p99",
        "index build s",
        "typed arrays MiB",
        "index MiB (JS heap + typed)",
        "process heap + buffers delta MiB (incl. PGlite)",
        "semantic top-20 recall vs exact",
      ],
      results.map((r) => [
        r.workload,
        r.executions,
        r.distinctIntents,
        r.recallMs.p50,
        r.recallMs.p95,
        r.recallMs.p99,
        r.buildMs / 1000,
        r.typedArrayMiB,
        r.indexMiB,
        r.heapDeltaMiB,
        r.semanticRecallAt20,
      ]),
    ),
  );
  for (const r of results) {
    console.log(
      `\n${r.workload}: recall p50 ≤ 3 ms → ${r.recallMs.p50 <= 3 ? "PASS" : "FAIL"}; index memory ≤ 200 MB (${((r.indexMiB * 2 ** 20) / 1e6).toFixed(1)} MB) → ${r.indexMiB * 2 ** 20 <= 200e6 ? "PASS" : "FAIL"}`,
    );
  }
  writeResult("memory", { machine: machine(), results });
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { values } = parseArgs({
    options: {
      executions: { type: "string", default: "100000" },
      queries: { type: "string", default: "200" },
      embeddings: { type: "string", default: "hash:512" },
    },
  });
  await runMemoryBench({
    executions: Number(values.executions),
    queries: Number(values.queries),
    embeddings: values.embeddings!,
  });
}
