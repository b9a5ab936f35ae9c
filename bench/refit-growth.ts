/**
 * How a fit's verdict moves as a project's history grows — what the refit at each doubling of the recorded
 * steps (src/jobs/refit.ts) acts on. A project fed traces in the order they were collected, as a gateway records
 * them: at every doubling of its recorded steps from 200 (where the first background fit runs), both weight fits
 * are run as the background refit runs them, and their stored verdicts reported — accepted or not, the reason,
 * and the out-of-sample evidence each fit computed (next step: Hit@1 of the seed weights vs the learned ones over
 * held-out execution groups; search: the gain of the fitted weights over the defaults on unseen intent groups).
 *
 *   npx tsx bench/refit-growth.ts [--tools 400] [--traces 8000] [--seed 1] [--embeddings hash:256] [--out refit-growth]
 *
 * Public API only. Data: the synthetic generator (bench/synthetic/generate.ts). Results: bench/results/<out>.json.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { openToolgraph } from "../src/index.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";
import { generateSyntheticProject } from "./synthetic/generate.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "400" },
    traces: { type: "string", default: "8000" },
    seed: { type: "string", default: "1" },
    embeddings: { type: "string", default: "hash:256" },
    out: { type: "string", default: "refit-growth" },
  },
});

const startedAt = new Date().toISOString();
const loadAtStart = loadavg();
const data = generateSyntheticProject({
  tools: Number(values.tools),
  traces: Number(values.traces),
  seed: Number(values.seed),
});
const tg = await openToolgraph({ home: "memory://", project: "growth", embeddings: values.embeddings! });
await tg.importCatalog(data.catalog);

interface Stage {
  steps: number;
  executions: number;
  next: { accepted: boolean; reason: string; seedHit?: number; learnedHit?: number };
  search: { accepted: boolean; reason: string; gain?: number };
  load: number;
}
const stages: Stage[] = [];
let next = 0;
let steps = 0;
for (let target = 200; next < data.traces.length; target *= 2) {
  const batch = [];
  while (next < data.traces.length && steps < target) {
    const t = data.traces[next++]!;
    steps += t.steps.length;
    batch.push(t);
  }
  for (let i = 0; i < batch.length; i += 2000) await tg.importTraces(batch.slice(i, i + 2000));
  if (steps < target) break;
  await tg.settle();
  const n = await tg.fitNextStepWeights();
  const s = await tg.fitSearchWeights();
  const ev = n.record?.evidence as { default?: { hitAt1: number }; fitted?: { hitAt1: number } } | undefined;
  const se = s.record?.evidence as { gain?: number } | undefined;
  stages.push({
    steps,
    executions: next,
    next: { accepted: n.accepted, reason: n.reason, seedHit: ev?.default?.hitAt1, learnedHit: ev?.fitted?.hitAt1 },
    search: { accepted: s.accepted, reason: s.reason ?? "", gain: se?.gain },
    load: loadavg()[0]!,
  });
  console.error(
    `${steps} steps: next ${n.accepted ? "accepted" : "kept"} · search ${s.accepted ? "accepted" : "kept"}`,
  );
}
await tg.close();

const fmt = (x: number | undefined) => (x === undefined ? "–" : x.toFixed(3));
const table = markdownTable(
  ["recorded steps", "executions", "next step", "seed / learned Hit@1", "search weights", "search gain"],
  stages.map((s) => [
    String(s.steps),
    String(s.executions),
    s.next.accepted ? "learned" : "seed kept",
    `${fmt(s.next.seedHit)} / ${fmt(s.next.learnedHit)}`,
    s.search.accepted ? "fitted" : "defaults kept",
    fmt(s.search.gain),
  ]),
);
console.log(table);
writeResult(values.out!, {
  command: `npx tsx bench/refit-growth.ts --tools ${values.tools} --traces ${values.traces} --seed ${values.seed} --embeddings ${values.embeddings}`,
  machine: machine(),
  date: startedAt,
  loadAverage: loadAtStart,
  options: values,
  stages,
});
