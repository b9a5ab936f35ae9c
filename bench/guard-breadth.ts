/**
 * The history guard's strength against the breadth of the history, on training data only: how strongly should
 * a project guard its memory and usage signals before any fit, given how many distinct intent groups its past
 * requests span?
 *
 *   npx tsx bench/guard-breadth.ts [--dataset nestful,toollinkos,seal-tools,demo] [--embeddings hash:512]
 *       [--queries 120] [--out guard-breadth]
 *
 * For each dataset (its training executions only, in time order; bench/convert) and history size n, the first n
 * training executions are the history and the later training executions whose intent group (near-duplicate
 * groups, algorithms/evaluation/intent-groups.ts) is absent from that history are the queries ("unseen": the
 * requests a project has not seen yet), relevant = the tools each called successfully. Each is answered by
 * `search` with the guard's strength γ set to 1, 0.75, 0.5, 0.25 and 0 (stored as the project's search
 * weights, so no background fit runs), beside the catalog alone (no history). The "repeated" histories
 * replay the first 30 distinct training intents 5 times (150 executions: few intents repeated, as a gateway's
 * traffic is). The demo is `toolgraph demo`'s catalog and 600 traces (seed 42) with every 5th held out as in
 * bench/token-savings.ts: its 32 intents all repeat, so its unseen queries are few or none.
 *
 * Pins the weights with `setSearchWeights` and reads the prior γ₀ (src/jobs/guard-prior.ts) measured on the
 * same history from `stats().learning`.
 * Writes bench/results/<out>.json and prints a markdown table with the load.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { intentGroups } from "../algorithms/evaluation/intent-groups.ts";
import { averagePrecisionAtK } from "../algorithms/evaluation/retrieval-metrics.ts";
import { demoCatalog, demoTraces } from "../src/demo/index.ts";
import { openToolgraph, type Toolgraph } from "../src/index.ts";
import { convertSharedDataset } from "./convert/datasets.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "nestful,toollinkos,seal-tools,demo" },
    embeddings: { type: "string", default: "hash:512" },
    queries: { type: "string", default: "120" },
    out: { type: "string", default: "guard-breadth" },
  },
});
const GAMMAS = [1, 0.75, 0.5, 0.25, 0];

interface Trace {
  id: string;
  intent?: string;
  startedAt: string;
  steps: { tool: string; success?: boolean }[];
  [k: string]: unknown;
}
interface Train {
  name: string;
  catalog: { tools: unknown[]; capabilities?: unknown[] };
  traces: Trace[];
}

function load(name: string): Train {
  if (name === "demo") {
    const all = demoTraces(600, 42, Date.parse("2026-11-01T12:00:00Z")) as unknown as Trace[];
    return {
      name,
      catalog: demoCatalog() as unknown as Train["catalog"],
      traces: all
        .filter((_, i) => i % 5 !== 4)
        .map((t) => ({ ...t, startedAt: new Date(t.startedAt as unknown as string | number).toISOString() })),
    };
  }
  const d = convertSharedDataset(name);
  if (!d) throw new Error(`--dataset: unknown dataset ${JSON.stringify(name)}`);
  const traces = [...(d.traces as unknown as Trace[])].sort(
    (a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id),
  );
  return { name, catalog: d.catalog as unknown as Train["catalog"], traces };
}

const toolsOf = (t: Trace) => [...new Set(t.steps.filter((s) => s.success !== false).map((s) => s.tool))];

/** History sizes: a geometric ladder up to the whole training set (less the queries it needs). */
function sizes(n: number): number[] {
  return [30, 60, 120, 240, 480, 960].filter((x) => x < n * 0.85);
}

interface Row {
  set: string;
  executions: number;
  groups: number;
  queries: number;
  catalog: number;
  map: Record<string, number>;
  /** The prior γ₀ measured on the history (guard-prior.ts), its evidence, and the mAP@10 with it. */
  prior: { strength: number; memory: number; content: number; lower: number; groups: number };
  atPrior: number;
}

function thin<T>(xs: T[], max: number): T[] {
  if (xs.length <= max) return xs;
  const step = xs.length / max;
  return Array.from({ length: max }, (_, i) => xs[Math.floor(i * step)]!);
}

async function mapOf(tg: Toolgraph, queries: Trace[]): Promise<number> {
  let s = 0;
  for (const q of queries) {
    const r = (await tg.search({ intent: q.intent ?? "", limit: 10 })) as { results: { tool: string }[] };
    s += averagePrecisionAtK(
      r.results.map((x) => x.tool),
      toolsOf(q),
      10,
    );
  }
  return queries.length === 0 ? Number.NaN : s / queries.length;
}

async function measure(d: Train, set: string, history: Trace[], pool: Trace[]): Promise<Row> {
  const items = [...history, ...pool].map((t) => ({ intent: t.intent ?? "", tools: toolsOf(t) }));
  const g = intentGroups(items);
  const seen = new Set(Array.from(g.group.subarray(0, history.length)));
  const queries = thin(
    pool.filter((t, j) => t.intent && toolsOf(t).length > 0 && !seen.has(g.group[history.length + j]!)),
    Number(values.queries),
  );
  const last = Date.parse(history.at(-1)?.startedAt ?? "2026-01-01T00:00:00Z");
  const open = () =>
    openToolgraph({
      home: "memory://",
      project: "guard",
      embeddings: values.embeddings,
      now: () => last + 86_400_000,
      resultCacheSize: 0,
    });
  const bare = await open();
  let catalog: number;
  try {
    await bare.importCatalog(d.catalog);
    await bare.settle();
    catalog = await mapOf(bare, queries);
  } finally {
    await bare.close();
  }
  const tg = await open();
  const map: Record<string, number> = {};
  let prior: Row["prior"] = { strength: 1, memory: Number.NaN, content: Number.NaN, lower: Number.NaN, groups: 0 };
  let atPrior = Number.NaN;
  try {
    await tg.importCatalog(d.catalog);
    for (let i = 0; i < history.length; i += 500) await tg.importTraces(history.slice(i, i + 500));
    await tg.settle();
    // Before any fit: the defaults in force, the guard at its measured prior.
    const learning = (await tg.stats()).learning.searchWeights;
    prior = learning.guardPrior;
    for (const gamma of [...GAMMAS, prior.strength]) {
      await tg.setSearchWeights({ ...learning.inForce, historyGuard: gamma });
      const m = await mapOf(tg, queries);
      if (GAMMAS.includes(gamma)) map[String(gamma)] = m;
      atPrior = m;
    }
  } finally {
    await tg.close();
  }
  const groups = new Set(Array.from(g.group.subarray(0, history.length))).size;
  const row = { set, executions: history.length, groups, queries: queries.length, catalog, map, prior, atPrior };
  console.error(JSON.stringify(row));
  return row;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const name of values.dataset.split(",")) {
    const d = load(name);
    for (const n of sizes(d.traces.length)) rows.push(await measure(d, name, d.traces.slice(0, n), d.traces.slice(n)));
    // Repeated: the first 30 distinct intents, 5 times each; the queries are every other training execution.
    const firstOf = new Map<string, Trace>();
    for (const t of d.traces) if (t.intent && !firstOf.has(t.intent) && firstOf.size < 30) firstOf.set(t.intent, t);
    const base = [...firstOf.values()];
    const t0 = Date.parse(d.traces[0]!.startedAt);
    const rep = Array.from({ length: base.length * 5 }, (_, i) => ({
      ...base[i % base.length]!,
      id: `rep-${i}`,
      startedAt: new Date(t0 + i * 60_000).toISOString(),
    }));
    const used = new Set(base.map((t) => t.id));
    rows.push(
      await measure(
        d,
        `${name}-repeated`,
        rep,
        d.traces.filter((t) => !used.has(t.id)),
      ),
    );
  }
  const f = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(3));
  console.log(
    `# History guard vs breadth (training data only)\n\n${machine()}; load ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        " ",
      )}; embeddings ${values.embeddings}\n\nmAP@10 on later training requests of intent groups the history has not seen.\n`,
  );
  console.log(
    markdownTable(
      [
        "history",
        "executions",
        "intent groups",
        "queries",
        "catalog alone",
        ...GAMMAS.map((g) => `γ ${g}`),
        "prior: memory / content (lower bound)",
        "γ₀",
        "at γ₀",
      ],
      rows.map((r) => [
        r.set,
        String(r.executions),
        String(r.groups),
        String(r.queries),
        f(r.catalog),
        ...GAMMAS.map((g) => f(r.map[String(g)]!)),
        `${f(r.prior.memory)} / ${f(r.prior.content)} (${f(r.prior.lower)})`,
        r.prior.strength.toFixed(2),
        f(r.atPrior),
      ]),
    ),
  );
  writeResult(values.out, { machine: machine(), load: loadavg(), embeddings: values.embeddings, rows });
}

await main();
