/**
 * What the recommendation log costs.
 * - On the request path: the same searches through two facades on one engine (demo project, hash:256
 *   embeddings, result cache off so every call computes), one logging every answer and one not, alternating
 *   call by call so both see the same machine load.
 * - Its writes, off the request path but on the same process when the database is embedded: the logged
 *   answers (search answers of 10 items) written again in batches of 200 (the log's batch size) under fresh
 *   ids, CPU time and wall time per answer, on the embedded database and, with --database, on that server
 *   (where the CPU column is the client's share only).
 * Writes bench/results/recommendation-log.json and prints markdown tables.
 *
 *   node --expose-gc --import tsx bench/recommendation-log.ts [--calls 400] [--batches 30] [--database postgres://…]
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { demoCatalog, demoTraces } from "../src/demo/index.ts";
import { engineOf, openToolgraph, Toolgraph } from "../src/library/toolgraph.ts";
import { openConnection } from "../src/store/connection.ts";
import { insertRecommendations, type RecommendationRow } from "../src/store/recommendations.ts";
import { machine, markdownTable, percentiles, RESULTS_DIR, writeResult } from "./lib/report.ts";

const INTENTS = [
  "open a pull request with my changes",
  "roll back the production deploy",
  "find out why the payments service is failing",
  "schedule a meeting with the team",
  "run the tests and the linter",
  "summarise a web page",
  "back up the database",
  "post a message to the team channel",
];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/**
 * Writes `batches` batches of `size` answers (copies of `sample` under fresh ids and a fresh project) through
 * insertRecommendations; per batch, CPU (user + system of this process) and wall time per answer.
 */
async function writeCost(
  database: string | undefined,
  sample: readonly RecommendationRow[],
  batches: number,
  size: number,
) {
  const conn = await openConnection(database ? { database } : { home: "memory://" });
  const project = `bench-log-${process.pid}-${Date.now()}`;
  const cpu: number[] = [];
  const wall: number[] = [];
  let n = 0;
  try {
    for (let b = 0; b < batches + 3; b++) {
      const rows = Array.from({ length: size }, () => {
        const r = sample[n % sample.length]!;
        return { ...r, project, id: `bench-${n++}` };
      });
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await insertRecommendations(conn.db, rows);
      const w = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (b < 3) continue; // warm-up
      cpu.push((c.user + c.system) / size);
      wall.push((w * 1000) / size);
    }
  } finally {
    await conn.db.deleteFrom("recommendations").where("project", "=", project).execute();
    await conn.close();
  }
  return { backend: conn.backend, cpuUsPerAnswer: percentiles(cpu), wallUsPerAnswer: percentiles(wall) };
}

async function main(): Promise<void> {
  const calls = Number(arg("calls") ?? 400);
  const batches = Number(arg("batches") ?? 30);
  const database = arg("database");
  const load = { start: loadavg() };
  const on = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: "hash:256",
    resultCacheSize: 0,
  });
  await on.importCatalog(demoCatalog());
  await on.importTraces(demoTraces(600, 42, Date.parse("2026-11-01T12:00:00Z")));
  const off = new Toolgraph(engineOf(on), "demo", 0, { enabled: false });
  for (const tg of [on, off]) for (const intent of INTENTS) await tg.search({ intent }); // warm-up
  const t: Record<"on" | "off", number[]> = { on: [], off: [] };
  for (let k = 0; k < calls; k++) {
    const intent = INTENTS[k % INTENTS.length]!;
    const order: ("on" | "off")[] = k % 2 === 0 ? ["on", "off"] : ["off", "on"];
    for (const which of order) {
      const tg = which === "on" ? on : off;
      const t0 = performance.now();
      await tg.search({ intent, session: `s-${k}` });
      t[which].push(performance.now() - t0);
    }
  }
  const t0 = performance.now();
  await on.recommendations.flush();
  const flushMs = performance.now() - t0;
  const stored = await on.recommendations.counts("demo");
  const sample = (await on.recommendations.joined("demo")).map(({ outcome: _o, ...r }) => ({
    ...r,
    project: "demo",
  }));
  await on.close();
  // The server first: the embedded database's heap, once closed, is garbage the next measurement would pay
  // for in its CPU time (a full collection runs before each when node has --expose-gc).
  const settle = () => (globalThis as { gc?: () => void }).gc?.();
  const writes = [];
  if (database) {
    settle();
    writes.push(await writeCost(database, sample, batches, 200));
  }
  settle();
  writes.unshift(await writeCost(undefined, sample, batches, 200));
  const result = {
    bench: "recommendation-log",
    command: `node --expose-gc --import tsx bench/recommendation-log.ts ${process.argv.slice(2).join(" ")}`.trim(),
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { ...load, end: loadavg() },
    calls,
    searchMs: { logOn: percentiles(t.on), logOff: percentiles(t.off) },
    lastFlushMs: flushMs,
    stored: stored.recommendations,
    written: on.recommendations.written,
    dropped: on.recommendations.dropped,
    /** Writing the logged answers again, batches of 200: per answer, per backend. */
    writes: writes.map((w) => ({
      ...w,
      batches,
      batchSize: 200,
      itemsPerAnswer: sample.reduce((a, r) => a + r.items.length, 0) / Math.max(1, sample.length),
    })),
  };
  const rows = (["logOff", "logOn"] as const).map((k) => [
    k === "logOn" ? "search, log on" : "search, log off",
    result.searchMs[k].p50,
    result.searchMs[k].p95,
    result.searchMs[k].p99,
    result.searchMs[k].n,
  ]);
  const writeRows = result.writes.map((w) => [
    w.backend,
    w.cpuUsPerAnswer.p50,
    w.cpuUsPerAnswer.p95,
    w.wallUsPerAnswer.p50,
    w.wallUsPerAnswer.p95,
    w.cpuUsPerAnswer.n,
  ]);
  const md = `${markdownTable(["", "p50 ms", "p95 ms", "p99 ms", "n"], rows)}\n\nWriting the logged answers (batches of 200, ${result.writes[0]!.itemsPerAnswer.toFixed(1)} items per answer), per answer:\n\n${markdownTable(["backend", "CPU p50 µs", "CPU p95 µs", "wall p50 µs", "wall p95 µs", "batches"], writeRows)}\n\nstored ${result.stored} answers, dropped ${result.dropped}; load ${load.start[0]!.toFixed(1)} → ${result.loadAverage.end[0]!.toFixed(1)}; ${result.command}\n`;
  process.stdout.write(md);
  writeFileSync(join(RESULTS_DIR, "recommendation-log.md"), md);
  process.stdout.write(`wrote ${writeResult("recommendation-log", result)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
