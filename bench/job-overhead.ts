/**
 * Job overhead bench: each job called through the facade against its scoring core alone,
 * on the same read model and the same requests, alternating job and core call by call (odd calls run the
 * core first), so both sides see the same machine state. Reports p50 / p95 / p99 of each, the ratio
 * job / core and the overhead job − core at p50, and a verdict against the budget
 * (docs/decisions/job-overhead-budget.md): a job whose core takes under 0.1 ms p50 may add at most 25 µs p50
 * (an absolute budget: a ratio of a tiny core measures cache effects, not wrapper work); any other job at most
 * 1.5 × its core at p50.
 *
 *   node --expose-gc --import tsx bench/job-overhead.ts [--tools 1000,10000] [--reps 300] [--warmup 50] [--seed 1] [--embeddings hash:512] [--out job-overhead]
 *
 * Setup per size: the synthetic project of bench/latency.ts (catalog, 2 × tools traces, declared edges) in the
 * embedded database (memory://), the search and next-step weights fitted once (steady state), the analytics
 * computed. The facade's result cache is off (`resultCacheSize: 0`: every call computes); the recommendation
 * log is on, as in production. Query embeddings are computed once before timing (the embedding cache then
 * answers them: the model's cost is not the wrapper's).
 *
 * job (wall clock of the awaited facade call) | core (the scoring functions the job composes, inputs that do
 * not depend on the request prepared before timing):
 * - search: `tg.search({intent})` | `searchCandidates` with the job's weights, memory votes and `top: 10`;
 *   a second row adds the intent-memory recall (`recallMemory`, a kNN scoring of its own) to the core.
 * - next step: `tg.suggestNext({context})` | `suggestNextSteps(model, {context, now}, {weights, limit 15})`.
 *   Two more rows split its overhead (the jobs whose core is under 0.5 ms, where the fixed cost weighs most):
 *   the job function alone (`runSuggest(await engine.view(project), request)`: no validation, no log) and the facade
 *   with the recommendation log off, each against the same core.
 * - capability match: `tg.matchCapabilities({intent})` | capability cosine + BM25 fusion, the tool search
 *   (`searchCandidates`), the pattern triggers and `rankCapabilityMatches`.
 * - capability discovery: `tg.discoverCapabilities({context})` | `discoverCapabilities`.
 * - DAG of 20 tools: `tg.buildDag({tools})` | `dagOver(snapshot, indices)`; split the same way as next step.
 * - plan: `tg.plan({intent})` | `searchCandidates` (top 10) + `dagOver` over the tools the plan keeps; a second row
 *   adds the intent-memory recall to the core, as for search.
 * Intents are the traces' intents (distinct), contexts trace prefixes, DAG sets 20 tools of one community.
 * The machine may be shared: compare the ratios of one run, not absolute times (uptime is recorded).
 */
import { execSync } from "node:child_process";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { rowDot } from "../algorithms/linalg/dot.ts";
import { noisyOr } from "../algorithms/memory/noisy-or.ts";
import { discoverCapabilities } from "../algorithms/prediction/capability-discovery.ts";
import { suggestNextSteps } from "../algorithms/prediction/next-step.ts";
import { mulberry32, shuffled } from "../algorithms/random/rng.ts";
import { bm25IdealScore, searchBm25 } from "../algorithms/search/bm25.ts";
import { rankCapabilityMatches } from "../algorithms/search/capability-ranking.ts";
import { rankCandidates } from "../algorithms/search/rank-candidates.ts";
import { fuseScores } from "../algorithms/search/fusion.ts";
import { tokenize } from "../algorithms/search/tokenize.ts";
import { dagOver, runBuildDag } from "../src/jobs/dag.ts";
import { runSuggest } from "../src/jobs/next.ts";
import { engineOf, openToolgraph, Toolgraph } from "../src/library/toolgraph.ts";
import { scorePatterns } from "../src/view/patterns.ts";
import { contexts, importProject, relatedToolSets } from "./latency.ts";
import { codeVersion, machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";
import { generateSyntheticProject } from "./synthetic/generate.ts";

const PROJECT = "overhead";

export interface JobOverheadOptions {
  sizes?: number[];
  reps?: number;
  warmup?: number;
  seed?: number;
  embeddings?: string;
  log?: (line: string) => void;
}

export const JOB_OVERHEAD_DEFAULTS = {
  sizes: [1_000, 10_000],
  reps: 300,
  warmup: 50,
  seed: 1,
  embeddings: "hash:512",
  target: 1.5,
} as const;

/** The budget (docs/decisions/job-overhead-budget.md): absolute below a 0.1 ms core, a ratio above it. */
export const JOB_OVERHEAD_BUDGET = { smallCoreMs: 0.1, smallCoreOverheadUs: 25, ratio: 1.5 } as const;

/** The budget a row is held to, and whether its p50 meets it. */
export function overheadVerdict(row: Pick<JobRow, "job_ms" | "core_ms">): {
  budget: string;
  overheadUs: number;
  pass: boolean;
} {
  const overheadUs = (row.job_ms.p50 - row.core_ms.p50) * 1000;
  if (row.core_ms.p50 < JOB_OVERHEAD_BUDGET.smallCoreMs) {
    return {
      budget: `≤ ${JOB_OVERHEAD_BUDGET.smallCoreOverheadUs} µs added`,
      overheadUs,
      pass: overheadUs <= JOB_OVERHEAD_BUDGET.smallCoreOverheadUs,
    };
  }
  return {
    budget: `≤ ${JOB_OVERHEAD_BUDGET.ratio}× core`,
    overheadUs,
    pass: row.job_ms.p50 / row.core_ms.p50 <= JOB_OVERHEAD_BUDGET.ratio,
  };
}

type Stats = ReturnType<typeof percentiles>;

export interface JobRow {
  tools: number;
  job: string;
  /** What the job call and the core call are. */
  what: { job: string; core: string };
  job_ms: Stats;
  core_ms: Stats;
  /** job / core at each percentile. */
  ratio: { p50: number; p95: number; p99: number };
  /** job − core at p50 (µs), the budget the row is held to and whether it meets it. */
  verdict?: { budget: string; overheadUs: number; pass: boolean };
}

export interface JobOverheadResult {
  machine: string;
  /** The command line that produced the result, and the commit it ran on (with "+dirty" when the tree had changes). */
  command: string;
  code: string;
  startedAt: string;
  uptime: string[];
  loadAverage: { start: number[]; end: number[] };
  options: Required<Omit<JobOverheadOptions, "log">>;
  rows: JobRow[];
}

const settle = () => (globalThis as { gc?: () => void }).gc?.();

/** Alternates job and core over the inputs (odd calls: core first); warm-up calls untimed. */
async function alternate<T>(
  inputs: readonly T[],
  warmup: number,
  reps: number,
  job: (x: T) => Promise<unknown>,
  core: (x: T) => Promise<unknown> | unknown,
): Promise<{ job: number[]; core: number[] }> {
  settle();
  const out = { job: [] as number[], core: [] as number[] };
  const timeJob = async (x: T) => {
    const t = performance.now();
    await job(x);
    return performance.now() - t;
  };
  const timeCore = async (x: T) => {
    const t = performance.now();
    await core(x);
    return performance.now() - t;
  };
  for (let k = 0; k < warmup + reps; k++) {
    const x = inputs[k % inputs.length]!;
    let j: number;
    let c: number;
    if (k % 2 === 0) {
      j = await timeJob(x);
      c = await timeCore(x);
    } else {
      c = await timeCore(x);
      j = await timeJob(x);
    }
    if (k >= warmup) {
      out.job.push(j);
      out.core.push(c);
    }
  }
  return out;
}

async function measureSize(
  tools: number,
  o: Required<Omit<JobOverheadOptions, "log">> & { log: (s: string) => void },
): Promise<JobRow[]> {
  const rng = mulberry32(o.seed * 1_000_003 + tools);
  const project = generateSyntheticProject({ tools, traces: 2 * tools, seed: o.seed });
  const tg = await openToolgraph({ home: "memory://", project: PROJECT, embeddings: o.embeddings, resultCacheSize: 0 });
  const rows: JobRow[] = [];
  try {
    await importProject(tg, project, true, {});
    const engine = engineOf(tg);
    // The same facade with the recommendation log off (the rows that split the fixed cost).
    const quiet = new Toolgraph(engine, PROJECT, 0, { enabled: false });
    await tg.fitSearchWeights();
    await tg.fitNextStepWeights();
    const s = await engine.snapshot(PROJECT);
    const a = await engine.analytics(PROJECT);
    const idx = await engine.searchIndex(PROJECT);
    const jobView = await engine.view(PROJECT);
    o.log(`[${tools}] imported`);
    const n = o.warmup + o.reps;
    const intents = shuffled(
      [
        ...new Set(
          project.traces.map((t) => t.intent).filter((x): x is string => typeof x === "string" && x.length > 0),
        ),
      ],
      rng,
    ).slice(0, n);
    const vectors = await engine.queryEmbedder.embed(intents);
    // The search job's weights: a fit is stored above, so no background fit is pending and these are in force.
    const sw = (await tg.stats()).learning.searchWeights.inForce;
    // The search job's read model: the ranking core's data and the memory's recall step as the core takes it.
    const sm = await tg.searchModel();
    // Per intent: what does not depend on the scoring (query vector, tokens, memory recall).
    const queries = await Promise.all(
      intents.map(async (intent, k) => {
        const qv = vectors[k]!;
        const mem = await sm.recall(intent, qv, { tokens: tokenize(intent) });
        return { intent, qv, mem };
      }),
    );
    const add = (job: string, what: JobRow["what"], r: { job: number[]; core: number[] }) => {
      const jm = percentiles(r.job);
      const cm = percentiles(r.core);
      const row: JobRow = {
        tools,
        job,
        what,
        job_ms: jm,
        core_ms: cm,
        ratio: { p50: jm.p50 / cm.p50, p95: jm.p95 / cm.p95, p99: jm.p99 / cm.p99 },
      };
      row.verdict = overheadVerdict(row);
      rows.push(row);
      o.log(
        `[${tools}] ${job}: job p50 ${jm.p50.toFixed(3)} ms, core ${cm.p50.toFixed(3)} ms, ratio ${(jm.p50 / cm.p50).toFixed(2)}`,
      );
    };
    // The ranking core on the search job's read model (the job's searchCandidates hands it the same data).
    const ranking = sm.data;
    const searchCore = (q: (typeof queries)[number], top: number) =>
      rankCandidates(ranking, q.intent, q.qv, {
        top,
        memory: sw.memoryWeight > 0 ? q.mem.toolVotes : undefined,
        beta: sw.beta,
        memoryWeight: sw.memoryWeight,
        graphWeight: sw.graphWeight,
      });

    // --- search ---------------------------------------------------------------------------------------
    add(
      "search",
      {
        job: "await tg.search({intent})",
        core: "searchCandidates(view, intent, {top 10, memory votes, fitted weights})",
      },
      await alternate(
        queries,
        o.warmup,
        o.reps,
        (q) => tg.search({ intent: q.intent }),
        (q) => searchCore(q, 10),
      ),
    );

    // The same job against its scoring including the intent-memory recall (kNN over past intents, whose votes
    // enter the semantic score).
    add(
      "search (core with recall)",
      {
        job: "await tg.search({intent})",
        core: "recallMemory(intent, query vector) + searchCandidates(view, intent, {top 10, its votes, fitted weights})",
      },
      await alternate(
        queries,
        o.warmup,
        o.reps,
        (q) => tg.search({ intent: q.intent }),
        async (q) => {
          const mem = await sm.recall(q.intent, q.qv);
          return searchCore({ ...q, mem }, 10);
        },
      ),
    );

    // --- next step ------------------------------------------------------------------------------------
    const ctxs = contexts(project.traces, n, rng);
    // The job's weights: a fit is stored above, so these are in force (no fit pending).
    const { model, weights: nw } = await tg.nextStepModel();
    const nextCore = (context: string[]) =>
      suggestNextSteps(
        model,
        { context: context.map((t) => s.index.get(t)!), now: engine.now() },
        { weights: nw, limit: 15 },
      );
    const nextCoreWhat = "suggestNextSteps(model, {context, now}, {fitted weights, limit 15})";
    add(
      "next step",
      { job: "await tg.suggestNext({context})", core: nextCoreWhat },
      await alternate(ctxs, o.warmup, o.reps, (context) => tg.suggestNext({ context }), nextCore),
    );
    add(
      "next step (job function)",
      { job: "await runSuggest(await engine.view(project), {context}) (no validation, no log)", core: nextCoreWhat },
      await alternate(ctxs, o.warmup, o.reps, (context) => runSuggest(jobView, { context }), nextCore),
    );
    add(
      "next step (facade, log off)",
      { job: "await tg.suggestNext({context}) with the recommendation log off", core: nextCoreWhat },
      await alternate(ctxs, o.warmup, o.reps, (context) => quiet.suggestNext({ context }), nextCore),
    );

    // --- capability match ---------------------------------------------------------------------------------
    const distinctive = new Map<string, string>();
    {
      const freq = new Map<string, number>();
      const members = s.capabilities.map((c) => s.capabilityMembers(c));
      for (const ms of members) for (const t of new Set(ms)) freq.set(t, (freq.get(t) ?? 0) + 1);
      s.capabilities.forEach((c, i) => {
        let best: string | undefined;
        for (const t of members[i]!) if (best === undefined || freq.get(t)! < freq.get(best)!) best = t;
        if (best !== undefined) distinctive.set(c.id, best);
      });
    }
    const matchCore = async (q: (typeof queries)[number]) => {
      const nc = s.capabilities.length;
      const cos = (c: number) => rowDot(idx.capVectors, idx.dims, c, q.qv);
      const vecHits = Array.from({ length: nc }, (_, c) => ({ id: c, score: cos(c) }));
      const tokens = tokenize(q.intent);
      const bm = searchBm25(idx.capBm25, tokens, Math.max(50, nc));
      const fused = fuseScores(vecHits, bm, { bm25Ideal: bm25IdealScore(idx.capBm25, tokens), cosineOf: cos });
      const toolHits = searchCore(q, Number.POSITIVE_INFINITY);
      const toolScore = new Map(toolHits.map((h) => [s.tools[h.index]!.id, h.final]));
      const { scores: patterns } = await scorePatterns(s, q.intent);
      return rankCapabilityMatches(
        fused.map((f) => {
          const cap = s.capabilities[f.id]!;
          const semantic = noisyOr(
            noisyOr(f.semantic, 0.8, toolScore.get(distinctive.get(cap.id) ?? "") ?? 0),
            0.8,
            q.mem.capabilityVotes.get(cap.id) ?? 0,
          );
          return {
            id: cap.id,
            semantic,
            successRate: cap.executions > 0 ? cap.successes / cap.executions : undefined,
            executions: cap.executions,
            trigger: patterns.get(cap.id),
            tieBreaker: a.analytics.hyperCapabilities[f.id] ?? 0,
          };
        }),
      );
    };
    add(
      "capability match",
      {
        job: "await tg.matchCapabilities({intent})",
        core: "capability cosine + BM25 fusion, searchCandidates (tool evidence), pattern triggers, rankCapabilityMatches",
      },
      await alternate(queries, o.warmup, o.reps, (q) => tg.matchCapabilities({ intent: q.intent }), matchCore),
    );

    // --- capability discovery -------------------------------------------------------------------------------
    const caps = s.capabilities.map((c, i) => ({
      tools: s.capabilityMembers(c).flatMap((t) => {
        const k = s.index.get(t);
        return k === undefined ? [] : [k];
      }),
      cluster: a.analytics.capabilityCluster[i] ?? -1,
    }));
    add(
      "capability discovery",
      {
        job: "await tg.discoverCapabilities({context})",
        core: "discoverCapabilities({capabilities, toolCluster, context}, {limit 5})",
      },
      await alternate(
        ctxs,
        o.warmup,
        o.reps,
        (context) => tg.discoverCapabilities({ context }),
        (context) =>
          discoverCapabilities(
            {
              capabilities: caps,
              toolCluster: a.analytics.toolCluster,
              context: context.map((t) => s.index.get(t)!),
              tieBreaker: a.analytics.hyperCapabilities,
            },
            { limit: 5 },
          ),
      ),
    );

    // --- DAG of 20 tools ----------------------------------------------------------------------------------------
    const dagSets = relatedToolSets(a.analytics.community, Math.min(20, s.n), n, rng);
    const dagWhat = "dagOver(snapshot, 20 tool indices)";
    const dagCore = (set: number[]) => dagOver(s, set);
    const ids = (set: number[]) => set.map((i) => s.tools[i]!.id);
    add(
      "DAG of 20 tools",
      { job: "await tg.buildDag({tools})", core: dagWhat },
      await alternate(dagSets, o.warmup, o.reps, (set) => tg.buildDag({ tools: ids(set) }), dagCore),
    );
    add(
      "DAG of 20 tools (job function)",
      { job: "await runBuildDag(await engine.view(project), {tools}) (no validation, no log)", core: dagWhat },
      await alternate(dagSets, o.warmup, o.reps, (set) => runBuildDag(jobView, { tools: ids(set) }), dagCore),
    );
    add(
      "DAG of 20 tools (facade, log off)",
      { job: "await tg.buildDag({tools}) with the recommendation log off", core: dagWhat },
      await alternate(dagSets, o.warmup, o.reps, (set) => quiet.buildDag({ tools: ids(set) }), dagCore),
    );

    // --- plan -----------------------------------------------------------------------------------------------------
    const planInputs = await Promise.all(
      queries.map(async (q) => {
        const p = await tg.plan({ intent: q.intent });
        return { ...q, kept: p.tools.map((t) => s.index.get(t.tool)!) };
      }),
    );
    add(
      "plan",
      { job: "await tg.plan({intent})", core: "searchCandidates (top 10) + dagOver(the tools the plan keeps)" },
      await alternate(
        planInputs,
        o.warmup,
        o.reps,
        (q) => tg.plan({ intent: q.intent }),
        (q) => {
          searchCore(q, 10);
          return dagOver(s, q.kept);
        },
      ),
    );

    // The same job against its scoring including the intent-memory recall, as for search: the plan ranks with
    // the memory's votes and takes its main tools from the closest past execution.
    add(
      "plan (core with recall)",
      {
        job: "await tg.plan({intent})",
        core: "recallMemory(intent, query vector) + searchCandidates (top 10, its votes) + dagOver(the tools the plan keeps)",
      },
      await alternate(
        planInputs,
        o.warmup,
        o.reps,
        (q) => tg.plan({ intent: q.intent }),
        async (q) => {
          const mem = await sm.recall(q.intent, q.qv);
          searchCore({ ...q, mem }, 10);
          return dagOver(s, q.kept);
        },
      ),
    );
  } finally {
    await tg.close();
  }
  return rows;
}

export async function runJobOverhead(options: JobOverheadOptions = {}): Promise<JobOverheadResult> {
  const d = JOB_OVERHEAD_DEFAULTS;
  const o = {
    sizes: options.sizes ?? [...d.sizes],
    reps: options.reps ?? d.reps,
    warmup: options.warmup ?? d.warmup,
    seed: options.seed ?? d.seed,
    embeddings: options.embeddings ?? d.embeddings,
    log: options.log ?? ((s: string) => process.stderr.write(`${s}\n`)),
  };
  const startedAt = new Date().toISOString();
  const uptime = [execSync("uptime").toString().trim()];
  const start = loadavg();
  const rows: JobRow[] = [];
  for (const tools of o.sizes) rows.push(...(await measureSize(tools, o)));
  uptime.push(execSync("uptime").toString().trim());
  const { log: _log, ...rest } = o;
  const command = `node --expose-gc --import tsx bench/job-overhead.ts ${process.argv.slice(2).join(" ")}`.trim();
  return {
    machine: machine(),
    command,
    code: codeVersion(),
    startedAt,
    uptime,
    loadAverage: { start, end: loadavg() },
    options: rest,
    rows,
  };
}

export function jobOverheadTable(r: JobOverheadResult): string {
  return markdownTable(
    [
      "tools",
      "job",
      "job p50",
      "core p50",
      "p50 ratio",
      "added p50 µs",
      "budget",
      "verdict",
      "job p99",
      "core p99",
      "p99 ratio",
    ],
    r.rows.map((x) => {
      const v = overheadVerdict(x);
      return [
        x.tools,
        x.job,
        x.job_ms.p50,
        x.core_ms.p50,
        x.ratio.p50,
        v.overheadUs,
        v.budget,
        v.pass ? "PASS" : "FAIL",
        x.job_ms.p99,
        x.core_ms.p99,
        x.ratio.p99,
      ];
    }),
  );
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const tools = arg("tools");
  const r = await runJobOverhead({
    ...(tools ? { sizes: tools.split(",").map(Number) } : {}),
    ...(arg("reps") ? { reps: Number(arg("reps")) } : {}),
    ...(arg("warmup") ? { warmup: Number(arg("warmup")) } : {}),
    ...(arg("seed") ? { seed: Number(arg("seed")) } : {}),
    ...(arg("embeddings") ? { embeddings: arg("embeddings")! } : {}),
  });
  const out = arg("out");
  if (out) process.stderr.write(`wrote ${writeResult(out, r)}\n`);
  process.stdout.write(`${r.machine}\n${r.uptime.join("\n")}\n\n${jobOverheadTable(r)}\n`);
  process.exit(0);
}
