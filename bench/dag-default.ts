/**
 * `npx tsx bench/dag-default.ts [--dataset nestful,seal-tools,toollinkos] [--folds 5] [--embeddings hash:64]`
 *
 * Which graph should buildDag use by default (docs/decisions/dag-default.md)? Training traces only: each
 * dataset's training executions are split into folds; each fold's executions with two or more distinct tools
 * are held out, the others imported, and the held-out execution's tools (in a seeded random order, with its
 * request as the intent, as a user would call it) are ordered by each method. Gold edges: the execution's
 * recorded `dependsOn`. Micro-averaged edge precision, recall and F1 over all held-out executions, and over
 * those whose tools all occur in the imported folds. `--sparse 0.9` drops `dependsOn` from 90 % of the imported
 * executions (seeded): a project whose traces rarely record data flow, so the dependency graph exists but
 * relates few pairs.
 */
import { parseArgs } from "node:util";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { openToolgraph, type RequestOf, type Toolgraph } from "../src/index.ts";
import { convertNestful } from "./convert/nestful.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { projectTools } from "./lib/project-tools.ts";
import { markdownTable } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "nestful,seal-tools,toollinkos" },
    folds: { type: "string", default: "5" },
    embeddings: { type: "string", default: "hash:64" },
    sparse: { type: "string", default: "0" },
  },
});
/** Share of the imported (training-fold) executions whose `dependsOn` is dropped: a project that records data flow rarely. */
const SPARSE = Number(values.sparse);
const FOLDS = Number(values.folds);

type Trace = { id: string; intent?: string | undefined; steps: { tool: string; dependsOn?: number[] | undefined }[] };
type Method = (
  tg: Toolgraph,
  project: string,
  tools: string[],
  intent: string | undefined,
  rng: () => number,
) => Promise<[string, string][]>;

const viaJob =
  (graph: "history" | "dependency" | "auto"): Method =>
  async (tg, project, tools, intent) => {
    const dag = await tg.buildDag({ project, tools, graph, ...(intent ? { intent } : {}) });
    return dag.edges.map((e) => [e.from, e.to]);
  };
type HistoryFallback = NonNullable<NonNullable<RequestOf<"buildDag">["ablation"]>["historyFallback"]>;
const viaFallback =
  (mode: HistoryFallback): Method =>
  async (tg, project, tools, intent) => {
    // The default graph with the history fallback in one of its modes (buildDag's library-only `ablation`).
    const dag = await tg.buildDag({
      project,
      tools,
      graph: "auto",
      ...(intent ? { intent } : {}),
      ablation: { historyFallback: mode },
    });
    return dag.edges.map((e) => [e.from, e.to]);
  };
const METHODS: Record<string, Method> = {
  "random-order chain": async (_tg, _p, tools, _i, rng) => {
    const u = tools.slice();
    for (let i = u.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [u[i], u[j]] = [u[j]!, u[i]!];
    }
    return u.slice(1).map((t, i) => [u[i]!, t]);
  },
  "history graph": viaJob("history"),
  "dependency graph": viaJob("dependency"),
  "default (auto)": viaJob("auto"),
  "dependency + history fallback, pairs": viaFallback("pair"),
  "dependency + history fallback, tools without dependency edges": viaFallback("tool"),
  "dependency + history fallback, sets the dependency graph leaves unrelated": viaFallback("set"),
};

function load(name: string): { catalog: unknown; traces: Trace[] } {
  if (name === "nestful") return convertNestful() as never;
  if (name === "seal-tools") return convertSealTools() as never;
  if (name === "toollinkos") return convertToolLinkOs() as never;
  throw new Error(`--dataset: unknown ${name}`);
}

function goldEdges(t: Trace): Set<string> {
  const out = new Set<string>();
  for (const s of t.steps) {
    for (const d of s.dependsOn ?? []) {
      const from = t.steps[d]?.tool;
      if (from !== undefined && from !== s.tool) out.add(`${from}\u0000${s.tool}`);
    }
  }
  return out;
}

for (const name of values.dataset.split(",")) {
  const d = load(name);
  const rng = mulberry32(7);
  const order = d.traces
    .map((t, i) => ({ t, k: rng(), i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.t);
  const counts = new Map<string, { all: number[]; covered: number[] }>(
    Object.keys(METHODS).map((m) => [m, { all: [0, 0, 0], covered: [0, 0, 0] }]),
  );
  let cases = 0;
  let coveredCases = 0;
  for (let f = 0; f < FOLDS; f++) {
    const held = order.filter((_, i) => i % FOLDS === f);
    const train = order.filter((_, i) => i % FOLDS !== f);
    const project = `${name}-fold${f}`;
    const tg = await openToolgraph({
      home: "memory://",
      database: "",
      project,
      embeddings: values.embeddings,
      resultCacheSize: 0,
      recommendationLog: { enabled: false },
    });
    await tg.importCatalog(d.catalog as never);
    const dropRng = mulberry32(13 + f);
    const imported =
      SPARSE > 0
        ? train.map((x) => (dropRng() < SPARSE ? { ...x, steps: x.steps.map(({ dependsOn: _d, ...st }) => st) } : x))
        : train;
    await tg.importTraces(imported as never);
    const known = await projectTools(tg, project);
    const methodRng = mulberry32(11 + f);
    for (const t of held) {
      const tools = [...new Set(t.steps.map((x) => x.tool))].filter((x) => known.has(x));
      if (tools.length < 2) continue;
      cases++;
      const covered = tools.every((x) => known.get(x)! > 0);
      if (covered) coveredCases++;
      const gold = goldEdges(t);
      const shuffled = tools.slice();
      for (let i = shuffled.length - 1; i > 0; i--) {
        const j = Math.floor(methodRng() * (i + 1));
        [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
      }
      for (const [m, fn] of Object.entries(METHODS)) {
        const pred = new Set((await fn(tg, project, shuffled, t.intent, methodRng)).map(([a, b]) => `${a}\u0000${b}`));
        let tp = 0;
        for (const e of pred) if (gold.has(e)) tp++;
        const c = counts.get(m)!;
        for (const bucket of covered ? [c.all, c.covered] : [c.all]) {
          bucket[0]! += tp;
          bucket[1]! += pred.size - tp;
          bucket[2]! += gold.size - tp;
        }
      }
    }
    await tg.close();
    console.error(`${name}: fold ${f + 1}/${FOLDS} done`);
  }
  const prf = ([tp, fp, fn]: number[]) => {
    const p = tp! + fp! === 0 ? 0 : tp! / (tp! + fp!);
    const r = tp! + fn! === 0 ? 0 : tp! / (tp! + fn!);
    return [p, r, p + r === 0 ? 0 : (2 * p * r) / (p + r)];
  };
  const rows = [...counts].flatMap(([m, c]) => [
    [`${m} [all]`, cases, ...prf(c.all)],
    [`${m} [covered by the other folds]`, coveredCases, ...prf(c.covered)],
  ]);
  console.log(
    `\n### DAG edges on training traces, ${FOLDS} folds${SPARSE > 0 ? `, dependsOn dropped from ${SPARSE * 100} % of the imported executions` : ""} — ${name} (${cases} held-out executions with ≥ 2 tools, ${coveredCases} covered; ${values.embeddings})\n`,
  );
  console.log(markdownTable(["method [cases]", "n", "edge P", "edge R", "edge F1"], rows));
}
