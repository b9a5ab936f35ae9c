/**
 * What the recommendation log costs on the request path: the same searches through two facades on one
 * engine (demo project, hash:256 embeddings, result cache off so every call computes), one logging every
 * answer and one not, alternating call by call so both see the same machine load. Writes
 * bench/results/recommendation-log.json and prints a markdown table.
 *
 *   npx tsx bench/recommendation-log.ts [--calls 400]
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openToolgraph, Toolgraph } from "../src/api/toolgraph.ts";
import { demoCatalog } from "../src/demo/catalog.ts";
import { demoTraces } from "../src/demo/traces.ts";
import { countRecommendations } from "../src/store/recommendations.ts";
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

async function main(): Promise<void> {
  const i = process.argv.indexOf("--calls");
  const calls = i >= 0 ? Number(process.argv[i + 1]) : 400;
  const load = { start: loadavg() };
  const on = await openToolgraph({ home: "memory://", database: "", project: "demo", embeddings: "hash:256", resultCacheSize: 0 });
  await on.importCatalog(demoCatalog());
  await on.importTraces(demoTraces(600, 42, Date.parse("2026-11-01T12:00:00Z")));
  const off = new Toolgraph(on.engine, "demo", 0, { enabled: false });
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
  const stored = await countRecommendations(on.engine.db, "demo");
  await on.close();
  const result = {
    bench: "recommendation-log",
    command: `npx tsx bench/recommendation-log.ts --calls ${calls}`,
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { ...load, end: loadavg() },
    calls,
    searchMs: { logOn: percentiles(t.on), logOff: percentiles(t.off) },
    lastFlushMs: flushMs,
    stored: stored.recommendations,
    written: on.recommendations.written,
    dropped: on.recommendations.dropped,
  };
  const rows = (["logOff", "logOn"] as const).map((k) => [k === "logOn" ? "search, log on" : "search, log off", result.searchMs[k].p50, result.searchMs[k].p95, result.searchMs[k].p99, result.searchMs[k].n]);
  const md = `${markdownTable(["", "p50 ms", "p95 ms", "p99 ms", "n"], rows)}\n\nstored ${result.stored} answers, dropped ${result.dropped}; load ${load.start[0]!.toFixed(1)} → ${result.loadAverage.end[0]!.toFixed(1)}; ${result.command}\n`;
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
