/**
 * Latency and scale bench: per-operation p50/p95/p99 in process at catalog sizes 1k / 10k / 50k tools
 * (synthetic projects from bench/synthetic/generate.ts), against the latency budgets.
 *
 *   node --expose-gc --import tsx bench/latency.ts [--tools 1000,10000,50000] [--reps 200] [--seed 1] [--embeddings hash:512]
 *                            [--server-sizes 10000] [--use-lite-queries 50] [--analytics-reps 3] [--op-seconds 30]
 *
 * Setup per size: generate the project (traces = 2 × tools below 50k tools, 1 × tools from 50k on, to keep
 * the whole run within minutes on 2 cores), import catalog (embedded now), traces in files of 5,000
 * executions and declared edges into the embedded database (memory://), with the `hash:512` embedder by
 * default (512-d like USE-lite; USE-lite is too slow to embed 50k tool texts in a bench). The USE-lite
 * query-embedding time is measured apart: one short query at a time, ~50 queries after a warm-up.
 *
 * What each row measures (after `warmup` untimed calls, over `reps` calls, inputs cycling through a list;
 * each operation is capped at `opSeconds` once 10 calls are timed, so n can be below reps at 50k):
 * - search: `tg.search({intent})` → the service's own `timings.totalMs − timings.embedMs`: everything the
 *   search job does except the query embedding (snapshot/analytics/index look-ups, intent-memory recall,
 *   candidate scoring, gate prepare + gate per hit, one read of the project config for fallbacks).
 * - search scoring: `timings.searchMs` of the same calls (searchCandidates alone).
 * - search, repeated queries: the same queries a second time (answered by the result cache when the graph
 *   did not move; its hit rate is printed with the size's summary).
 * - search with context: as `search` with 2 context tools taken from a trace prefix.
 * - intent memory recall: `recallMemory` alone on a pre-embedded query (a part of `search`; `tg.searchModel().recall`).
 * - next step: `tg.suggestNext({context})` `timings.totalMs` (no intent, so no embedding); next-step scoring:
 *   `rawSuggestions` alone (`tg.nextStepModel().suggest`). Contexts are trace prefixes (1..len−1 steps).
 * - capability discovery: `tg.discoverCapabilities({context})` `timings.totalMs`.
 * - DAG of 20 tools: `dagOver(snapshot, 20 indices)` (the pure DAG, `tg.dagModel().dag`); DAG service: `tg.buildDag` totalMs. The 20
 *   tools are sampled from one Louvain community of ≥ 20 tools (so they are related).
 * - gating: `gatekeeper.prepare({text: intent})` + `gate("search", score)` for 10 scores.
 * - record one execution: wall time of `await tg.recordExecution(exec)` (fresh id; one transaction, graph
 *   version bump, in-place snapshot patch) on the embedded database and, at `serverSizes`, on PostgreSQL.
 * - analytics refresh: `engine.analyticsCache.refresh(snapshot)` (synchronous), each part reported.
 * - search under a CPU-bound process / search, quiet peer: a second process spinning one core (spawned, paused
 *   and resumed with SIGSTOP / SIGCONT, killed at the end) is running during every other block of 10 searches
 *   on fresh distinct intents: the two rows are those blocks with and without it (real servers share cores).
 * Every row names its peer measured in the same run (the scoring core of a job, the quiet blocks of the load
 * row, the embedded record of the server record, the budget of the analytics refresh) and reports p50 and p99
 * as a ratio to it: compare ratios, not absolute times, on a shared machine.
 * Steady state: after the import, the search and next-step weights are fitted once (untimed; a fresh
 * project fits them in the background on first use, which would otherwise land inside the timed calls).
 * Query intents are the synthetic traces' intents (user requests), never tool descriptions.
 * Memory: peak of process.memoryUsage().rss sampled every 20 ms and after each phase, and
 * process.resourceUsage().maxRSS (the process-wide peak so far, so cumulative over sizes).
 *
 * PostgreSQL: TOOLGRAPH_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), a fresh
 * schema per run (search_path), dropped afterwards.
 */
import { execSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { DEFAULTS as NEXT_DEFAULTS } from "../algorithms/prediction/next-step.ts";
import { mulberry32, shuffled } from "../algorithms/random/rng.ts";
import { type CacheStats, createEmbeddingProvider } from "../src/index.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../src/library/toolgraph.ts";
import { latencyCharts, writeCharts } from "./charts.ts";
import type { TraceRecord } from "./convert/common.ts";
import { machine, markdownTable, percentiles, progress, writeResult } from "./lib/report.ts";
import { generateSyntheticProject, type SyntheticProject } from "./synthetic/generate.ts";

export const SERVER_URL = process.env.TOOLGRAPH_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface LatencyOptions {
  /** Catalog sizes (tools). Default [1000, 10000, 50000]. */
  sizes?: number[];
  /** Timed calls per operation. Default 200. */
  reps?: number;
  /** Untimed calls per operation before timing. Default min(20, reps). */
  warmup?: number;
  /** Generator and sampling seed. Default 1. */
  seed?: number;
  /** Embedding spec for the catalog and queries. Default "hash:512". */
  embeddings?: string;
  /** Traces generated for a size. Default 2 × tools below 50,000 tools, else 1 × tools. */
  tracesFor?: (tools: number) => number;
  /** Sizes at which `record one execution` also runs on the PostgreSQL server. Default [10000]. */
  serverSizes?: number[];
  /** PostgreSQL URL for the server rows. Default TOOLGRAPH_BENCH_DATABASE_URL or the local test database. */
  serverUrl?: string;
  /** USE-lite queries embedded one at a time (0 skips). Default 50. */
  useLiteQueries?: number;
  /** Analytics refreshes per size. Default 3 below 50,000 tools, else 1. */
  analyticsReps?: number;
  /** Time cap per operation (s): timing stops after it once 10 calls are timed. Default 30. */
  opSeconds?: number;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

export const LATENCY_DEFAULTS = {
  opSeconds: 30,
  sizes: [1_000, 10_000, 50_000],
  reps: 200,
  warmup: 20,
  seed: 1,
  embeddings: "hash:512",
  serverSizes: [10_000],
  useLiteQueries: 50,
  analyticsReps: 3,
  tracesFileSize: 5_000,
  dagTools: 20,
  contextTools: 2,
  /** Searches of the sustained row (distinct intents permitting). */
  sustainedSearches: 2_000,
  /** Searches per block of the CPU-load row (blocks alternate without / with the spinning process). */
  loadBlock: 10,
} as const;

export function defaultTracesFor(tools: number): number {
  return tools < 50_000 ? 2 * tools : tools;
}

export interface OperationResult {
  name: string;
  /** What exactly is timed. */
  what: string;
  /** The row this one is compared with (same run), and p50 / p99 as a ratio to it. */
  peer?: string;
  ratioToPeer?: { p50: number; p99: number };
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  n: number;
}

export interface SizeResult {
  tools: number;
  traces: number;
  steps: number;
  capabilities: number;
  /** Setup wall times (ms). */
  setupMs: Record<string, number>;
  operations: OperationResult[];
  analytics: {
    parts: Record<string, { p50: number; max: number }>;
    reps: number;
    communities: number;
    spectralK: number;
    modularity: number;
  };
  queryCache: CacheStats["queryEmbeddings"] & { hitRate: number };
  /** The result cache of repeated identical requests (src/library/result-cache.ts). */
  resultCache?: { hits: number; misses: number; hitRate: number };
  memory: { peakRssMiB: number; maxRssMiB: number };
  server?: { url: string; error?: string };
}

export interface BudgetRow {
  tools: number;
  operation: string;
  statistic: "p50" | "p99";
  budgetMs: number;
  measuredMs: number | null;
  verdict: "PASS" | "FAIL" | "not run";
}

export interface LatencyResult {
  machine: string;
  startedAt: string;
  /** os.loadavg() at the start and the end (the machine may be shared). */
  loadAverage: { start: number[]; end: number[] };
  /** `uptime` at the start and the end. */
  uptime: string[];
  options: {
    sizes: number[];
    reps: number;
    warmup: number;
    seed: number;
    embeddings: string;
    serverSizes: number[];
    traces: number[];
    gcBetweenOperations: boolean;
  };
  useLite?: { loadMs: number; p50: number; p95: number; p99: number; mean: number; n: number; error?: string };
  sizes: SizeResult[];
  budgets: BudgetRow[];
}

/** Budgets at 10,000 tools (issue "Benchmark runs"). Operation names match OperationResult.name. */
export const BUDGETS: { tools: number; operation: string; statistic: "p50" | "p99"; budgetMs: number }[] = [
  { tools: 10_000, operation: "search", statistic: "p50", budgetMs: 2 },
  { tools: 10_000, operation: "search", statistic: "p99", budgetMs: 10 },
  { tools: 10_000, operation: "next step", statistic: "p50", budgetMs: 1 },
  { tools: 10_000, operation: "DAG of 20 tools", statistic: "p50", budgetMs: 2 },
  { tools: 10_000, operation: "record one execution (server)", statistic: "p50", budgetMs: 5 },
  { tools: 10_000, operation: "analytics refresh", statistic: "p50", budgetMs: 2_000 },
];

const PROJECT = "latency";
const MiB = 2 ** 20;

/** RSS peak tracker: a 20 ms sampler plus explicit samples after each phase. */
class RssPeak {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;
  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 20);
    this.timer.unref();
  }
  sample(): void {
    const r = process.memoryUsage().rss;
    if (r > this.peak) this.peak = r;
  }
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }
}

/**
 * Calls `fn` on `warmup` inputs untimed, then on up to `reps` inputs timed (the value `fn` returns, else the
 * wall time). Bounded: warm-up stops after capMs/4 and timing after capMs once 10 calls are timed, so the
 * reported n can be below reps at large sizes.
 */
async function timeAsync<T>(
  inputs: readonly T[],
  warmup: number,
  reps: number,
  capMs: number,
  fn: (x: T) => Promise<number | undefined>,
): Promise<number[]> {
  settleHeap();
  const start = performance.now();
  for (let k = 0; k < warmup && performance.now() - start < capMs / 4; k++) await fn(inputs[k % inputs.length]!);
  const t1 = performance.now();
  const out: number[] = [];
  for (let k = 0; k < reps; k++) {
    if (out.length >= 10 && performance.now() - t1 > capMs) break;
    const x = inputs[(warmup + k) % inputs.length]!;
    const t0 = performance.now();
    const reported = await fn(x);
    out.push(reported ?? performance.now() - t0);
  }
  return out;
}

/**
 * Operation isolation: with `--expose-gc`, a full collection before each operation, so that an operation's
 * tail is its own and not the major GC owed by the setup or the previous operation (the analytics refresh
 * and the weight fits allocate hundreds of MiB). The sustained search row measures what a long run of
 * searches costs in garbage collection, with no such help.
 */
function settleHeap(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export const GC_EXPOSED = typeof (globalThis as { gc?: unknown }).gc === "function";

function op(name: string, what: string, values: number[]): OperationResult {
  const p = percentiles(values);
  return { name, what, ...p };
}

/** Each row's peer from the same run (see the header); the analytics refresh is compared with its budget. */
export const PEERS: Record<string, string> = {
  search: "search scoring",
  "search, repeated queries": "search",
  "search with context": "search",
  "search, sustained": "search",
  "search under a CPU-bound process": "search, quiet peer",
  "intent memory recall": "search",
  "next step": "next step scoring",
  "DAG of 20 tools (service)": "DAG of 20 tools",
  "record one execution (server)": "record one execution (embedded)",
};

/** Adds peer and ratioToPeer to the rows with a peer in the same size (the analytics refresh: its 2 s budget). */
export function withPeers(operations: OperationResult[]): OperationResult[] {
  return operations.map((x) => {
    if (x.name === "analytics refresh")
      return { ...x, peer: "budget 2,000 ms", ratioToPeer: { p50: x.p50 / 2000, p99: x.p99 / 2000 } };
    const peer = operations.find((y) => y.name === PEERS[x.name]);
    return peer ? { ...x, peer: peer.name, ratioToPeer: { p50: x.p50 / peer.p50, p99: x.p99 / peer.p99 } } : x;
  });
}

/**
 * Times `fn` over `inputs` in blocks of `block`, with a second process spinning one core during every other block
 * (SIGSTOP / SIGCONT): [quiet, loaded] times. The spinner is killed before returning.
 */
async function underCpuLoad<T>(
  inputs: readonly T[],
  block: number,
  fn: (x: T) => Promise<number>,
): Promise<{ quiet: number[]; loaded: number[] }> {
  const spinner = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  const quiet: number[] = [];
  const loaded: number[] = [];
  try {
    spinner.kill("SIGSTOP");
    for (let start = 0, b = 0; start < inputs.length; start += block, b++) {
      const load = b % 2 === 1;
      spinner.kill(load ? "SIGCONT" : "SIGSTOP");
      if (load) await new Promise((r) => setTimeout(r, 20)); // let it get scheduled
      for (const x of inputs.slice(start, start + block)) (load ? loaded : quiet).push(await fn(x));
    }
  } finally {
    spinner.kill("SIGKILL");
  }
  return { quiet, loaded };
}

/** Unique successful tools of a trace's first k steps (the context a caller would pass). */
function prefixContext(t: TraceRecord, k: number): string[] {
  const out: string[] = [];
  for (const s of t.steps.slice(0, k)) if (s.success && !out.includes(s.tool)) out.push(s.tool);
  return out;
}

export function contexts(traces: readonly TraceRecord[], count: number, rng: () => number): string[][] {
  const out: string[][] = [];
  const multi = traces.filter((t) => t.steps.length >= 2);
  for (let guard = 0; out.length < count && multi.length > 0 && guard < count * 20; guard++) {
    const t = multi[Math.floor(rng() * multi.length)]!;
    const k = 1 + Math.floor(rng() * (t.steps.length - 1));
    const c = prefixContext(t, k);
    if (c.length > 0) out.push(c);
  }
  return out;
}

/** Sets of `size` related tool indices: each sampled from one Louvain community with ≥ size members. */
export function relatedToolSets(community: Int32Array, size: number, count: number, rng: () => number): number[][] {
  const members = new Map<number, number[]>();
  community.forEach((c, i) => {
    const m = members.get(c);
    if (m) m.push(i);
    else members.set(c, [i]);
  });
  const bySize = [...members.values()].sort((a, b) => b.length - a.length || a[0]! - b[0]!);
  const eligible = bySize.filter((m) => m.length >= size);
  const out: number[][] = [];
  for (let k = 0; k < count; k++) {
    if (eligible.length > 0) {
      out.push(shuffled(eligible[k % eligible.length]!, rng).slice(0, size));
    } else {
      // No community that large: the largest communities, in order, until `size` tools.
      out.push(bySize.flat().slice(0, size));
    }
  }
  return out;
}

export async function importProject(
  tg: Toolgraph,
  p: SyntheticProject,
  embed: boolean,
  setupMs: Record<string, number>,
  prefix = "",
): Promise<void> {
  let t = performance.now();
  const lap = (label: string) => {
    const x = performance.now();
    setupMs[`${prefix}${label}`] = x - t;
    t = x;
  };
  await tg.importCatalog(p.catalog, { embed });
  lap("importCatalog");
  for (let i = 0; i < p.traces.length; i += LATENCY_DEFAULTS.tracesFileSize) {
    await tg.importTraces(p.traces.slice(i, i + LATENCY_DEFAULTS.tracesFileSize));
  }
  lap("importTraces");
  await tg.importEdges(p.edges.map((e) => JSON.stringify(e)).join("\n"));
  lap("importEdges");
}

function freshExecutions(traces: readonly TraceRecord[], count: number, tag: string, rng: () => number): TraceRecord[] {
  return Array.from({ length: count }, (_, k) => {
    const t = traces[Math.floor(rng() * traces.length)]!;
    return { ...t, id: `bench-record:${tag}:${k}`, steps: t.steps.map((s) => ({ ...s })) };
  });
}

async function serverToolgraph(url: string, embeddings: string): Promise<{ tg: Toolgraph; drop: () => Promise<void> }> {
  const schema = `tg_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 120_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  const drop = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  };
  try {
    const tg = await openToolgraph({ database: u.toString(), poolSize: 4, project: PROJECT, embeddings });
    return { tg, drop };
  } catch (err) {
    await drop();
    throw err;
  }
}

type Resolved = Required<Omit<LatencyOptions, "log" | "serverUrl" | "opSeconds">> & {
  serverUrl: string;
  capMs: number;
  log: (s: string) => void;
};

async function measureSize(tools: number, o: Resolved): Promise<SizeResult> {
  const rng = mulberry32(o.seed * 1_000_003 + tools);
  const rss = new RssPeak();
  rss.start();
  const setupMs: Record<string, number> = {};
  let t0 = performance.now();
  const project = generateSyntheticProject({ tools, traces: o.tracesFor(tools), seed: o.seed });
  setupMs.generate = performance.now() - t0;
  o.log(`[${tools}] generated ${project.meta.traces} traces, ${project.meta.steps} steps`);
  t0 = performance.now();
  const tg = await openToolgraph({ home: "memory://", project: PROJECT, embeddings: o.embeddings });
  setupMs.open = performance.now() - t0;
  const operations: OperationResult[] = [];
  let server: SizeResult["server"];
  try {
    await importProject(tg, project, true, setupMs);
    rss.sample();
    const engine = engineOf(tg);
    t0 = performance.now();
    const s = await engine.snapshot(PROJECT);
    setupMs.snapshot = performance.now() - t0;
    t0 = performance.now();
    await engine.searchIndex(PROJECT);
    setupMs.searchIndex = performance.now() - t0;
    // Steady state: the one-off fits a fresh project starts in the background (search weights, next-step
    // weights) are run to completion here, so they do not land inside the timed calls.
    t0 = performance.now();
    await tg.fitSearchWeights();
    await tg.fitNextStepWeights();
    setupMs.weightFits = performance.now() - t0;
    o.log(
      `[${tools}] imported (${Object.entries(setupMs)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
        .join(", ")})`,
    );

    // --- analytics refresh (each part) --------------------------------------------------------------
    const parts: Record<string, number[]> = {
      pagerank: [],
      louvain: [],
      spectral: [],
      hypergraphPagerank: [],
      total: [],
    };
    // One untimed refresh first (JIT warm-up), skipped at a single repetition (50k: it takes tens of seconds).
    if (o.analyticsReps > 1) engine.analyticsCache.refresh(s);
    for (let k = 0; k < o.analyticsReps; k++) {
      const fresh = engine.analyticsCache.refresh(s);
      for (const [key, v] of Object.entries(fresh.timingsMs)) parts[key]!.push(v);
      progress(`[${tools}] analytics`, k + 1, o.analyticsReps);
    }
    rss.sample();
    const a = await engine.analytics(PROJECT);
    operations.push(
      op(
        "analytics refresh",
        "engine.analyticsCache.refresh(snapshot).timingsMs.total (PageRank + Louvain + spectral + hypergraph PageRank)",
        parts.total!,
      ),
    );

    // --- inputs ---------------------------------------------------------------------------------------
    // Distinct intents: a repeated one would be answered by the result cache (timed in its own row).
    const distinctIntents = shuffled(
      [
        ...new Set(
          project.traces.map((t) => t.intent).filter((x): x is string => typeof x === "string" && x.length > 0),
        ),
      ],
      rng,
    );
    const intents = distinctIntents.slice(0, o.warmup + o.reps);
    const ctxs = contexts(project.traces, o.warmup + o.reps, rng);
    const searchCtx = ctxs.map((c, k) => ({
      intent: intents[k % intents.length]!,
      context: c.slice(-LATENCY_DEFAULTS.contextTools),
    }));
    const dagSets = relatedToolSets(
      a.analytics.community,
      Math.min(LATENCY_DEFAULTS.dagTools, s.n),
      o.warmup + o.reps,
      rng,
    );
    t0 = performance.now();
    await tg.search({ intent: intents[0]! });
    setupMs.firstSearch = performance.now() - t0;

    // --- search ---------------------------------------------------------------------------------------
    const scoringAll: number[] = [];
    const searchTotals = await timeAsync(intents, o.warmup, o.reps, o.capMs, async (intent) => {
      const r = await tg.search({ intent });
      scoringAll.push(r.timings.searchMs);
      return r.timings.totalMs - r.timings.embedMs;
    });
    const scoring = scoringAll.slice(scoringAll.length - searchTotals.length);
    operations.push(
      op(
        "search",
        "tg.search({intent}) timings.totalMs − embedMs: the whole search job except the query embedding",
        searchTotals,
      ),
    );
    operations.push(
      op(
        "search scoring",
        "tg.search timings.searchMs: searchCandidates alone (BM25 + vector + fusion + graph + α)",
        scoring,
      ),
    );
    const repeat = await timeAsync(intents, o.warmup, o.reps, o.capMs, async (intent) => {
      // Wall clock: a result-cache hit returns the first answer (and its recorded timings) at once.
      const t = performance.now();
      await tg.search({ intent });
      return performance.now() - t;
    });
    operations.push(
      op(
        "search, repeated queries",
        "tg.search({intent}) again, wall clock: the result cache of repeated identical requests",
        repeat,
      ),
    );
    const withCtx = await timeAsync(searchCtx, o.warmup, o.reps, o.capMs, async (q) => {
      const r = await tg.search(q);
      return r.timings.totalMs - r.timings.embedMs;
    });
    operations.push(
      op(
        "search with context",
        `as search, with ${LATENCY_DEFAULTS.contextTools} context tools from a trace prefix (Adamic-Adar graph term)`,
        withCtx,
      ),
    );
    // Sustained: the intents not used above, one search after another with no collection in between
    // (minor and major GC pauses included), up to sustainedSearches calls.
    const sustainedInputs = distinctIntents.slice(
      o.warmup + o.reps,
      o.warmup + o.reps + LATENCY_DEFAULTS.sustainedSearches,
    );
    if (sustainedInputs.length >= 10) {
      const sustained: number[] = [];
      const tS = performance.now();
      for (const intent of sustainedInputs) {
        if (performance.now() - tS > o.capMs) break;
        const r = await tg.search({ intent });
        sustained.push(r.timings.totalMs - r.timings.embedMs);
      }
      operations.push(
        op(
          "search, sustained",
          `tg.search({intent}) over ${sustained.length} further distinct intents in a row, no collection before: as search, GC pauses included`,
          sustained,
        ),
      );
    }
    // Under a concurrent CPU-bound process: fresh distinct intents (a repeated one would be a result-cache hit),
    // taken after the sustained ones; when too few remain, earlier ones with a block tag (a new token).
    const loadFrom = o.warmup + o.reps + sustainedInputs.length;
    const loadIntents = distinctIntents.slice(loadFrom, loadFrom + 2 * o.reps);
    for (let k = 0; loadIntents.length < Math.min(2 * o.reps, 2 * distinctIntents.length); k++)
      loadIntents.push(
        `${distinctIntents[k % distinctIntents.length]!} batch${Math.floor(k / distinctIntents.length)}`,
      );
    const loadRun = await underCpuLoad(loadIntents, Math.min(LATENCY_DEFAULTS.loadBlock, o.reps), async (intent) => {
      const r = await tg.search({ intent });
      return r.timings.totalMs - r.timings.embedMs;
    });
    operations.push(
      op(
        "search, quiet peer",
        `as search, fresh intents, the blocks of ${LATENCY_DEFAULTS.loadBlock} without the spinning process (peer of the next row)`,
        loadRun.quiet,
      ),
    );
    operations.push(
      op(
        "search under a CPU-bound process",
        `as search, fresh intents, the blocks of ${LATENCY_DEFAULTS.loadBlock} while a second process spins one core`,
        loadRun.loaded,
      ),
    );
    const vectors = await engine.queryEmbedder.embed(intents);
    const recallInputs = intents.map((intent, k) => ({ intent, qv: vectors[k]! }));
    // The search's similar-past-requests step on the project's intent memory (tg.searchModel().recall).
    const sm = await tg.searchModel({ project: PROJECT });
    const recall = await timeAsync(recallInputs, o.warmup, o.reps, o.capMs, async (q) => {
      const t = performance.now();
      await sm.recall(q.intent, q.qv);
      return performance.now() - t;
    });
    operations.push(
      op(
        "intent memory recall",
        "recallMemory(intent, pre-embedded query) alone: the search job's similar-past-requests step",
        recall,
      ),
    );
    rss.sample();
    o.log(`[${tools}] search done`);

    // --- next step ------------------------------------------------------------------------------------
    const next = await timeAsync(
      ctxs,
      o.warmup,
      o.reps,
      o.capMs,
      async (context) => (await tg.suggestNext({ context })).timings.totalMs,
    );
    operations.push(
      op("next step", "tg.suggestNext({context}) timings.totalMs (seed weights, gate included, no intent)", next),
    );
    // The next-step core with its items (the mode's weights are not used: the seed weights are given).
    const nm = await tg.nextStepModel({ project: PROJECT, mode: "seed" });
    const nextCore = await timeAsync(ctxs, o.warmup, o.reps, o.capMs, async (context) => {
      const t = performance.now();
      nm.suggest(context, engine.now(), { limit: 15, weights: NEXT_DEFAULTS.weights });
      return performance.now() - t;
    });
    operations.push(
      op("next step scoring", "rawSuggestions(snapshot, analytics, {context, limit 15}) alone", nextCore),
    );

    // --- capability discovery ---------------------------------------------------------------------------
    const disc = await timeAsync(
      ctxs,
      o.warmup,
      o.reps,
      o.capMs,
      async (context) => (await tg.discoverCapabilities({ context })).timings.totalMs,
    );
    operations.push(op("capability discovery", "tg.discoverCapabilities({context}) timings.totalMs", disc));

    // --- DAG of 20 related tools ----------------------------------------------------------------------
    const dm = await tg.dagModel({ project: PROJECT });
    const dag = await timeAsync(dagSets, o.warmup, o.reps, o.capMs, async (set) => {
      const t = performance.now();
      dm.dag(set);
      return performance.now() - t;
    });
    operations.push(op("DAG of 20 tools", "dagOver(snapshot, 20 tool indices from one Louvain community)", dag));
    const dagService = await timeAsync(
      dagSets,
      o.warmup,
      o.reps,
      o.capMs,
      async (set) => (await tg.buildDag({ tools: set.map((i) => s.tools[i]!.id) })).timings.totalMs,
    );
    operations.push(
      op("DAG of 20 tools (service)", "tg.buildDag({tools}) timings.totalMs (DAG + explanations + gate)", dagService),
    );

    // --- gating alone -------------------------------------------------------------------------------------
    const scores = [0.95, 0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2];
    const gating = await timeAsync(intents, o.warmup, o.reps, o.capMs, async (intent) => {
      const t = performance.now();
      const prepared = await engine.gatekeeper.prepare({ project: PROJECT, text: intent });
      for (const score of scores) engine.gatekeeper.gate("search", score, prepared);
      return performance.now() - t;
    });
    operations.push(op("gating", 'gatekeeper.prepare({text: intent}) + gate("search", score) × 10', gating));
    rss.sample();

    const stats = engine.queryEmbedder.stats();
    const queryCache = {
      ...stats,
      hitRate: stats.hits + stats.misses > 0 ? stats.hits / (stats.hits + stats.misses) : 0,
    };
    const resultCache = tg.results.stats();

    // --- record one execution (embedded, then server) -----------------------------------------------------
    const recs = freshExecutions(project.traces, o.warmup + o.reps, `embedded:${tools}`, rng);
    const record = await timeAsync(recs, o.warmup, o.reps, o.capMs, async (e) => {
      await tg.recordExecution(e);
      return undefined;
    });
    operations.push(
      op("record one execution (embedded)", "await tg.recordExecution(exec) on PGlite memory://", record),
    );
    o.log(`[${tools}] embedded done`);

    if (o.serverSizes.includes(tools)) {
      server = { url: o.serverUrl.replace(/\/\/[^@]*@/, "//***@") };
      let handle: Awaited<ReturnType<typeof serverToolgraph>> | undefined;
      try {
        handle = await serverToolgraph(o.serverUrl, o.embeddings);
        await importProject(handle.tg, project, false, setupMs, "server.");
        await engineOf(handle.tg).snapshot(PROJECT);
        const srecs = freshExecutions(project.traces, o.warmup + o.reps, `server:${tools}`, rng);
        const times = await timeAsync(srecs, o.warmup, o.reps, o.capMs, async (e) => {
          await handle!.tg.recordExecution(e);
          return undefined;
        });
        operations.push(
          op("record one execution (server)", "await tg.recordExecution(exec) on PostgreSQL 15 (fresh schema)", times),
        );
        o.log(`[${tools}] server done`);
      } catch (err) {
        server.error = (err as Error).message;
        o.log(`[${tools}] server rows not run: ${server.error}`);
      } finally {
        await handle?.tg.close().catch(() => undefined);
        await handle?.drop().catch(() => undefined);
      }
    }
    rss.stop();
    const summarize = (v: number[]) => ({ p50: percentiles(v).p50, max: Math.max(...v) });
    return {
      tools,
      traces: project.meta.traces,
      steps: project.meta.steps,
      capabilities: project.meta.capabilities,
      setupMs,
      operations: withPeers(operations),
      analytics: {
        parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, summarize(v)])),
        reps: o.analyticsReps,
        communities: a.analytics.communityCount,
        spectralK: a.analytics.spectralK,
        modularity: a.analytics.modularity,
      },
      queryCache,
      resultCache,
      memory: { peakRssMiB: rss.peak / MiB, maxRssMiB: process.resourceUsage().maxRSS / 1024 },
      ...(server ? { server } : {}),
    };
  } finally {
    rss.stop();
    await tg.close();
  }
}

async function measureUseLite(
  queries: string[],
  log: (s: string) => void,
): Promise<NonNullable<LatencyResult["useLite"]>> {
  const provider = createEmbeddingProvider("use-lite");
  try {
    const t0 = performance.now();
    await provider.embed(["warm up the model"]);
    const loadMs = performance.now() - t0;
    for (const q of queries.slice(0, 5)) await provider.embed([q]);
    const times: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await provider.embed([q]);
      times.push(performance.now() - t);
    }
    log(`USE-lite: ${times.length} query embeddings`);
    return { loadMs, ...percentiles(times) };
  } catch (err) {
    return {
      loadMs: 0,
      p50: Number.NaN,
      p95: Number.NaN,
      p99: Number.NaN,
      mean: Number.NaN,
      n: 0,
      error: (err as Error).message,
    };
  } finally {
    await provider.close?.().catch(() => undefined);
  }
}

export function budgetRows(sizes: SizeResult[]): BudgetRow[] {
  return BUDGETS.map((b) => {
    const size = sizes.find((s) => s.tools === b.tools);
    const o = size?.operations.find((x) => x.name === b.operation);
    const measuredMs = o ? o[b.statistic] : null;
    return { ...b, measuredMs, verdict: measuredMs === null ? "not run" : measuredMs <= b.budgetMs ? "PASS" : "FAIL" };
  });
}

/** Runs the bench; returns the results (no files written, no stdout). */
export async function runLatency(options: LatencyOptions = {}): Promise<LatencyResult> {
  const reps = options.reps ?? LATENCY_DEFAULTS.reps;
  const sizes = options.sizes ?? [...LATENCY_DEFAULTS.sizes];
  const o = {
    sizes,
    reps,
    warmup: options.warmup ?? Math.min(LATENCY_DEFAULTS.warmup, reps),
    seed: options.seed ?? LATENCY_DEFAULTS.seed,
    embeddings: options.embeddings ?? LATENCY_DEFAULTS.embeddings,
    tracesFor: options.tracesFor ?? defaultTracesFor,
    serverSizes: options.serverSizes ?? [...LATENCY_DEFAULTS.serverSizes],
    serverUrl: options.serverUrl ?? SERVER_URL,
    useLiteQueries: options.useLiteQueries ?? LATENCY_DEFAULTS.useLiteQueries,
    analyticsReps: options.analyticsReps ?? LATENCY_DEFAULTS.analyticsReps,
    capMs: 1000 * (options.opSeconds ?? LATENCY_DEFAULTS.opSeconds),
    log: options.log ?? ((s: string) => process.stderr.write(`${s}\n`)),
  };
  const startedAt = new Date().toISOString();
  const loadStart = loadavg();
  const uptimeStart = execSync("uptime").toString().trim();
  const results: SizeResult[] = [];
  let useLite: LatencyResult["useLite"];
  if (o.useLiteQueries > 0) {
    const p = generateSyntheticProject({ tools: 200, traces: o.useLiteQueries, seed: o.seed });
    useLite = await measureUseLite(
      p.traces.map((t) => t.intent ?? ""),
      o.log,
    );
  }
  for (const tools of sizes) {
    const analyticsReps = options.analyticsReps ?? (tools >= 50_000 ? 1 : LATENCY_DEFAULTS.analyticsReps);
    results.push(await measureSize(tools, { ...o, analyticsReps }));
  }
  return {
    machine: machine(),
    startedAt,
    loadAverage: { start: loadStart, end: loadavg() },
    uptime: [uptimeStart, execSync("uptime").toString().trim()],
    options: {
      sizes,
      reps: o.reps,
      warmup: o.warmup,
      seed: o.seed,
      embeddings: o.embeddings,
      serverSizes: o.serverSizes,
      traces: sizes.map(o.tracesFor),
      gcBetweenOperations: GC_EXPOSED,
    },
    ...(useLite ? { useLite } : {}),
    sizes: results,
    budgets: budgetRows(results),
  };
}

/** The markdown report: one table per size, the analytics parts, the budgets. */
export function formatLatency(r: LatencyResult): string {
  const la = (x: number[]) => x.map((v) => v.toFixed(2)).join(" / ");
  const out: string[] = [
    `Machine: ${r.machine}; load average ${la(r.loadAverage.start)} at start, ${la(r.loadAverage.end)} at end`,
    `Embeddings: ${r.options.embeddings}; ${r.options.reps} timed calls per operation after ${r.options.warmup} warm-up calls; seed ${r.options.seed}; ${r.options.gcBetweenOperations ? "a full GC before each operation (--expose-gc)" : "no GC between operations (run node with --expose-gc to isolate them)"}.`,
    "",
  ];
  if (r.useLite) {
    out.push(
      r.useLite.error
        ? `USE-lite query embedding: not run (${r.useLite.error})`
        : `USE-lite query embedding (one short query, ${r.useLite.n} queries): p50 ${r.useLite.p50.toFixed(2)} ms, p95 ${r.useLite.p95.toFixed(2)} ms, p99 ${r.useLite.p99.toFixed(2)} ms (model load + first call ${r.useLite.loadMs.toFixed(0)} ms)`,
      "",
    );
  }
  for (const s of r.sizes) {
    out.push(
      `### ${s.tools.toLocaleString("en")} tools, ${s.capabilities.toLocaleString("en")} capabilities, ${s.traces.toLocaleString("en")} traces, ${s.steps.toLocaleString("en")} steps`,
      "",
    );
    out.push(
      markdownTable(
        ["operation", "p50 ms", "p95 ms", "p99 ms", "mean ms", "n", "peer (same run)", "p50 ×", "p99 ×"],
        s.operations.map((x) => [
          x.name,
          x.p50,
          x.p95,
          x.p99,
          x.mean,
          String(x.n),
          x.peer ?? "–",
          x.ratioToPeer ? `${x.ratioToPeer.p50.toFixed(2)}×` : "–",
          x.ratioToPeer ? `${x.ratioToPeer.p99.toFixed(2)}×` : "–",
        ]),
      ),
    );
    out.push("");
    out.push(
      markdownTable(
        ["analytics part", "p50 ms", "max ms"],
        Object.entries(s.analytics.parts).map(([k, v]) => [k, v.p50, v.max]),
      ),
    );
    out.push(
      "",
      `Communities ${s.analytics.communities} (modularity ${s.analytics.modularity.toFixed(3)}), spectral k ${s.analytics.spectralK}; query-embedding cache: ${s.queryCache.hits} hits / ${s.queryCache.misses} misses (hit rate ${(100 * s.queryCache.hitRate).toFixed(1)} %); result cache: ${s.resultCache ? `${s.resultCache.hits} hits / ${s.resultCache.misses} misses (hit rate ${(100 * s.resultCache.hitRate).toFixed(1)} %)` : "n/a"}; peak RSS ${s.memory.peakRssMiB.toFixed(0)} MiB sampled, maxRSS ${s.memory.maxRssMiB.toFixed(0)} MiB (process so far).`,
      `Setup: ${Object.entries(s.setupMs)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)} s`)
        .join(", ")}.`,
      ...(s.server?.error ? [`Server rows not run: ${s.server.error}`] : []),
      "",
    );
  }
  out.push("### Budgets", "");
  out.push(
    markdownTable(
      ["tools", "operation", "statistic", "budget ms", "measured ms", "verdict"],
      r.budgets.map((b) => [String(b.tools), b.operation, b.statistic, `≤ ${b.budgetMs}`, b.measuredMs, b.verdict]),
    ),
  );
  return out.join("\n");
}

/** SVG: p50 and p99 of every request-path operation at the largest catalog size (bench/charts.ts). */
export function latencySvg(r: LatencyResult): string {
  return latencyCharts(r).at(-1)?.svg ?? "";
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function intList(name: string, fallback: readonly number[]): number[] {
  const v = arg(name);
  if (v === undefined) return [...fallback];
  if (v.trim() === "") return [];
  const xs = v.split(",").map((x) => Number(x.trim().replace(/_/g, "")));
  for (const x of xs)
    if (!Number.isInteger(x) || x < 0)
      throw new Error(`bench/latency: --${name} must be comma-separated integers, got ${JSON.stringify(v)}`);
  return xs;
}

function intArg(name: string, fallback: number, min: number): number {
  const v = arg(name);
  if (v === undefined) return fallback;
  const x = Number(v);
  if (!Number.isInteger(x) || x < min)
    throw new Error(`bench/latency: --${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return x;
}

async function main(): Promise<void> {
  const analyticsReps = arg("analytics-reps");
  const r = await runLatency({
    sizes: intList("tools", LATENCY_DEFAULTS.sizes),
    reps: intArg("reps", LATENCY_DEFAULTS.reps, 1),
    seed: intArg("seed", LATENCY_DEFAULTS.seed, 0),
    embeddings: arg("embeddings") ?? LATENCY_DEFAULTS.embeddings,
    serverSizes: intList("server-sizes", LATENCY_DEFAULTS.serverSizes),
    useLiteQueries: intArg("use-lite-queries", LATENCY_DEFAULTS.useLiteQueries, 0),
    opSeconds: intArg("op-seconds", LATENCY_DEFAULTS.opSeconds, 1),
    ...(analyticsReps !== undefined
      ? { analyticsReps: intArg("analytics-reps", LATENCY_DEFAULTS.analyticsReps, 1) }
      : {}),
  });
  process.stdout.write(`${formatLatency(r)}\n\n`);
  process.stdout.write(`wrote ${writeResult("latency", r)}\n`);
  for (const path of writeCharts(latencyCharts(r))) process.stdout.write(`wrote ${path}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
