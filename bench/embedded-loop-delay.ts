/**
 * The event loop of a `serve` process on the embedded database while a catalog is imported over HTTP.
 *
 * An empty embedded home (a new temporary directory), the library opened with `--embeddings`, and the HTTP
 * server of `toolgraph serve` in this process. Then POST /v1/import/catalog with `--tools` tools (generated
 * names and descriptions), `--rounds` times (each a new catalog, so every tool is new and embedded), while
 * /health is polled every 100 ms. perf_hooks.monitorEventLoopDelay (10 ms resolution) records the loop's delay
 * from the first import until the last one answered; reported with the import time and /health latency.
 *
 * Where PGlite runs is TOOLGRAPH_PGLITE_THREAD (worker, the default, or main): run once with each.
 *
 *   TOOLGRAPH_PGLITE_THREAD=main npx tsx bench/embedded-loop-delay.ts [--tools 300] [--rounds 3] [--embeddings hash]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { openToolgraph, startServer } from "../src/index.ts";
import { codeVersion, machine, percentiles, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
    embeddings: { type: "string", default: "hash" },
  },
});
const TOOLS = Number(values.tools);
const ROUNDS = Number(values.rounds);
// Where the embedded database runs (the library refuses any other value when it opens).
const THREAD = process.env.TOOLGRAPH_PGLITE_THREAD?.trim() || "worker";

const WORDS = "read write file search index deploy build test query table user issue branch commit image audio"
  .split(" ")
  .concat("parse render send fetch list create delete update sync merge plan score rank embed cache".split(" "));
function catalog(round: number) {
  return {
    tools: Array.from({ length: TOOLS }, (_, i) => {
      const w = (k: number) => WORDS[(i * 7 + k * 13 + round) % WORDS.length];
      return {
        id: `r${round}.tool_${i}`,
        description: `${w(1)} the ${w(2)} of a ${w(3)} then ${w(4)} its ${w(5)} (${round}-${i}); returns the ${w(6)}`,
        tags: [w(7)!, w(8)!],
        inputSchema: { type: "object", properties: { [w(9)!]: { type: "string" } } },
      };
    }),
  };
}

const home = mkdtempSync(join(tmpdir(), "tg-loop-delay-"));
const loadBefore = loadavg();
const tOpen = performance.now();
const tg = await openToolgraph({ home: join(home, "home"), embeddings: values.embeddings! });
const openMs = performance.now() - tOpen;
const handle = await startServer({ api: tg, port: 0, log: () => {}, warmUp: false, console: false });
const base = `http://127.0.0.1:${handle.port}`;
try {
  const health: number[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const t = performance.now();
      await fetch(`${base}/health`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const importMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const t = performance.now();
    const res = await fetch(`${base}/v1/import/catalog`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(catalog(round)),
    });
    if (!res.ok) throw new Error(`import answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    importMs.push(performance.now() - t);
  }
  h.disable();
  polling = false;
  await poll;
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const result = {
    bench: `embedded-loop-delay-${THREAD}`,
    date: new Date().toISOString(),
    command: `TOOLGRAPH_PGLITE_THREAD=${THREAD} npx tsx bench/embedded-loop-delay.ts --tools ${TOOLS} --rounds ${ROUNDS} --embeddings ${values.embeddings}`,
    code: codeVersion(),
    machine: machine(),
    load: { before: loadBefore, after: loadavg() },
    settings: { tools: TOOLS, rounds: ROUNDS, embeddings: values.embeddings, thread: THREAD },
    openMs: Math.round(openMs),
    importMs: importMs.map(Math.round),
    loopDelayMs: { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) },
    healthMs: percentiles(health),
  };
  writeResult(result.bench, result);
  process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
} finally {
  await handle.close();
  await tg.close();
  rmSync(home, { recursive: true, force: true });
}
