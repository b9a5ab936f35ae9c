/**
 * The recommendation log's count bounds, measured (docs/decisions/log-retention.md).
 * - Soak through the HTTP server (as `toolgraph serve` runs it): `--iterations` rounds of one search (with a
 *   session) and one recorded execution of that session, so every round writes one answer and one outcome, with
 *   small bounds (`--bound` rows of each per project, a pruning every `--prune-every` rows). The rows each table
 *   holds are sampled every 250 rounds without forcing a flush, as a reader would see them; the largest sample
 *   is the bound in practice.
 * - One pruning at the default bounds: `--rows` answers and outcomes in a fresh project (10% over the default
 *   100,000), then the time of the pass that deletes the excess, on the embedded database and, with
 *   --database, on that server.
 * Writes bench/results/log-retention.json and prints markdown tables.
 *
 *   node --import tsx bench/log-retention.ts [--iterations 2000] [--bound 500] [--prune-every 100] [--rows 110000] [--step 2000] [--database postgres://…]
 */
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { demoCatalog, demoTraces } from "../src/demo/index.ts";
import { openToolgraph, RECOMMENDATION_LOG_DEFAULTS, startServer } from "../src/index.ts";
import { openConnection } from "../src/store/connection.ts";
import {
  countRecommendations,
  insertOutcomes,
  insertRecommendations,
  type OutcomeRow,
  pruneRecommendations,
  RETENTION_STEP,
  type RecommendationRow,
} from "../src/store/recommendations.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const NOW = Date.parse("2026-11-01T12:00:00Z");
const INTENTS = [
  "open a pull request with my changes",
  "roll back the production deploy",
  "run the tests and the linter",
  "back up the database",
];

async function soak(iterations: number, bound: number, pruneEvery: number) {
  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:256",
    resultCacheSize: 0,
    recommendationLog: { maxPerProject: bound, maxOutcomesPerProject: bound, pruneEveryRows: pruneEvery },
  });
  await tg.importCatalog(demoCatalog());
  const server = await startServer({ api: tg, port: 0, log: () => {} });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(server.url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const traces = demoTraces(iterations, 7, NOW);
  const samples: { round: number; answers: number; outcomes: number }[] = [];
  const t0 = performance.now();
  for (let k = 0; k < iterations; k++) {
    const ex = { ...traces[k]!, id: `soak-${k}` };
    await post("/v1/search", { intent: INTENTS[k % INTENTS.length]!, session: ex.id });
    await post("/v1/executions", ex);
    if ((k + 1) % 250 === 0 || k === iterations - 1) {
      const c = await tg.recommendations.counts("demo");
      samples.push({ round: k + 1, answers: c.recommendations, outcomes: c.outcomes });
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const { written, dropped, prunes } = tg.recommendations;
  await server.close();
  await tg.close();
  return {
    iterations,
    bound,
    pruneEvery,
    seconds,
    written,
    dropped,
    prunes,
    most: {
      answers: Math.max(...samples.map((s) => s.answers)),
      outcomes: Math.max(...samples.map((s) => s.outcomes)),
    },
    last: samples[samples.length - 1]!,
    samples,
  };
}

/** The longest time between two runs of a 1 ms interval timer (ms) from now until stop(): how long the thread was held. */
function gapMonitor(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    longest = Math.max(longest, t - last);
    last = t;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

async function pruneCost(database: string | undefined, rows: number, step: number) {
  const conn = await openConnection(database ? { database } : { home: "memory://" });
  const project = `bench-retention-${process.pid}-${Date.now()}`;
  try {
    const answers: RecommendationRow[] = [];
    const outcomes: OutcomeRow[] = [];
    for (let i = 0; i < rows; i++) {
      const at = new Date(NOW - (rows - i) * 1000);
      answers.push({
        project,
        id: `r${i}`,
        job: "search",
        createdAt: at,
        user: null,
        session: `s${i}`,
        graphVersion: 1,
        request: { intent: "x" },
        items: [{ id: "a", score: 0.5, decision: "accepted" }],
        decision: "accepted",
        topScore: 0.5,
        latencyMs: 1,
      });
      outcomes.push({
        project,
        recommendationId: null,
        session: `s${i}`,
        kind: "execution",
        at,
        success: true,
        followed: null,
        executionId: `s${i}`,
        tools: ["a", "b"],
      });
    }
    const t0 = performance.now();
    await insertRecommendations(conn.db, answers);
    await insertOutcomes(conn.db, outcomes);
    const insertSeconds = (performance.now() - t0) / 1000;
    const d = RECOMMENDATION_LOG_DEFAULTS;
    const o = {
      maxPerProject: d.maxPerProject,
      maxOutcomesPerProject: d.maxOutcomesPerProject,
      maxAgeDays: d.maxAgeDays,
      now: NOW,
      step,
    };
    // As the writer runs it: a turn of the event loop between statements; the longest stretch without one is
    // the longest the pruning holds the thread (the embedded database works on it).
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
    const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    const delay = gapMonitor();
    const t1 = performance.now();
    const deleted = await pruneRecommendations(conn.db, project, { ...o, pause });
    const pruneMs = performance.now() - t1;
    await settle(); // the monitor sees a block when the loop next runs its timer
    const longestBlockMs = delay.stop();
    const t2 = performance.now();
    await pruneRecommendations(conn.db, project, { ...o, pause });
    const noopPruneMs = performance.now() - t2;
    // The same pruning in one statement per phase (no step), for comparison: 10% more rows again, then prune.
    const extra = Math.round(rows / 11);
    await insertRecommendations(
      conn.db,
      answers.slice(0, extra).map((r, i) => ({ ...r, id: `x${i}`, createdAt: new Date(NOW + i) })),
    );
    await insertOutcomes(
      conn.db,
      outcomes.slice(0, extra).map((r, i) => ({ ...r, at: new Date(NOW + i) })),
    );
    const whole = gapMonitor();
    const t3 = performance.now();
    const deletedWhole = await pruneRecommendations(conn.db, project, { ...o, pause, step: Number.MAX_SAFE_INTEGER });
    const unsteppedMs = performance.now() - t3;
    await settle();
    const unstepped = { pruneMs: unsteppedMs, longestBlockMs: whole.stop(), deleted: deletedWhole };
    const left = await countRecommendations(conn.db, project);
    return {
      backend: conn.backend,
      rows,
      insertSeconds,
      pruneMs,
      longestBlockMs,
      noopPruneMs,
      deleted,
      left,
      unstepped,
    };
  } finally {
    await conn.db.deleteFrom("recommendations").where("project", "=", project).execute();
    await conn.db.deleteFrom("recommendation_outcomes").where("project", "=", project).execute();
    await conn.close();
  }
}

async function main(): Promise<void> {
  const iterations = Number(arg("iterations") ?? 2000);
  const bound = Number(arg("bound") ?? 500);
  const pruneEvery = Number(arg("prune-every") ?? 100);
  const rows = Number(arg("rows") ?? 110_000);
  const step = Number(arg("step") ?? RETENTION_STEP);
  const database = arg("database");
  const load = { start: loadavg() };
  const s = await soak(iterations, bound, pruneEvery);
  const costs = [await pruneCost(undefined, rows, step)];
  if (database) costs.push(await pruneCost(database, rows, step));
  const result = {
    bench: "log-retention",
    command: `node --import tsx bench/log-retention.ts ${process.argv.slice(2).join(" ")}`.trim(),
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { ...load, end: loadavg() },
    soak: s,
    step,
    prune: costs,
  };
  const md =
    `Soak over HTTP: ${s.iterations} rounds of a search and a recorded execution (${s.seconds.toFixed(0)} s), bound ${s.bound} rows per table, pruning every ${s.pruneEvery} rows:\n\n` +
    markdownTable(
      ["table", "rows written", "most rows seen", "rows at the end", "bound + prune-every"],
      [
        ["recommendations", s.iterations, s.most.answers, s.last.answers, s.bound + s.pruneEvery].map(String),
        ["recommendation_outcomes", s.iterations, s.most.outcomes, s.last.outcomes, s.bound + s.pruneEvery].map(String),
      ],
    ) +
    `\n\n${s.prunes} prunings, ${s.dropped} rows dropped.\n\nOne pruning at the default bounds (${rows} answers and ${rows} outcomes in one project), statements of at most ${step} rows:\n\n` +
    markdownTable(
      [
        "backend",
        "insert s",
        "prune ms",
        "longest event-loop block ms",
        "deleted answers",
        "deleted outcomes",
        "prune again ms",
        "one statement per phase: prune ms",
        "its longest block ms",
      ],
      costs.map((c) => [
        c.backend,
        c.insertSeconds.toFixed(1),
        c.pruneMs.toFixed(0),
        c.longestBlockMs.toFixed(0),
        String(c.deleted.recommendations),
        String(c.deleted.outcomes),
        c.noopPruneMs.toFixed(0),
        c.unstepped.pruneMs.toFixed(0),
        c.unstepped.longestBlockMs.toFixed(0),
      ]),
    ) +
    `\n\nload ${load.start[0]!.toFixed(1)} → ${result.loadAverage.end[0]!.toFixed(1)}; ${result.command}\n`;
  process.stdout.write(md);
  process.stdout.write(`wrote ${writeResult("log-retention", result)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
