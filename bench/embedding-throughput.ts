/**
 * Catalog embedding throughput (tools/s) on Seal-Tools' tool catalog (4,076 tools), USE-lite embeddings:
 *   model  — the provider alone: `provider.embed(texts)` over the catalog's tool texts (the model's own rate,
 *            batches of the provider's batchSize);
 *   import — `tg.importCatalog(catalog)` on the embedded database (memory://): validation, rows, the
 *            embedding batches of 256 texts each stored as it completes (what makes an import resumable),
 *            the search index.
 * Alternating: model, import, model, import… (--reps rounds) on the first --tools tools, so both see the
 * same load. The model is loaded (and warmed on 32 texts) before timing.
 *
 *   npx tsx bench/embedding-throughput.ts [--tools 4076] [--reps 2] [--batch 32]
 *
 * Writes bench/results/embedding-throughput.json and prints a markdown table.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { toolText, toolTextInput } from "../algorithms/search/tokenize.ts";
import { createEmbeddingProvider, openToolgraph } from "../src/index.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "4076" },
    reps: { type: "string", default: "2" },
    batch: { type: "string", default: "32" },
  },
});
const nTools = Number(values.tools);
const reps = Number(values.reps);
const batchSize = Number(values.batch);

const ds = convertSealTools({ limit: 1 });
const catalog = { ...ds.catalog, tools: ds.catalog.tools.slice(0, nTools), capabilities: [] };

// The exact texts the import embeds: import once without embedding and read the tools back as stored (their
// schemas' key order is the database's), in the project's order, through the public graph and toolInfo (which
// leaves out the examples: those come from the catalog).
const probe = await openToolgraph({ home: "memory://", database: "", project: "texts", embeddings: "hash:8" });
await probe.importCatalog(catalog, { embed: false });
const examples = new Map(catalog.tools.map((t) => [t.id, (t as { examples?: string[] }).examples]));
const texts: string[] = [];
for (const { id } of (await probe.graph()).nodes) {
  const { tool } = await probe.toolInfo({ tool: id });
  texts.push(toolText(toolTextInput({ ...tool, examples: examples.get(id) ?? [] })));
}
await probe.close();

const provider = createEmbeddingProvider({ kind: "use-lite", batchSize });
await provider.embed(texts.slice(0, 32).map((t) => `${t} warm-up`));

const loadStart = loadavg();
const rows: { round: number; path: "model" | "import"; tools: number; seconds: number; toolsPerSecond: number }[] = [];
for (let round = 1; round <= reps; round++) {
  let t0 = performance.now();
  const vectors = await provider.embed(texts);
  let s = (performance.now() - t0) / 1000;
  rows.push({ round, path: "model", tools: vectors.length, seconds: s, toolsPerSecond: vectors.length / s });
  process.stderr.write(`round ${round} model ${(vectors.length / s).toFixed(1)} tools/s\n`);

  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: `r${round}`,
    embeddings: { kind: "use-lite", batchSize },
  });
  try {
    t0 = performance.now();
    const r = await tg.importCatalog(catalog);
    s = (performance.now() - t0) / 1000;
    rows.push({ round, path: "import", tools: r.embeddedNow, seconds: s, toolsPerSecond: r.embeddedNow / s });
    process.stderr.write(`round ${round} import ${(r.embeddedNow / s).toFixed(1)} tools/s\n`);
  } finally {
    await tg.close();
  }
}
const loadEnd = loadavg();

const summary = (["model", "import"] as const).map((path) => {
  const rs = rows.filter((r) => r.path === path);
  const tps = rs.map((r) => r.toolsPerSecond).sort((a, b) => a - b);
  return {
    path,
    rounds: rs.length,
    medianToolsPerSecond: tps[Math.floor((tps.length - 1) / 2)]!,
    bestToolsPerSecond: tps[tps.length - 1]!,
  };
});
const ratio = summary[1]!.medianToolsPerSecond / summary[0]!.medianToolsPerSecond;
const file = writeResult("embedding-throughput", {
  bench: "embedding-throughput",
  command: `npx tsx bench/embedding-throughput.ts --tools ${nTools} --reps ${reps} --batch ${batchSize}`,
  date: new Date().toISOString(),
  machine: machine(),
  loadAverage: { start: loadStart, end: loadEnd },
  dataset: "Seal-Tools tool.jsonl",
  embeddings: `use-lite (batch ${batchSize})`,
  tools: texts.length,
  importOverModel: ratio,
  summary,
  rows,
});
console.log(
  markdownTable(
    ["path", "rounds", "median tools/s", "best tools/s"],
    summary.map((x) => [x.path, x.rounds, x.medianToolsPerSecond, x.bestToolsPerSecond]),
  ),
);
console.log(`\nimport / model = ${ratio.toFixed(2)}\nwritten ${file}`);
