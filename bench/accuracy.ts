/**
 * `npx tsx bench/accuracy.ts [--dataset seal-tools|toollinkos|nestful|all] [--embeddings use-lite|hash:512]`
 * `npx tsx bench/accuracy.ts --catalog c.json --traces t.jsonl [--edges e.jsonl] --eval cases.jsonl` (your own data)
 * `--gating-only` prints only the calibration and gating tables (skips retrieval baselines, DAG, plan, capabilities).
 * `--fusion-stress` prints only retrieval, capability match and the fusion-vs-channels verdict.
 *
 * Gating: each project is calibrated first with the library's `calibrate` (out of sample: a rolling time split
 * of the training executions, jobs/fit-calibration.ts); then every held-out top-1 answer (next step, search)
 * goes through the real gate for its own request, which gives its calibrated probability and its adaptive
 * threshold. The tables compare thresholds, the adaptive threshold per answer against a fixed 0.70, and the
 * success rate of high-confidence answers (≥ 0.85) against the 0.80 target (docs/decisions/gate-thresholds.md).
 *
 * Runs toolgraph beside its baselines on each dataset's own test split (Seal-Tools: test_in_domain and
 * test_out_domain separately; ToolLinkOS and NESTFUL: a seeded half of the instances, the other half being
 * the training executions — see bench/convert/README.md). Prints markdown tables and writes
 * bench/results/accuracy-<dataset>.json and gating-next-step-<project>-<split>.svg (bench/charts.ts).
 */

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { z } from "zod";
import {
  catalogSchema,
  declaredEdgeSchema,
  describeIssue,
  type EvalCase,
  evalCaseSchema,
  executionSchema,
} from "../src/formats/index.ts";
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
  type GatedPair,
  gateDecisionTable,
  gatingTable,
  type HarnessInput,
  nextStepGatedPairs,
  openHarnessProject,
  type Row,
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

export function loadDataset(name: string): HarnessInput & { withEdges: boolean; withPlan: boolean } {
  if (name === "seal-tools") {
    const d = convertSealTools();
    return {
      name,
      catalog: d.catalog,
      traces: d.traces,
      edges: d.edges,
      evaluation: d.evaluation as Record<string, EvalCase[]>,
      withEdges: false,
      withPlan: false,
    };
  }
  if (name === "toollinkos") {
    const d = convertToolLinkOs();
    // Training executions carry their instance's capability label (the main tool's bundle), so that past
    // executions labelled with a capability vote for it (intent memory, algorithms/README.md).
    const capOf = new Map(d.trainInstances.map((i) => [i.id, i.capability]));
    const traces = d.traces.map((t) => (capOf.get(t.id) ? { ...t, capability: capOf.get(t.id) } : t));
    return {
      name,
      catalog: d.catalog,
      traces,
      edges: d.edges,
      evaluation: d.evaluation as Record<string, EvalCase[]>,
      withEdges: true,
      withPlan: true,
    };
  }
  if (name === "nestful") {
    const d = convertNestful();
    return {
      name,
      catalog: d.catalog,
      traces: d.traces,
      edges: d.edges,
      evaluation: d.evaluation as Record<string, EvalCase[]>,
      withEdges: false,
      withPlan: false,
    };
  }
  throw new Error(`--dataset: unknown dataset ${JSON.stringify(name)} (seal-tools, toollinkos, nestful, all)`);
}

export interface UserFiles {
  catalog: string;
  traces?: string | undefined;
  edges?: string | undefined;
  eval: string;
}

/**
 * Reads and validates a user's own files before anything is embedded: every record is checked against the
 * import schemas (`file:line: field: message`, "required" for an absent field). The project name is derived
 * from the eval file's name and a hash of all the inputs, so two different datasets never share a project
 * (a re-run of the same files re-imports the same records, which the import deduplicates).
 */
export function loadUserDataset(
  v: UserFiles,
): HarnessInput & { withEdges: boolean; withPlan: boolean; resultName: string } {
  const read = (p: string) => {
    try {
      return readFileSync(p, "utf8");
    } catch (err) {
      throw new Error(`${p}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const jsonl = <T>(p: string | undefined, schema: z.ZodType<T>): T[] => {
    if (!p) return [];
    const out: T[] = [];
    read(p)
      .split(/\r?\n/)
      .forEach((line, i) => {
        if (!line.trim()) return;
        let raw: unknown;
        try {
          raw = JSON.parse(line);
        } catch (err) {
          throw new Error(`${p}:${i + 1}: not valid JSON (${(err as Error).message})`);
        }
        const r = schema.safeParse(raw);
        if (!r.success) throw new Error(`${p}:${i + 1}: ${describeIssue(r.error.issues[0]!)}`);
        out.push(raw as T);
      });
    return out;
  };
  const catalogText = read(v.catalog);
  let catalog: unknown;
  try {
    catalog = JSON.parse(catalogText);
  } catch (err) {
    throw new Error(`${v.catalog}: not valid JSON (${(err as Error).message})`);
  }
  const cr = catalogSchema.safeParse(catalog);
  if (!cr.success) throw new Error(`${v.catalog}: ${describeIssue(cr.error.issues[0]!)}`);
  const traces = jsonl(v.traces, executionSchema);
  const edges = jsonl(v.edges, declaredEdgeSchema);
  const cases = jsonl(v.eval, evalCaseSchema).map((c) => evalCaseSchema.parse(c));
  if (cases.length === 0) throw new Error(`${v.eval}: no evaluation cases`);
  const bySplit: Record<string, EvalCase[]> = {};
  for (const c of cases) {
    const key = c.split ?? "eval";
    bySplit[key] = [...(bySplit[key] ?? []), c];
  }
  const base =
    basename(v.eval)
      .replace(/\.[^.]*$/, "")
      .replace(/[^a-z0-9_-]+/gi, "-")
      .toLowerCase() || "user";
  const hash = createHash("sha256");
  for (const p of [v.catalog, v.traces, v.edges, v.eval]) hash.update(p ? read(p) : "").update("\u0000");
  const name = `user-${base}-${hash.digest("hex").slice(0, 10)}`;
  return {
    name,
    resultName: `user-${base}`,
    catalog: catalog as HarnessInput["catalog"],
    traces,
    edges,
    evaluation: bySplit,
    withEdges: edges.length > 0,
    withPlan: true,
  };
}

export async function runAccuracy(opts: {
  dataset?: string;
  embeddings: string;
  home: string;
  gatingOnly?: boolean;
  fusionStress?: boolean;
  user?: UserFiles;
}) {
  if (opts.fusionStress) return fusionStress(opts);
  // A user's files are read and validated before anything is embedded.
  const userData = opts.user ? loadUserDataset(opts.user) : undefined;
  const names = userData
    ? [userData.resultName]
    : opts.dataset === "all" || !opts.dataset
      ? ["seal-tools", "toollinkos", "nestful"]
      : opts.dataset.split(",");
  console.log(`# toolgraph accuracy\n\nmachine: ${machine()}\nembeddings: ${opts.embeddings}\n`);
  const all: Record<string, unknown> = {};
  for (const name of names) {
    const t0 = Date.now();
    const data = userData ?? loadDataset(name);
    const nTrain = data.traces.length;
    console.log(
      `\n## ${name}\n\n${userData ? `project: ${userData.name} (its own, named after the inputs' contents)\n` : ""}training executions: ${nTrain}; evaluation: ${Object.entries(
        data.evaluation,
      )
        .map(([s, c]) => `${s} ${c.length} cases`)
        .join(", ")}; declared edges: ${data.edges?.length ?? 0}`,
    );
    const tables: Table[] = [];
    const variants = data.withEdges ? ["traces", "traces+edges"] : ["traces"];
    // Gate decisions of the time-ordered history, per split and job, for the order stress rows below.
    const baseline = new Map<string, GatedPair[]>();
    for (const variant of variants) {
      const { tg, project } = await openHarnessProject(
        data,
        { embeddings: opts.embeddings, home: opts.home },
        `${variant}-${opts.embeddings.replace(/[^a-z0-9]/gi, "")}`,
      );
      try {
        // One hour after the last training execution; without traces (nothing learned, nothing is recent) the
        // wall clock.
        const now =
          data.traces.length > 0
            ? Math.max(...data.traces.map((t) => new Date((t as { startedAt: string | number }).startedAt).getTime())) +
              3600_000
            : Date.now();
        // The library's calibration (out of sample), loaded into the gate every gated answer below goes through.
        const cal = await tg.calibrate();
        const ct: Table = {
          title: `Calibration — ${project} (tg.calibrate(): out of sample, isotonic + Wilson lower bound)`,
          headers: ["kind", "pairs", "method", "success ≥ 0.85 raw", "success ≥ 0.85 calibrated", "blocks"],
          rows: cal.map((c) => [
            c.kind,
            String(c.pairs),
            c.method,
            c.rawHighPrecision,
            c.calibratedHighPrecision,
            String(c.blocks),
          ]),
        };
        tables.push(ct);
        print(ct);
        for (const [split, cases] of Object.entries(data.evaluation)) {
          const r = opts.gatingOnly ? undefined : await evalRetrieval(tg, project, split, cases, data.withPlan);
          if (r) {
            tables.push(r);
            print(r);
            const fv = fusionVerdict(r);
            tables.push(fv);
            print(fv);
          }
          const searchGating = await evalSearchGating(tg, project, cases);
          const n = await evalNextStep(tg, project, split, cases, now);
          if (n) {
            if (variant === "traces") baseline.set(`${split}\u0000next step`, n.gating.pairs);
            tables.push(n.table);
            print(n.table);
            const g = gatingTable(`${project} / ${split} next step`, n.gating);
            tables.push(g);
            print(g);
            const gd = gateDecisionTable(`${project} / ${split} next step`, n.gating);
            tables.push(gd);
            print(gd);
            writeCharts(gatingCharts({ tables: [g] }));
          }
          const d = opts.gatingOnly
            ? undefined
            : await evalDag(tg, project, split, cases, data.traces as { steps: { tool: string }[] }[]);
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
            const gd = gateDecisionTable(`${project} / ${split} search`, searchGating);
            tables.push(gd);
            print(gd);
            if (variant === "traces") baseline.set(`${split}\u0000search`, searchGating.pairs);
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
    if (name === "toollinkos" && !opts.user) {
      const st = await orderStress(data, opts, baseline);
      tables.push(st);
      print(st);
    }
    console.log(`\n(${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    all[name] = { machine: machine(), embeddings: opts.embeddings, tables };
    writeResult(`accuracy-${name}${opts.gatingOnly ? "-gating" : ""}`, all[name]);
  }
  return all;
}

/**
 * Fusion against its own channels (fused search must never lose to its best single channel): the fitted
 * toolgraph row of a retrieval table beside the best
 * single-channel row of the same run (BM25, embedding, fused semantic, intent memory alone), by mAP@10. The
 * fitted combination can reproduce each of them (algorithms/search/fit-fusion-weights.ts), so it must not be
 * below the best by more than 0.005.
 */
export function fusionVerdict(retrieval: Table): Table {
  const map = retrieval.headers.indexOf("mAP@10");
  const single = retrieval.rows.filter((r) => {
    const name = String(r[0]);
    return (
      name === "bm25" || name === "embedding" || name.startsWith("fused semantic") || name.startsWith("memory only")
    );
  });
  const fitted = retrieval.rows.find((r) => String(r[0]).startsWith("toolgraph (fitted"));
  const best = single.reduce<Row | undefined>(
    (b, r) => (b === undefined || Number(r[map]) > Number(b[map]) ? r : b),
    undefined,
  );
  const rows: Row[] = [];
  if (fitted && best) {
    const gap = Number(fitted[map]) - Number(best[map]);
    rows.push([
      String(fitted[0]),
      Number(fitted[map]),
      String(best[0]),
      Number(best[map]),
      gap,
      gap >= -0.005 ? "PASS (≥ best − 0.005)" : "FAIL (≥ best − 0.005)",
    ]);
  }
  return {
    title: `Fusion vs its own channels — ${retrieval.title.replace(/^Retrieval — /, "")}`,
    headers: ["fitted row", "mAP@10", "best single channel", "mAP@10 (channel)", "fitted − best", "verdict"],
    rows,
  };
}

/**
 * `--fusion-stress`: only the retrieval and capability-match tables (training traces, no declared edges) and
 * the fusion verdict, per dataset; e.g. ToolLinkOS with `--embeddings hash:512` (content nearly useless, the
 * intent memory carries the signal) and Seal-Tools (the memory is useless). Writes
 * bench/results/accuracy-<dataset>-fusion-stress-<embeddings>.json.
 */
async function fusionStress(opts: { dataset?: string; embeddings: string; home: string }) {
  const names = opts.dataset === "all" || !opts.dataset ? ["seal-tools", "toollinkos"] : opts.dataset.split(",");
  const emb = opts.embeddings.replace(/[^a-z0-9]/gi, "");
  console.log(`# toolgraph accuracy: fusion stress\n\nmachine: ${machine()}\nembeddings: ${opts.embeddings}\n`);
  const all: Record<string, unknown> = {};
  for (const name of names) {
    const t0 = Date.now();
    const data = loadDataset(name);
    console.log(`\n## ${name}\n\ntraining executions: ${data.traces.length}`);
    const tables: Table[] = [];
    const { tg, project } = await openHarnessProject(
      data,
      { embeddings: opts.embeddings, home: opts.home },
      `traces-${emb}`,
    );
    try {
      for (const [split, cases] of Object.entries(data.evaluation)) {
        const r = await evalRetrieval(tg, project, split, cases, false);
        if (r) {
          const fv = fusionVerdict(r);
          tables.push(r, fv);
          print(r);
          print(fv);
        }
        const c = await evalCapability(tg, project, split, cases);
        if (c) {
          tables.push(c);
          print(c);
        }
      }
    } finally {
      await tg.close();
    }
    console.log(`\n(${name}: ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
    all[name] = {
      command: `npx tsx bench/accuracy.ts --fusion-stress --dataset ${name} --embeddings ${opts.embeddings}`,
      machine: machine(),
      date: new Date().toISOString(),
      loadAverage: loadavg()
        .map((x) => x.toFixed(2))
        .join(" "),
      embeddings: opts.embeddings,
      tables,
    };
    writeResult(`accuracy-${name}-fusion-stress-${emb}`, all[name]);
  }
  return all;
}

/**
 * Order stress rows (the gate must not depend on the order the history was collected in): the same training
 * traces collected grouped by capability (sorted by it, the
 * original start times reassigned in that order), calibrated with the old rolling time split and with the
 * default cross-fit; each gate's decisions on the same held-out answers are compared with the time-ordered
 * history's (default calibration): coverage of accepted and of accepted-with-caution, and the share of answers
 * given the same decision. Target: within ±5 % of the time order.
 */
export async function orderStress(
  data: HarnessInput,
  opts: { embeddings: string; home: string },
  baseline: Map<string, GatedPair[]>,
): Promise<Table> {
  const traces = data.traces as { id: string; startedAt: string; capability?: string }[];
  const times = traces.map((t) => t.startedAt).sort((x, y) => Date.parse(x) - Date.parse(y));
  const sorted = traces
    .slice()
    .sort((x, y) => (x.capability ?? "").localeCompare(y.capability ?? "") || x.id.localeCompare(y.id));
  const grouped = sorted.map((t, i) => ({ ...t, startedAt: times[i]! }));
  const { tg, project } = await openHarnessProject(
    { ...data, traces: grouped },
    { embeddings: opts.embeddings, home: opts.home },
    `traces-grouped-${opts.embeddings.replace(/[^a-z0-9]/gi, "")}`,
  );
  const rows: Row[] = [];
  try {
    const now = Math.max(...grouped.map((t) => Date.parse(t.startedAt))) + 3600_000;
    const share = (ps: GatedPair[], d: string) => ps.filter((p) => p.decision === d).length / Math.max(1, ps.length);
    for (const split of ["time", "cross-fit"] as const) {
      await tg.calibrate({ split });
      for (const [splitName, cases] of Object.entries(data.evaluation)) {
        const jobs: [string, GatedPair[]][] = [
          ["next step", await nextStepGatedPairs(tg, project, cases, now)],
          ["search", (await evalSearchGating(tg, project, cases))?.pairs ?? []],
        ];
        for (const [job, pairs] of jobs) {
          const base = baseline.get(`${splitName}\u0000${job}`) ?? [];
          if (pairs.length === 0 || base.length !== pairs.length) continue;
          const same = pairs.filter((p, i) => p.decision === base[i]!.decision).length / pairs.length;
          const dA = share(pairs, "accepted") - share(base, "accepted");
          const dC = share(pairs, "accepted-with-caution") - share(base, "accepted-with-caution");
          const ok = Math.abs(dA) <= 0.05 && Math.abs(dC) <= 0.05 && same >= 0.95;
          rows.push([
            `grouped by capability, ${split === "time" ? "rolling time split (old)" : "cross-fit (default)"} — ${splitName} ${job}`,
            share(pairs, "accepted"),
            share(base, "accepted"),
            share(pairs, "accepted-with-caution"),
            share(base, "accepted-with-caution"),
            same,
            ok ? "PASS (±5 %)" : "FAIL (±5 %)",
          ]);
        }
      }
    }
  } finally {
    await tg.close();
  }
  return {
    title: `Gate decisions vs history order — ${data.name}: training traces grouped by capability against time order (default calibration)`,
    headers: [
      "history / calibration — split job",
      "accepted (grouped)",
      "accepted (time order)",
      "with caution (grouped)",
      "with caution (time order)",
      "same decision",
      "verdict",
    ],
    rows,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { values } = parseArgs({
    options: {
      help: { type: "boolean", default: false },
      "gating-only": { type: "boolean", default: false },
      "fusion-stress": { type: "boolean", default: false },
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
    console.log(`Usage: toolgraph bench accuracy [options]   (or npx tsx bench/accuracy.ts [options])

  --dataset NAME      seal-tools, toollinkos, nestful, a comma list, or all (default all)
  --embeddings SPEC   use-lite (default) or hash:512
  --home DIR          embedded data directory reused across runs: tool embeddings are stored there
                      (default .toolgraph-bench)
  --gating-only       only the calibration and gating tables (next step and search)
  --fusion-stress     only retrieval, capability match and the "fusion vs its own channels" verdict
                      (training traces; default datasets seal-tools and toollinkos), e.g. with
                      --embeddings hash:512; writes accuracy-<dataset>-fusion-stress-<embeddings>.json
  --catalog FILE --eval FILE [--traces FILE] [--edges FILE]
                      your own data instead of a dataset: catalog.json (tools), eval cases (JSONL: retrieval,
                      next-step, dag, capability), training executions (JSONL; each needs id, startedAt, success,
                      steps[].tool) and declared edges (JSONL: from, to, type). Every record is validated before
                      anything is embedded; the run gets its own project, named after the files' contents
  --help              this text

Prints markdown tables; writes bench/results/accuracy-<dataset>.json (-gating.json with --gating-only;
accuracy-user-<eval file name>.json for your own data) and gating-next-step-<project>-<split>.svg.`);
    process.exit(0);
  }
  const user = values.catalog
    ? { catalog: values.catalog, traces: values.traces, edges: values.edges, eval: values.eval ?? "" }
    : undefined;
  if (user && !user.eval) {
    console.error("bench accuracy: --eval is required with --catalog");
    process.exit(2);
  }
  try {
    await runAccuracy({
      dataset: values.dataset,
      embeddings: values.embeddings!,
      home: values.home!,
      gatingOnly: values["gating-only"],
      fusionStress: values["fusion-stress"],
      user,
    });
  } catch (err) {
    console.error(`bench accuracy: ${(err as Error).message}`);
    process.exit(2);
  }
}
