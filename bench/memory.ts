/**
 * Intent-memory scale bench (issue 9): 100k past executions with intents → recall latency (p50/p95/p99,
 * excluding the query embedding), the memory the index takes, and the neighbour recall of the quantised
 * index (1-bit codes + int8 re-ranking) against an exact float32 scan.
 *   npx tsx bench/memory.ts [--executions 100000] [--queries 200] [--embeddings hash:512]
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { openToolgraph } from "../src/api/toolgraph.ts";
import { memoryIndex, recallMemory } from "../src/services/memory.ts";
import { generateSyntheticProject } from "./synthetic/generate.ts";
import { machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";

export async function runMemoryBench(o: { executions: number; queries: number; embeddings: string }) {
  const gen = generateSyntheticProject({ tools: 2000, traces: o.executions, seed: 7 });
  const tg = await openToolgraph({ home: "memory://", database: "", project: "mem", embeddings: o.embeddings });
  try {
    await tg.importCatalog(gen.catalog, { embed: false });
    for (let i = 0; i < gen.traces.length; i += 10_000) await tg.importTraces(gen.traces.slice(i, i + 10_000) as object[]);
    global.gc?.();
    const heapBefore = process.memoryUsage();
    const t0 = performance.now();
    const mem = await memoryIndex(tg.engine, "mem");
    const buildMs = performance.now() - t0;
    global.gc?.();
    const heapAfter = process.memoryUsage();
    const typed = mem.vectors.data.byteLength + mem.vectors.scales.byteLength + (mem.vindex ? mem.vindex.codes.byteLength + mem.vindex.scales.byteLength : 0);
    const queries = gen.traces.slice(0, o.queries).map((t) => `${(t as { intent?: string }).intent ?? ""} please`);
    const vectors = await tg.engine.embedder.embed(queries);
    for (let i = 0; i < 20; i++) await recallMemory(tg.engine, "mem", queries[i]!, vectors[i]!);
    const times: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const t = performance.now();
      await recallMemory(tg.engine, "mem", queries[i]!, vectors[i]!);
      times.push(performance.now() - t);
    }
    // Neighbour recall of the quantised first stage vs an exact float32 scan (top 20 by cosine).
    const texts = mem.rows.map((r) => r.intent);
    const exactVecs = await tg.engine.embedder.embed(texts.slice(0, Math.min(texts.length, 20000)));
    let agree = 0;
    let total = 0;
    for (let qi = 0; qi < Math.min(50, queries.length); qi++) {
      const q = vectors[qi]!;
      const exact = exactVecs.map((v, i) => ({ i, s: v.reduce((a, x, j) => a + x * q[j]!, 0) })).sort((a, b) => b.s - a.s).slice(0, 20).map((x) => x.i);
      const { dotInt8 } = await import("../algorithms/search/int8-vectors.ts");
      const quant = exactVecs.map((_, i) => ({ i, s: dotInt8(mem.vectors, i, q) })).sort((a, b) => b.s - a.s).slice(0, 20).map((x) => x.i);
      const set = new Set(exact);
      agree += quant.filter((x) => set.has(x)).length;
      total += 20;
    }
    const p = percentiles(times);
    const result = {
      machine: machine(),
      executions: mem.rows.length,
      dims: mem.dims,
      buildMs,
      recallMs: p,
      typedArrayMiB: typed / 2 ** 20,
      heapDeltaMiB: (heapAfter.heapUsed + heapAfter.arrayBuffers - heapBefore.heapUsed - heapBefore.arrayBuffers) / 2 ** 20,
      rssMiB: heapAfter.rss / 2 ** 20,
      int8NeighbourRecallAt20: total > 0 ? agree / total : null,
    };
    console.log(`# intent memory at scale\n\nmachine: ${result.machine}\n`);
    console.log(
      markdownTable(
        ["past executions", "dims", "recall p50 ms", "p95", "p99", "index build s", "vectors + codes MiB", "heap delta MiB", "int8 top-20 agreement"],
        [[result.executions, result.dims, p.p50, p.p95, p.p99, buildMs / 1000, result.typedArrayMiB, result.heapDeltaMiB, result.int8NeighbourRecallAt20]],
      ),
    );
    console.log(`\nbudget: recall p50 ≤ 3 ms → ${p.p50 <= 3 ? "PASS" : "FAIL"}; memory ≤ 200 MB → ${result.heapDeltaMiB <= 200 ? "PASS" : "FAIL"}`);
    writeResult("memory", result);
    return result;
  } finally {
    await tg.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { values } = parseArgs({ options: { executions: { type: "string", default: "100000" }, queries: { type: "string", default: "200" }, embeddings: { type: "string", default: "hash:512" } } });
  await runMemoryBench({ executions: Number(values.executions), queries: Number(values.queries), embeddings: values.embeddings! });
}
