/**
 * The benchmark charts, one question each, drawn from the results JSON (bench/results/latency.json,
 * accuracy-<dataset>.json, learning-curve.json) with bench/lib/charts.ts; also writes bench/results/charts.md, the list of
 * charts with the question each answers (linked from bench/README.md).
 *
 *   npx tsx bench/charts.ts          # regenerate every chart from the stored results (no bench is re-run)
 *
 * bench/latency.ts and bench/accuracy.ts call the same functions after a run.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { barChartSvg, lineChartSvg } from "./lib/charts.ts";
import { RESULTS_DIR, writeSvg } from "./lib/report.ts";

export interface Chart {
  /** File name without .svg. */
  name: string;
  question: string;
  svg: string;
}

interface LatencyLike {
  machine: string;
  startedAt: string;
  loadAverage?: { start: number[]; end: number[] };
  sizes: { tools: number; operations: { name: string; p50: number; p99: number; n: number }[] }[];
}

/** Per catalog size: p50 and p99 of every request-path operation (the background analytics refresh is left out). */
export function latencyCharts(r: LatencyLike): Chart[] {
  return r.sizes.map((s) => {
    const ops = s.operations.filter((o) => o.name !== "analytics refresh" && Number.isFinite(o.p50));
    const n = Math.min(...ops.map((o) => o.n));
    const load = r.loadAverage
      ? `, load ${r.loadAverage.start[0]?.toFixed(1)}→${r.loadAverage.end[0]?.toFixed(1)}`
      : "";
    const question = `How long does each operation take at ${s.tools.toLocaleString("en-US")} tools?`;
    return {
      name: `latency-${s.tools}-tools`,
      question,
      svg: barChartSvg({
        title: question,
        subtitle: `p50 and p99 over ≥ ${n} runs each; ${r.startedAt.slice(0, 10)}${load}; bench/results/latency.json`,
        valueLabel: "latency per call (ms, log scale)",
        categories: ops.map((o) => o.name),
        series: [
          { name: "p50", colour: "#1f77b4", values: ops.map((o) => o.p50) },
          { name: "p99", colour: "#d62728", values: ops.map((o) => o.p99) },
        ],
        log: true,
      }),
    };
  });
}

interface AccuracyLike {
  tables: { title: string; headers: string[]; rows: (string | number | null)[][] }[];
}

const GATING = /^Gating — (\S+) \/ (\S+) (next step|search) \((.*)\)$/;

/** One chart per gating table: precision and coverage of accepted top-1 answers against the threshold. */
export function gatingCharts(a: AccuracyLike): Chart[] {
  const out: Chart[] = [];
  for (const t of a.tables) {
    const m = GATING.exec(t.title);
    if (!m) continue;
    const [project, split, job, detail] = [m[1]!, m[2]!, m[3]!, m[4]!];
    const col = (h: string) => t.headers.indexOf(h);
    const rows = t.rows.filter((r) => typeof r[0] === "number");
    const pts = (h: string) => {
      const i = col(h);
      return rows.filter((r) => typeof r[i] === "number").map((r) => ({ x: r[0] as number, y: r[i] as number }));
    };
    const jobName = job === "next step" ? "Next-step" : "Search";
    const question = `${jobName} gate, ${project} (${split}): how precise are accepted answers, and how many are kept, at each threshold?`;
    out.push({
      name: `gating-${job.replace(" ", "-")}-${project}-${split}`,
      question,
      svg: lineChartSvg({
        title: `${jobName} gate on ${project} (${split} split)`,
        subtitle: `Top-1 answers accepted when their score ≥ threshold; ${detail.split(";")[0]}`,
        xLabel: "gate threshold on the top-1 score",
        yLabel: "fraction of held-out answers",
        yDomain: [0, 1],
        series: [
          { name: "precision, raw score", colour: "#1f77b4", points: pts("precision (raw)") },
          { name: "precision, calibrated", colour: "#d62728", points: pts("precision (calibrated)") },
          { name: "coverage, raw score", colour: "#1f77b4", dashed: true, points: pts("coverage (raw)") },
          { name: "coverage, calibrated", colour: "#d62728", dashed: true, points: pts("coverage (calibrated)") },
        ].filter((s) => s.points.length > 0),
      }),
    });
  }
  return out;
}

interface LearningCurveLike {
  load?: number[];
  embeddings?: string;
  results: Record<
    string,
    {
      points?: { executions: number; map10: number | null; map10Knn: number | null }[];
      noLearningMap10?: number | null;
    }
  >;
}

/** One chart per learning-curve set: search mAP@10 against executions learned, beside kNN and no learning. */
export function learningCurveCharts(r: LearningCurveLike): Chart[] {
  const out: Chart[] = [];
  for (const [set, v] of Object.entries(r.results)) {
    const pts = (v.points ?? []).filter((p) => p.map10 !== null);
    if (pts.length < 2) continue;
    const base = v.noLearningMap10 ?? pts[0]!.map10!;
    const question = `${set}: does search get better as toolgraph learns from executions, and never worse than the catalog alone?`;
    out.push({
      name: `learning-curve-${set}`,
      question,
      svg: lineChartSvg({
        title: `Search mAP@10 on ${set} while the history is learned`,
        subtitle: `test cases asked at each checkpoint; embeddings ${r.embeddings ?? "?"}; bench/results/learning-curve.json`,
        xLabel: "training executions learned",
        yLabel: "mAP@10 on the test cases",
        yDomain: [0, 1],
        series: [
          { name: "toolgraph", colour: "#1f77b4", points: pts.map((p) => ({ x: p.executions, y: p.map10! })) },
          {
            name: "kNN over past intents",
            colour: "#ff7f0e",
            points: pts.filter((p) => p.map10Knn !== null).map((p) => ({ x: p.executions, y: p.map10Knn! })),
          },
          {
            name: "no learning (catalog alone)",
            colour: "#7f7f7f",
            dashed: true,
            points: pts.map((p) => ({ x: p.executions, y: base })),
          },
        ],
      }),
    });
  }
  return out;
}

/** Writes each chart to bench/results/<name>.svg; returns the paths. */
export function writeCharts(charts: Chart[]): string[] {
  return charts.map((c) => writeSvg(c.name, c.svg));
}

function indexMarkdown(charts: Chart[]): string {
  return [
    "# Benchmark charts",
    "",
    "One question per chart; regenerate with `npx tsx bench/charts.ts` (from the results JSON, no bench re-run).",
    "",
    ...charts.map((c) => `- [${c.question}](${c.name}.svg)`),
    "",
  ].join("\n");
}

function main(): void {
  const charts: Chart[] = [];
  const lat = join(RESULTS_DIR, "latency.json");
  if (existsSync(lat)) charts.push(...latencyCharts(JSON.parse(readFileSync(lat, "utf8")) as LatencyLike));
  for (const f of readdirSync(RESULTS_DIR).sort()) {
    if (/^accuracy-[a-z0-9-]+\.json$/.test(f))
      charts.push(...gatingCharts(JSON.parse(readFileSync(join(RESULTS_DIR, f), "utf8")) as AccuracyLike));
  }
  const lc = join(RESULTS_DIR, "learning-curve.json");
  if (existsSync(lc)) charts.push(...learningCurveCharts(JSON.parse(readFileSync(lc, "utf8")) as LearningCurveLike));
  // Superseded: 14 series on 2 x-values (latency.svg) and untitled-job gating charts with ticks 0.01/0.01/0.00.
  for (const f of readdirSync(RESULTS_DIR))
    if (f === "latency.svg" || /^accuracy-gating-.*\.svg$/.test(f)) rmSync(join(RESULTS_DIR, f));
  for (const p of writeCharts(charts)) process.stdout.write(`wrote ${p}\n`);
  writeFileSync(join(RESULTS_DIR, "charts.md"), indexMarkdown(charts));
  process.stdout.write(`wrote ${join(RESULTS_DIR, "charts.md")}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
