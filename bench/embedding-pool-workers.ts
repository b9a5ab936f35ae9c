/**
 * How many embedding workers: USE-lite throughput (texts/s) and resident memory of the process with the model
 * in process (0 workers) and in pools of 1 and 2 workers (RSS growth from before the provider is made to after
 * its run: a pool's workers, or in round 1 the in-process model, which then stays loaded), on the first --texts Seal-Tools tool texts.
 * Alternating rounds (0, 1, 2, 0, 1, 2…; --reps rounds) so every setting sees the same machine load; each
 * setting gets a fresh pool, warmed on one text (worker started, model loaded) before timing.
 *
 *   npx tsx bench/embedding-pool-workers.ts [--texts 256] [--reps 2]
 *
 * Writes bench/results/embedding-pool-workers.json and prints a markdown table.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { toolText } from "../algorithms/search/tokenize.ts";
import { EmbeddingWorkerPool } from "../src/embeddings/index.ts";
import { createEmbeddingProvider, type EmbeddingProvider } from "../src/index.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: { texts: { type: "string", default: "256" }, reps: { type: "string", default: "2" } },
});
const nTexts = Number(values.texts);
const reps = Number(values.reps);

const ds = convertSealTools({ limit: 1 });
const texts = ds.catalog.tools
  .slice(0, nTexts)
  .map((t) => toolText({ id: t.id, name: t.name, description: t.description, parameters: [], tags: [], examples: [] }));

const loadStart = loadavg();
const rows: { round: number; workers: number; seconds: number; textsPerSecond: number; rssGrowthMiB: number }[] = [];
for (let round = 1; round <= reps; round++) {
  for (const workers of [0, 1, 2]) {
    const rssBefore = process.memoryUsage().rss;
    const provider: EmbeddingProvider =
      workers === 0 ? createEmbeddingProvider("use-lite") : new EmbeddingWorkerPool("use-lite", { workers });
    try {
      await provider.embed(["warm-up"]);
      const t0 = performance.now();
      await provider.embed(texts);
      const seconds = (performance.now() - t0) / 1000;
      const rssGrowthMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
      rows.push({ round, workers, seconds, textsPerSecond: texts.length / seconds, rssGrowthMiB });
      process.stderr.write(
        `round ${round}, ${workers} workers: ${(texts.length / seconds).toFixed(1)} texts/s, RSS +${rssGrowthMiB.toFixed(0)} MiB\n`,
      );
    } finally {
      await provider.close?.();
    }
  }
}

const result = {
  bench: "embedding-pool-workers",
  command: `npx tsx bench/embedding-pool-workers.ts --texts ${nTexts} --reps ${reps}`,
  date: new Date().toISOString(),
  machine: machine(),
  loadAverage: { start: loadStart, end: loadavg() },
  dataset: `Seal-Tools tool.jsonl, first ${nTexts} tools (name and description)`,
  embeddings: "use-lite (batch 32)",
  rows,
};
const path = writeResult("embedding-pool-workers", result);
console.log(
  markdownTable(
    ["round", "workers", "seconds", "texts/s", "RSS growth MiB"],
    rows.map((r) => [String(r.round), String(r.workers), r.seconds, r.textsPerSecond, Math.round(r.rssGrowthMiB)]),
  ),
);
console.log(`\nwrote ${path}`);
