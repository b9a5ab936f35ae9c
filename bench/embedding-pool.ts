/**
 * Event-loop responsiveness while a catalog is imported with USE-lite embeddings, embedding on the event loop
 * (embeddingWorkers 0, the old path) versus in the worker pool (the default).
 *
 * Each mode runs in a fresh child process that opens a toolgraph (memory://), serves HTTP on an ephemeral port
 * and loads the model once (one warm-up text: in process, or in a worker). Then, with --tools tools of the
 * Seal-Tools catalog (the first 300 by default):
 *   idle    — nothing for 5 s: the noise floor of the machine (other processes share its cores);
 *   library — the child calls tg.importCatalog(catalog) itself;
 *   traces  — the child imports --tools Seal-Tools training traces into that project (unknown tools
 *             auto-registered) and answers one search, which embeds the traces' intents (intent memory);
 *   http    — the parent POSTs the catalog to /v1/import/catalog (a new project).
 * During each phase the child records its event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms
 * resolution, kept on for 50 ms after the phase so a block at its end is counted) and the parent polls
 * GET /health back to back (20 ms pause between polls) and times each poll. Every catalog import goes to a
 * new project, so every tool text is embedded anew.
 *
 *   npx tsx bench/embedding-pool.ts [--tools 300] [--reps 1] [--workers <pool size; default the pool's>]
 *
 * Writes bench/results/embedding-pool.json and prints a markdown table.
 */
import { type ChildProcess, fork } from "node:child_process";
import { loadavg } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { openToolgraph, startServer } from "../src/index.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    tools: { type: "string", default: "300" },
    reps: { type: "string", default: "1" },
    workers: { type: "string" },
    child: { type: "string" },
  },
});
const nTools = Number(values.tools);

function datasetOf(n: number) {
  const ds = convertSealTools({ limit: n * 2 });
  const traces = ds.traces.filter((t) => t.intent !== undefined).slice(0, n);
  return { catalog: { ...ds.catalog, tools: ds.catalog.tools.slice(0, n), capabilities: [] }, traces };
}

interface Delay {
  p50: number;
  p99: number;
  max: number;
  samples: number;
}

type Phase = "idle" | "library" | "traces";
type ToChild = { cmd: Phase; project: string } | { cmd: "reset" } | { cmd: "stats" } | { cmd: "exit" };
type FromChild =
  | { ready: true; port: number; embedder: string; workers: number }
  | { delay: Delay; seconds?: number; embeddedNow?: number; rssMiB: number };

// ─── child: one toolgraph + server, embedding in process or in the pool ──────────────────────────────
if (values.child !== undefined) {
  const workers = values.child === "in-process" ? 0 : values.workers === undefined ? undefined : Number(values.workers);
  const { catalog, traces } = datasetOf(nTools);
  const tg = await openToolgraph({
    home: "memory://",
    project: "warm",
    embeddings: "use-lite",
    embeddingWorkers: workers,
    recommendationLog: { enabled: false },
  });
  const server = await startServer({ api: tg, port: 0, host: "127.0.0.1" });
  await tg.warmUp("model");
  const h = monitorEventLoopDelay({ resolution: 10 });
  const delay = (): Delay => ({
    p50: h.percentile(50) / 1e6,
    p99: h.percentile(99) / 1e6,
    max: h.max / 1e6,
    samples: h.count,
  });
  const send = (m: FromChild) => process.send!(m);
  const rssMiB = () => process.memoryUsage().rss / 2 ** 20;
  // 50 ms more: a block at the very end of a phase is recorded when the loop's timer next fires.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  process.on("message", async (m: ToChild) => {
    if (m.cmd === "reset") {
      h.reset();
      h.enable();
      send({ delay: delay(), rssMiB: rssMiB() });
    } else if (m.cmd === "stats") {
      await settle();
      h.disable();
      send({ delay: delay(), rssMiB: rssMiB() });
    } else if (m.cmd === "idle" || m.cmd === "library" || m.cmd === "traces") {
      h.reset();
      h.enable();
      const t0 = performance.now();
      let embeddedNow = 0;
      if (m.cmd === "idle") await new Promise((resolve) => setTimeout(resolve, 5000));
      else if (m.cmd === "library") embeddedNow = (await tg.importCatalog(catalog, { project: m.project })).embeddedNow;
      else {
        await tg.importTraces(traces, { project: m.project, autoRegister: true });
        await tg.search({ project: m.project, intent: traces[0]!.intent! });
        embeddedNow = traces.length;
      }
      const seconds = (performance.now() - t0) / 1000;
      await settle();
      h.disable();
      send({ delay: delay(), seconds, embeddedNow, rssMiB: rssMiB() });
    } else {
      await server.close();
      await tg.close();
      process.disconnect();
    }
  });
  const { provider, workers: poolSize } = tg.embedding();
  send({ ready: true, port: server.port, embedder: provider, workers: poolSize });
} else {
  await parent();
}

// ─── parent: runs each mode in a child, polls /health, collects the numbers ───────────────────────────
function request(child: ChildProcess, m: ToChild): Promise<FromChild> {
  return new Promise((resolve) => {
    child.once("message", (r: FromChild) => resolve(r));
    child.send(m);
  });
}

/** A poll's latency in ms, and whether it failed (no answer, or not 200). */
interface Poll {
  ms: number;
  failed: boolean;
}

/** Polls GET /health back to back (20 ms apart) until `stop` resolves. */
async function pollHealth(port: number, stop: Promise<unknown>): Promise<Poll[]> {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  const out: Poll[] = [];
  while (!done) {
    const t0 = performance.now();
    let failed = false;
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      await r.arrayBuffer();
      failed = r.status !== 200;
    } catch {
      failed = true;
    }
    out.push({ ms: performance.now() - t0, failed });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return out;
}

interface Row {
  mode: "in-process" | "pool";
  path: Phase | "http";
  rep: number;
  embedder: string;
  /** Embedding worker threads (0: the model runs on the event loop). */
  workers: number;
  tools: number;
  embeddedNow: number;
  seconds: number;
  eventLoopDelayMs: Delay;
  healthMs: { p50: number; p99: number; max: number; polls: number; over1s: number; failed: number };
  /** The child's resident memory after the phase (main thread and workers). */
  rssMiB: number;
}

async function parent(): Promise<void> {
  const reps = Number(values.reps);
  const { catalog } = datasetOf(nTools);
  const body = JSON.stringify(catalog);
  const loadStart = loadavg();
  const rows: Row[] = [];
  for (let rep = 1; rep <= reps; rep++) {
    for (const mode of ["in-process", "pool"] as const) {
      const args = [
        "--tools",
        String(nTools),
        "--child",
        mode,
        ...(values.workers === undefined ? [] : ["--workers", values.workers]),
      ];
      const child = fork(import.meta.filename, args, {
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      const ready = (await new Promise((resolve) => child.once("message", resolve))) as Extract<
        FromChild,
        { ready: true }
      >;
      const health = (polls: Poll[]) => {
        const xs = polls.map((x) => x.ms);
        const p = percentiles(xs);
        return {
          p50: p.p50,
          p99: p.p99,
          max: Math.max(...xs),
          polls: xs.length,
          over1s: xs.filter((x) => x > 1000).length,
          failed: polls.filter((x) => x.failed).length,
        };
      };
      // idle, library, traces: the child works; the parent polls /health meanwhile.
      for (const phase of ["idle", "library", "traces"] as const) {
        const run = request(child, { cmd: phase, project: `lib${rep}` }) as Promise<
          Extract<FromChild, { delay: Delay }>
        >;
        const polls = await pollHealth(ready.port, run);
        const r = await run;
        rows.push({
          mode,
          path: phase,
          rep,
          embedder: ready.embedder,
          workers: ready.workers,
          tools: nTools,
          embeddedNow: r.embeddedNow!,
          seconds: r.seconds!,
          eventLoopDelayMs: r.delay,
          healthMs: health(polls),
          rssMiB: r.rssMiB,
        });
        process.stderr.write(
          `${mode} ${phase}: ${r.seconds!.toFixed(1)} s, event-loop p99 ${r.delay.p99.toFixed(0)} ms, /health max ${health(polls).max.toFixed(0)} ms\n`,
        );
      }
      // http: the parent POSTs the catalog and polls /health meanwhile.
      await request(child, { cmd: "reset" });
      const t0 = performance.now();
      const post = fetch(`http://127.0.0.1:${ready.port}/v1/import/catalog?project=http${rep}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as { embeddedNow?: number } }));
      const httpPolls = await pollHealth(ready.port, post);
      const res = await post;
      const seconds = (performance.now() - t0) / 1000;
      if (res.status !== 200) throw new Error(`import over HTTP answered ${res.status}: ${JSON.stringify(res.json)}`);
      const st = (await request(child, { cmd: "stats" })) as Extract<FromChild, { delay: Delay }>;
      rows.push({
        mode,
        path: "http",
        rep,
        embedder: ready.embedder,
        workers: ready.workers,
        tools: nTools,
        embeddedNow: res.json.embeddedNow ?? 0,
        seconds,
        eventLoopDelayMs: st.delay,
        healthMs: health(httpPolls),
        rssMiB: st.rssMiB,
      });
      process.stderr.write(
        `${mode} http: ${seconds.toFixed(1)} s, event-loop p99 ${st.delay.p99.toFixed(0)} ms, /health max ${health(httpPolls).max.toFixed(0)} ms\n`,
      );
      child.send({ cmd: "exit" } satisfies ToChild);
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
  const result = {
    bench: "embedding-pool",
    command: `npx tsx bench/embedding-pool.ts --tools ${nTools} --reps ${reps}${values.workers === undefined ? "" : ` --workers ${values.workers}`}`,
    date: new Date().toISOString(),
    machine: machine(),
    loadAverage: { start: loadStart, end: loadavg() },
    dataset: `Seal-Tools tool.jsonl, first ${nTools} tools`,
    embeddings: "use-lite (batch 32)",
    rows,
  };
  const path = writeResult(
    values.workers === undefined ? "embedding-pool" : `embedding-pool-workers-${values.workers}`,
    result,
  );
  console.log(
    markdownTable(
      [
        "mode",
        "phase",
        "rep",
        "s",
        "event-loop p50 ms",
        "p99 ms",
        "max ms",
        "/health p50 ms",
        "p99 ms",
        "max ms",
        "polls > 1 s",
        "failed",
        "RSS MiB",
      ],
      rows.map((r) => [
        r.mode,
        r.path,
        String(r.rep),
        r.seconds,
        r.eventLoopDelayMs.p50,
        r.eventLoopDelayMs.p99,
        r.eventLoopDelayMs.max,
        r.healthMs.p50,
        r.healthMs.p99,
        r.healthMs.max,
        `${r.healthMs.over1s}/${r.healthMs.polls}`,
        String(r.healthMs.failed),
        Math.round(r.rssMiB),
      ]),
    ),
  );
  console.log(`\nwrote ${path}`);
}
