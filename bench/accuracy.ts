/**
 * `npx tsx bench/accuracy.ts [--dataset seal-tools|toollinkos|nestful|all] [--embeddings use-lite|hash:512]`
 * `npx tsx bench/accuracy.ts --catalog c.json --traces t.jsonl [--edges e.jsonl] --eval cases.jsonl` (your own data)
 * `--gating-only` prints only the calibration and gating tables (skips retrieval baselines, DAG, plan, capabilities).
 *
 * Gating: each project is calibrated first with the library's `calibrate` (out of sample: a rolling time split
 * of the training executions, services/calibrate.ts); then every held-out top-1 answer (next step, search)
 * goes through the real gate for its own request, which gives its calibrated probability and its adaptive
 * threshold. The tables compare thresholds, the adaptive threshold per answer against a fixed 0.70, and the
 * success rate of high-confidence answers (≥ 0.85) against seed 002's 0.80.
 *
 * Runs toolgraph beside its baselines on each dataset's own test split (Seal-Tools: test_in_domain and
 * test_out_domain separately; ToolLinkOS and NESTFUL: a seeded half of the instances, the other half being
 * the training executions — see bench/convert/README.md). Prints markdown tables and writes
 * bench/results/accuracy-<dataset>.json and gating-next-step-<project>-<split>.svg (bench/charts.ts).
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { type EvalCase, evalCaseSchema } from "../src/formats/schemas.ts";
import { gatingCharts, writeCharts } from "./charts.ts";
import { convertNestful } from "./convert/nestful.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import {
  evalCapability,
  evalDag,
  evalDiscovery,
  evalNextStep,
  evalPlan,
  evalRetrieval,
  evalSearchGating,
  gatingTable,
  type HarnessInput,
  openHarnessProject,
  type Table,
} from "./harness.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

let lastPrint = Date.now();
function print(t: Table | undefined): void {
  if (!t) return;
  const now = Date.now();
  console.error(`[${((now - lastPrint) / 1000).toFixed(1)} s] ${t.title}`);
  lastPrint = now;
  console.log(`\n### ${t.title}\n`);
  console.log(markdownTable(t.headers, t.rows));
}

function loadDataset(name: string): HarnessInput & { withEdges: boolean; withPlan: boolean } {
  if (name === "seal-tools") {
    const d = convertSealTools();
    return { name, catalog: d.catalog, traces: d.traces, edges: d.edges, evaluation: d.evaluation as Record<string, EvalCase[]>, withEdges: false, withPlan: false };
  }
  if (name === "toollinkos") {
    const d = convertToolLinkOs();
    // Training executions carry their instance's capability label (the main tool's bundle), so that past
    // executions labelled with a capability vote for it (intent memory, issue 9).
    const capOf = new Map(d.trainInstances.map((i) => [i.id, i.capability]));
    const traces = d.traces.map((t) => (capOf.get(t.id) ? { ...t, capability: capOf.get(t.id) } : t));
    return { name, catalog: d.catalog, traces, edges: d.edges, evaluation: d.evaluation as Record<string, EvalCase[]>, withEdges: true, withPlan: true };
  }
  if (name === "nestful") {
    const d = convertNestful();
    return { name, catalog: d.catalog, traces: d.traces, edges: d.edges, evaluation: d.evaluation as Record<string, EvalCase[]>, withEdges: false, withPlan: false };
  }
  throw new Error(`--dataset: unknown dataset ${JSON.stringify(name)} (seal-tools, toollinkos, nestful, all)`);
}

function loadUserDataset(v: { catalog: string; traces?: string; edges?: string; eval: string }): HarnessInput & { withEdges: boolean; withPlan: boolean } {
  const jsonl = (p: string | undefined) => (p ? readFileSync(p, "utf8").split(/\r?\n/).filter((l) => l.trim()).map((l) => JSON.parse(l)) : []);
  const cases = jsonl(v.eval).map((c, i) => {
    const r = evalCaseSchema.safeParse(c);
    if (!r.success) throw new Error(`${v.eval}:${i + 1}: ${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`);
    return r.data;
  });
  const bySplit: Record<string, EvalCase[]> = {};
  for (const c of cases) {
    const key = c.split ?? "eval";
    bySplit[key] = [...(bySplit[key] ?? []), c];
  }
  const edges = jsonl(v.edges);
  return { name: "user", catalog: JSON.parse(readFileSync(v.catalog, "utf8")), traces: jsonl(v.traces), edges, evaluation: bySplit, withEdges: edges.length > 0, withPlan: true };
}

export async function runAccuracy(opts: { dataset?: string; embeddings: string; home: string; gatingOnly?: boolean; user?: { catalog: string; traces?: string; edges?: string; eval: string } }) {
  const names = opts.user ? ["user"] : opts.dataset === "all" || !opts.dataset ? ["seal-tools", "toollinkos", "nestful"] : opts.dataset.split(",");
  console.log(`# toolgraph accuracy\n\nmachine: ${machine()}\nembeddings: ${opts.embeddings}\n`);
  const all: Record<string, unknown> = {};
  for (const name of names) {
    const t0 = Date.now();
    const data = opts.user ? loadUserDataset(opts.user) : loadDataset(name);
    const nTrain = data.traces.length;
    console.log(`\n## ${name}\n\ntraining executions: ${nTrain}; evaluation: ${Object.entries(data.evaluation).map(([s, c]) => `${s} ${c.length} cases`).join(", ")}; declared edges: ${data.edges?.length ?? 0}`);
    const tables: Table[] = [];
    const variants = data.withEdges ? ["traces", "traces+edges"] : ["traces"];
    for (const variant of variants) {
      const { tg, project } = await openHarnessProject(data, { embeddings: opts.embeddings, home: opts.home }, `${variant}-${opts.embeddings.replace(/[^a-z0-9]/gi, "")}`);
      try {
        const now = Math.max(...data.traces.map((t) => Date.parse((t as { startedAt: string }).startedAt))) + 3600_000;
        // The library's calibration (out of sample), loaded into the gate every gated answer below goes through.
        const cal = await tg.calibrate();
        const ct: Table = {
          title: `Calibration — ${project} (tg.calibrate(): out of sample, isotonic + Wilson lower bound)`,
          headers: ["kind", "pairs", "method", "success ≥ 0.85 raw", "success ≥ 0.85 calibrated", "blocks"],
          rows: cal.map((c) => [c.kind, String(c.pairs), c.method, c.rawHighPrecision, c.calibratedHighPrecision, String(c.blocks)]),
        };
        tables.push(ct);
        print(ct);
        for (const [split, cases] of Object.entries(data.evaluation)) {
          const r = opts.gatingOnly ? undefined : await evalRetrieval(tg, project, split, cases, data.withPlan);
          if (r) {
            tables.push(r);
            print(r);
          }
          const searchGating = await evalSearchGating(tg, project, cases);
          const n = await evalNextStep(tg, project, split, cases, now);
          if (n) {
            tables.push(n.table);
            print(n.table);
            const g = gatingTable(`${project} / ${split} next step`, n.gating);
            tables.push(g);
            print(g);
            writeCharts(gatingCharts({ tables: [g] }));
          }
          const d = opts.gatingOnly ? undefined : await evalDag(tg, project, split, cases, data.traces as { steps: { tool: string }[] }[]);
          if (d) {
            tables.push(d);
            print(d);
          }
          if (data.withPlan && !opts.gatingOnly) {
            const p = await evalPlan(tg, project, split, cases);
            if (p) {
              tables.push(p);
              print(p);
            }
          }
          if (searchGating && searchGating.pairs.length > 0) {
            const g = gatingTable(`${project} / ${split} search`, searchGating);
            tables.push(g);
            print(g);
          }
          const disc = opts.gatingOnly ? undefined : await evalDiscovery(tg, project, split, cases);
          if (disc) {
            tables.push(disc);
            print(disc);
          }
          const c = opts.gatingOnly ? undefined : await evalCapability(tg, project, split, cases);
          if (c) {
            tables.push(c);
            print(c);
          }
        }
      } finally {
        await tg.close();
      }
    }
    console.log(`\n(${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    all[name] = { machine: machine(), embeddings: opts.embeddings, tables };
    writeResult(`accuracy-${name}${opts.gatingOnly ? "-gating" : ""}`, all[name]);
  }
  return all;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", default: false },
      "gating-only": { type: "boolean", default: false },
      dataset: { type: "string", default: "all" },
      embeddings: { type: "string", default: "use-lite" },
      home: { type: "string", default: ".toolgraph-bench" },
      catalog: { type: "string" },
      traces: { type: "string" },
      edges: { type: "string" },
      eval: { type: "string" },
    },
  });
  if (values.help) {
    console.log(`Usage: npx tsx bench/accuracy.ts [options]

  --dataset NAME      seal-tools, toollinkos, nestful, a comma list, or all (default all)
  --embeddings SPEC   use-lite (default) or hash:512
  --home DIR          embedded data directory reused across runs: tool embeddings are stored there
                      (default .toolgraph-bench)
  --gating-only       only the calibration and gating tables (next step and search)
  --catalog FILE --traces FILE [--edges FILE] --eval FILE   your own data instead of a dataset
  --help              this text

Prints markdown tables; writes bench/results/accuracy-<dataset>.json (-gating.json with --gating-only) and
gating-next-step-<project>-<split>.svg.`);
    process.exit(0);
  }
  const user = values.catalog ? { catalog: values.catalog, traces: values.traces, edges: values.edges, eval: values.eval ?? "" } : undefined;
  if (user && !user.eval) {
    console.error("bench accuracy: --eval is required with --catalog");
    process.exit(2);
  }
  try {
    await runAccuracy({ dataset: values.dataset, embeddings: values.embeddings!, home: values.home!, gatingOnly: values["gating-only"], user });
  } catch (err) {
    console.error(`bench accuracy: ${(err as Error).message}`);
    process.exit(2);
  }
}
