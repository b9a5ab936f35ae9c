/**
 * Two-hop namespace routing vs flat search (algorithms/README.md, "Two-hop routing"): latency on the synthetic
 * catalogs and recall on the
 * shared datasets.
 *
 *   npx tsx bench/routing.ts [--tools 50000,100000] [--traces 10000,50000] [--queries 100] [--warmup 10] [--seed 1]
 *                            [--embeddings hash:512] [--datasets seal-tools,toollinkos,nestful]
 *                            [--dataset-embeddings use-lite] [--home .toolgraph-bench/routing]
 *                            [--skip-latency] [--skip-datasets]
 *
 * Latency (per synthetic size and trace count, bench/synthetic/generate.ts, 25 tools per server; every size
 * with every --traces count, or 2 × tools below 50k tools and 1 × tools above when --traces is not given): the
 * project is imported
 * into the embedded database (memory://) with all its traces but the last `queries`, whose intents are the
 * queries (held out, so the intent memory does not simply replay them); analytics and search weights are
 * computed before timing. Each query is sent through
 * `tg.search({intent, routing, limit: 10})` once flat and once two-hop, alternating which goes first;
 * reported: the service time without the query embedding (timings.totalMs − embedMs, as bench/latency.ts
 * "search") and the scoring time (timings.searchMs: weights, routing and candidate scoring). Recall@10 and
 * mAP@10 of each query's own trace tools are computed on the same answers. The namespace index build is
 * timed once (cold). Then `auto` answers the first trialQueries queries again: its trial (both routes timed in the
 * service, src/view/namespace-index.ts) and the route it kept are reported beside the two measured ones.
 *
 * Recall (per dataset, bench/convert/*, its test splits): the harness project (bench/harness.ts, fitted
 * weights) and the ranking core (`rankCandidates` on `tg.searchModel()`) with the fitted β, μ and graph weight and the
 * intent memory — flat, then restricted to the tools of the routed namespaces (default B, and a tight B of
 * ≥ 1 namespace and ≥ 25 tools). "routed recall" is the share of the gold tools inside the candidates.
 *
 * The machine is shared (2 cores, other engineers' jobs running): small query counts; latency numbers are
 * indicative, compare the two columns of one run rather than runs.
 */

import { execSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { retrievalScores } from "../algorithms/evaluation/retrieval-metrics.ts";
import { scoreNamespaces, selectNamespaces } from "../algorithms/search/namespace-routing.ts";
import { rankCandidates } from "../algorithms/search/rank-candidates.ts";
import { tokenize } from "../algorithms/search/tokenize.ts";
import type { EvalCase } from "../src/index.ts";
import { openToolgraph, ROUTING_DEFAULTS } from "../src/index.ts";
import { convertNestful } from "./convert/nestful.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { type HarnessInput, openHarnessProject } from "./harness.ts";
import { machine, markdownTable, percentiles, progress, writeResult } from "./lib/report.ts";
import { generateSyntheticProject } from "./synthetic/generate.ts";

export const ROUTING_BENCH_DEFAULTS = {
  tools: [50_000, 100_000],
  queries: 100,
  warmup: 10,
  seed: 1,
  embeddings: "hash:512",
  datasets: ["seal-tools", "toollinkos", "nestful"],
  datasetEmbeddings: "use-lite",
  home: ".toolgraph-bench/routing",
  tracesFileSize: 5_000,
} as const;

type Mode = "flat" | "two-hop";
const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const ms = (x: number) => Number(x.toFixed(2));
const r3 = (x: number) => Number(x.toFixed(3));
const log = (s: string) => console.error(`[routing] ${s}`);

export interface LatencyRow {
  tools: number;
  namespaces: number;
  traces: number;
  queries: number;
  namespaceIndexBuildMs: number;
  meanCandidates: number;
  modes: Record<
    Mode,
    {
      service: ReturnType<typeof percentiles>;
      scoring: ReturnType<typeof percentiles>;
      recall10: number;
      map10: number;
    }
  >;
  overlapAt10: number;
  /** The route `auto` kept after its trial on the first queries, and the trial's medians. */
  auto: { mode: string; reason: string; flatMs: number; twoHopMs: number; overlap: number } | null;
  /** Which measured route was faster at p50 (service time) in this run, and the ratio two-hop / flat. */
  fasterAtP50: Mode;
  twoHopOverFlatP50: number;
  uptime: string;
}

async function latencyAt(
  tools: number,
  o: { queries: number; warmup: number; seed: number; embeddings: string; traces?: number | undefined },
): Promise<LatencyRow> {
  const traces = o.traces ?? (tools < 50_000 ? 2 * tools : tools);
  const uptime = execSync("uptime").toString().trim();
  const p = generateSyntheticProject({ tools, traces, seed: o.seed });
  const held = p.traces.slice(-(o.queries + o.warmup));
  const train = p.traces.slice(0, p.traces.length - held.length);
  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "routing",
    embeddings: o.embeddings,
    detection: true,
  });
  try {
    log(`${tools} tools: importing (${train.length} traces)`);
    await tg.importCatalog(p.catalog);
    for (let i = 0; i < train.length; i += ROUTING_BENCH_DEFAULTS.tracesFileSize)
      await tg.importTraces(train.slice(i, i + ROUTING_BENCH_DEFAULTS.tracesFileSize));
    await tg.importEdges(p.edges.map((e) => JSON.stringify(e)).join("\n"));
    await tg.warmUp("index");
    // Off the timed path: analytics computed now, search weights fitted now (else both run in the
    // background during the first timed searches).
    await tg.warmUp("analytics");
    await tg.fitSearchWeights();
    const t0 = performance.now();
    const ns = (await tg.routingModel()).namespaces;
    const buildMs = performance.now() - t0;
    const cases = held.map((t) => ({ intent: t.intent as string, relevant: [...new Set(t.steps.map((x) => x.tool))] }));
    for (const c of cases.slice(0, o.warmup)) {
      for (const routing of ["flat", "two-hop"] as const) await tg.search({ intent: c.intent, routing, limit: 10 });
    }
    const timed = cases.slice(o.warmup);
    const acc = {
      flat: { service: [] as number[], scoring: [] as number[], r: [] as number[], m: [] as number[] },
      "two-hop": { service: [] as number[], scoring: [] as number[], r: [] as number[], m: [] as number[] },
    };
    const overlap: number[] = [];
    const candidates: number[] = [];
    for (let i = 0; i < timed.length; i++) {
      const c = timed[i]!;
      const order: Mode[] = i % 2 === 0 ? ["flat", "two-hop"] : ["two-hop", "flat"];
      const top: Record<string, string[]> = {};
      for (const routing of order) {
        const r = (await tg.search({ intent: c.intent, routing, limit: 10 })) as unknown as {
          results: { tool: string }[];
          timings: { embedMs: number; searchMs: number; totalMs: number };
          routing: { candidates?: number };
        };
        acc[routing].service.push(r.timings.totalMs - r.timings.embedMs);
        acc[routing].scoring.push(r.timings.searchMs);
        const ranked = r.results.map((x) => x.tool);
        top[routing] = ranked;
        const sc = retrievalScores(ranked, c.relevant, [10]);
        acc[routing].r.push(sc.recall[10]!);
        acc[routing].m.push(sc.ap[10]!);
        if (routing === "two-hop") candidates.push(r.routing.candidates ?? 0);
      }
      const f = new Set(top.flat);
      overlap.push(top["two-hop"]!.filter((x) => f.has(x)).length / Math.max(1, f.size));
      progress(`${tools} tools: queries`, i + 1, timed.length);
    }
    // auto: the trial runs on the catalog's first trialQueries auto searches (the timed ones above were explicit).
    for (const c of timed.slice(0, ROUTING_DEFAULTS.trialQueries))
      await tg.search({ intent: c.intent, routing: "auto", limit: 10 });
    const decided = (await tg.routingModel()).decision;
    const mode = (m: Mode) => ({
      service: percentiles(acc[m].service),
      scoring: percentiles(acc[m].scoring),
      recall10: mean(acc[m].r),
      map10: mean(acc[m].m),
    });
    const ratio = percentiles(acc["two-hop"].service).p50 / percentiles(acc.flat.service).p50;
    return {
      tools,
      namespaces: ns.groups.names.length,
      traces: train.length,
      queries: timed.length,
      namespaceIndexBuildMs: buildMs,
      meanCandidates: mean(candidates),
      modes: { flat: mode("flat"), "two-hop": mode("two-hop") },
      overlapAt10: mean(overlap),
      auto: decided
        ? {
            mode: decided.mode,
            reason: decided.reason,
            flatMs: decided.flatMs,
            twoHopMs: decided.twoHopMs,
            overlap: decided.overlap,
          }
        : null,
      fasterAtP50: ratio < 1 ? "two-hop" : "flat",
      twoHopOverFlatP50: ratio,
      uptime: `${uptime} | ${execSync("uptime").toString().trim()}`,
    };
  } finally {
    await tg.close();
  }
}

function loadDataset(name: string): HarnessInput {
  if (name === "seal-tools") {
    const d = convertSealTools();
    return {
      name,
      catalog: d.catalog,
      traces: d.traces,
      edges: d.edges,
      evaluation: d.evaluation as Record<string, EvalCase[]>,
    };
  }
  if (name === "toollinkos") {
    // As bench/accuracy.ts: training executions carry their instance's capability label.
    const d = convertToolLinkOs();
    const capOf = new Map(d.trainInstances.map((i) => [i.id, i.capability]));
    const traces = d.traces.map((t) => (capOf.get(t.id) ? { ...t, capability: capOf.get(t.id) } : t));
    return { name, catalog: d.catalog, traces, edges: d.edges, evaluation: d.evaluation as Record<string, EvalCase[]> };
  }
  if (name === "nestful") {
    const d = convertNestful();
    return {
      name,
      catalog: d.catalog,
      traces: d.traces,
      edges: d.edges,
      evaluation: d.evaluation as Record<string, EvalCase[]>,
    };
  }
  throw new Error(`--datasets: unknown dataset ${JSON.stringify(name)} (seal-tools, toollinkos, nestful)`);
}

export interface RecallRow {
  dataset: string;
  split: string;
  tools: number;
  namespaces: number;
  queries: number;
  methods: {
    method: string;
    recall1: number;
    recall10: number;
    map10: number;
    routedRecall: number | null;
    candidates: number | null;
  }[];
}

async function recallOn(name: string, o: { embeddings: string; home: string }): Promise<RecallRow[]> {
  const data = loadDataset(name);
  log(`${name}: opening the harness project (${o.embeddings})`);
  const { tg, project } = await openHarnessProject(
    data,
    { embeddings: o.embeddings, home: o.home },
    `traces-${o.embeddings.replace(/[^a-z0-9]/gi, "")}`,
  );
  const rows: RecallRow[] = [];
  try {
    // The ranking and routing cores on the project's read models.
    const model = await tg.searchModel({ project });
    const rm = await tg.routingModel({ project });
    const indexOf = new Map(model.tools.map((t, i) => [t, i]));
    // The weights in force: openHarnessProject stored a fit, so none runs in the background.
    const w = (await tg.stats({ project })).learning.searchWeights.inForce;
    for (const [split, cases] of Object.entries(data.evaluation)) {
      const rc = cases.filter((c): c is Extract<EvalCase, { kind: "retrieval" }> => c.kind === "retrieval");
      if (rc.length === 0) continue;
      const vectors: Float32Array[] = [];
      for (let i = 0; i < rc.length; i += 64)
        vectors.push(...(await model.embed(rc.slice(i, i + 64).map((c) => c.query))));
      const variants: { method: string; route?: { minNamespaces: number; minTools: number } }[] = [
        { method: "flat (toolgraph, fitted weights)" },
        { method: "two-hop (B ≥ 3 namespaces, ≥ 200 tools)", route: { minNamespaces: 3, minTools: 200 } },
        { method: "two-hop tight (B ≥ 1 namespace, ≥ 25 tools)", route: { minNamespaces: 1, minTools: 25 } },
      ];
      const per = variants.map(() => ({
        r1: [] as number[],
        r10: [] as number[],
        map: [] as number[],
        routed: [] as number[],
        cand: [] as number[],
      }));
      for (let i = 0; i < rc.length; i++) {
        const c = rc[i]!;
        const v = vectors[i]!;
        const m = await tg.recall(c.query, { project, vector: v });
        const toolVotes =
          m.similarity === null ? undefined : new Map(m.tools.map((t) => [indexOf.get(t.tool)!, t.vote]));
        const votes = w.memoryWeight > 0 ? toolVotes : undefined;
        variants.forEach((variant, k) => {
          let restrictTo: Int32Array | undefined;
          if (variant.route) {
            const opts = { beta: w.beta, memoryWeight: w.memoryWeight, ...variant.route };
            const input = { tokens: tokenize(c.query), vector: v, toolVotes: votes, successes: rm.successes };
            const scores = scoreNamespaces(rm.namespaces, input, opts);
            restrictTo = selectNamespaces(rm.namespaces.groups, scores.score, opts).tools;
            const inside = new Set(Array.from(restrictTo, (t) => model.tools[t]!));
            per[k]!.routed.push(c.relevant.filter((x) => inside.has(x)).length / c.relevant.length);
            per[k]!.cand.push(restrictTo.length);
          }
          const hits = rankCandidates(model.data, c.query, v, {
            memory: votes,
            channelTopN: 100,
            beta: w.beta,
            memoryWeight: w.memoryWeight,
            graphWeight: w.graphWeight,
            ...(restrictTo ? { restrictTo } : {}),
          });
          const sc = retrievalScores(
            hits.slice(0, 10).map((h) => model.tools[h.index]!),
            c.relevant,
            [1, 10],
          );
          per[k]!.r1.push(sc.recall[1]!);
          per[k]!.r10.push(sc.recall[10]!);
          per[k]!.map.push(sc.ap[10]!);
        });
        progress(`${name}/${split}`, i + 1, rc.length);
      }
      rows.push({
        dataset: name,
        split,
        tools: model.tools.length,
        namespaces: rm.namespaces.groups.names.length,
        queries: rc.length,
        methods: variants.map((variant, k) => ({
          method: variant.method,
          recall1: mean(per[k]!.r1),
          recall10: mean(per[k]!.r10),
          map10: mean(per[k]!.map),
          routedRecall: variant.route ? mean(per[k]!.routed) : null,
          candidates: variant.route ? mean(per[k]!.cand) : null,
        })),
      });
    }
  } finally {
    await tg.close();
  }
  return rows;
}

export function formatRouting(r: { latency: LatencyRow[]; recall: RecallRow[] }): string {
  const out: string[] = [];
  if (r.latency.length > 0) {
    out.push("### Latency: flat vs two-hop (synthetic catalogs, ms, service time without the query embedding)\n");
    out.push(
      markdownTable(
        [
          "tools",
          "traces",
          "namespaces",
          "routing",
          "search p50",
          "p95",
          "p99",
          "scoring p50",
          "p95",
          "p99",
          "candidates",
          "Recall@10",
          "mAP@10",
          "n",
        ],
        r.latency.flatMap((x) =>
          (["flat", "two-hop"] as const).map((m) => [
            String(x.tools),
            String(x.traces),
            String(x.namespaces),
            m,
            ms(x.modes[m].service.p50),
            ms(x.modes[m].service.p95),
            ms(x.modes[m].service.p99),
            ms(x.modes[m].scoring.p50),
            ms(x.modes[m].scoring.p95),
            ms(x.modes[m].scoring.p99),
            m === "flat" ? "all" : String(Math.round(x.meanCandidates)),
            r3(x.modes[m].recall10),
            r3(x.modes[m].map10),
            String(x.queries),
          ]),
        ),
      ),
    );
    out.push(
      `\nauto (trial on the first ${ROUTING_DEFAULTS.trialQueries} queries, then kept): ${r.latency.map((x) => `${x.tools} tools / ${x.traces} traces → ${x.auto ? x.auto.reason : "no decision"}; measured two-hop / flat p50 ${x.twoHopOverFlatP50.toFixed(2)}×`).join("; ")}.`,
    );
    out.push(
      `\nNamespace index build (cold, once per catalog): ${r.latency.map((x) => `${x.tools} tools ${ms(x.namespaceIndexBuildMs)} ms`).join(", ")}. Top-10 overlap two-hop vs flat: ${r.latency.map((x) => `${x.tools} tools ${r3(x.overlapAt10)}`).join(", ")}.`,
    );
  }
  if (r.recall.length > 0) {
    out.push("\n### Recall: flat vs two-hop (shared datasets, test splits)\n");
    out.push(
      markdownTable(
        [
          "dataset / split",
          "tools",
          "namespaces",
          "queries",
          "method",
          "Recall@1",
          "Recall@10",
          "mAP@10",
          "routed recall",
          "candidates",
        ],
        r.recall.flatMap((x) =>
          x.methods.map((m) => [
            `${x.dataset} / ${x.split}`,
            String(x.tools),
            String(x.namespaces),
            String(x.queries),
            m.method,
            r3(m.recall1),
            r3(m.recall10),
            r3(m.map10),
            m.routedRecall === null ? "—" : r3(m.routedRecall),
            m.candidates === null ? "all" : String(Math.round(m.candidates)),
          ]),
        ),
      ),
    );
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tools: { type: "string" },
      traces: { type: "string" },
      queries: { type: "string" },
      warmup: { type: "string" },
      seed: { type: "string" },
      embeddings: { type: "string" },
      datasets: { type: "string" },
      "dataset-embeddings": { type: "string" },
      home: { type: "string" },
      "skip-latency": { type: "boolean", default: false },
      "skip-datasets": { type: "boolean", default: false },
      out: { type: "string" },
    },
  });
  const int = (v: string | undefined, name: string, fallback: number) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`--${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
    return n;
  };
  const sizes = values.tools
    ? values.tools.split(",").map((x) => int(x.trim(), "tools", 0))
    : [...ROUTING_BENCH_DEFAULTS.tools];
  const o = {
    queries: int(values.queries, "queries", ROUTING_BENCH_DEFAULTS.queries),
    warmup: int(values.warmup, "warmup", ROUTING_BENCH_DEFAULTS.warmup),
    seed: int(values.seed, "seed", ROUTING_BENCH_DEFAULTS.seed),
    embeddings: values.embeddings ?? ROUTING_BENCH_DEFAULTS.embeddings,
  };
  const traceCounts =
    values.traces === undefined ? [undefined] : values.traces.split(",").map((x) => int(x.trim(), "traces", 0));
  const datasets = values.datasets
    ? values.datasets.split(",").map((x) => x.trim())
    : [...ROUTING_BENCH_DEFAULTS.datasets];
  const latency: LatencyRow[] = [];
  const recall: RecallRow[] = [];
  console.log(`# toolgraph routing bench\n\nmachine: ${machine()} (shared with other jobs: latency is indicative)\n`);
  if (!values["skip-latency"]) {
    for (const tools of sizes) {
      for (const traces of traceCounts) {
        latency.push(await latencyAt(tools, { ...o, traces }));
        writeResult(values.out ?? "routing", {
          machine: machine(),
          options: { sizes, traceCounts, ...o, datasets },
          latency,
          recall,
        });
      }
    }
  }
  if (!values["skip-datasets"]) {
    for (const name of datasets) {
      recall.push(
        ...(await recallOn(name, {
          embeddings: values["dataset-embeddings"] ?? ROUTING_BENCH_DEFAULTS.datasetEmbeddings,
          home: values.home ?? ROUTING_BENCH_DEFAULTS.home,
        })),
      );
      writeResult(values.out ?? "routing", {
        machine: machine(),
        options: { sizes, traceCounts, ...o, datasets },
        latency,
        recall,
      });
    }
  }
  console.log(formatRouting({ latency, recall }));
  writeResult(values.out ?? "routing", {
    machine: machine(),
    options: {
      sizes,
      traceCounts,
      ...o,
      datasets,
      datasetEmbeddings: values["dataset-embeddings"] ?? ROUTING_BENCH_DEFAULTS.datasetEmbeddings,
    },
    latency,
    recall,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  main().catch((err) => {
    console.error(`bench routing: ${(err as Error).message}`);
    process.exit(2);
  });
}
