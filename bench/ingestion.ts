/**
 * Ingestion to the first answer: an empty home, a catalog of ~2,000 tools and ~17,500 traces (the synthetic
 * generator's project, bench/synthetic/generate.ts, seed 1: 100k steps, 400 capabilities), then everything a
 * user waits for before an answer reflects that history — catalog import (tool embedding), trace import (rows,
 * edge learning), `settle()` (graph analytics, intent memory: intent embedding), the next-step and search
 * weight fits, `calibrate()` (the gate's out-of-sample calibration) — and the first answers (a search and a next step). Then incremental batches of
 * `--increment` more traces (the generator's next ones) on top, each through the same steps, so the cost of
 * a batch can be compared with the cost of the history.
 *
 * Reported per phase: wall time, CPU of this process (user + system, worker threads included; on the
 * PostgreSQL server the server's own CPU is not counted), and peak RSS; over the whole run the event-loop
 * delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution: p50 / p99 / max) — no request may wait > 50 ms.
 *
 *   npx tsx bench/ingestion.ts [--traces 17500] [--tools 2000] [--file-size 5000] [--increment 1000]
 *                              [--increments 3] [--embeddings use-lite] [--backends pglite,postgres]
 *                              [--seed 1] [--out ingestion] [--blocks-out <file prefix>] [--arm wait|at-once]
 *
 * `--arm at-once` (results: ingestion-at-once) is a server's path instead of a batch import's: the catalog's rows
 * are stored without waiting for their embeddings (`importCatalog(…, { embed: false })`, searches answering from
 * the lexical and graph channels meanwhile: `answerWhileEmbedding("lexical")`), the traces imported, and the first
 * answers asked at once — they say which channels were live. Then the catalog is embedded (`prepareSearch`), the
 * history settled, fitted and calibrated, and the full answers asked: both points are reported.
 *
 * Public API only: `openToolgraph` from the package entry and the library's methods.
 * PostgreSQL: TOOLGRAPH_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), a fresh schema
 * dropped at the end. Target (docs/decisions/ingestion-first-answer.md): ≤ 60 s CPU to the first answer.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { openToolgraph, type Toolgraph } from "../src/index.ts";
import type { TraceRecord } from "./convert/common.ts";
import { loopThreadCpuMs } from "./lib/loop-blocks.ts";
import { codeVersion, machine, markdownTable, RESULTS_DIR, writeResult } from "./lib/report.ts";
import { generateSyntheticProject, type SyntheticProject } from "./synthetic/generate.ts";

export const SERVER_URL = process.env.TOOLGRAPH_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export const INGESTION_DEFAULTS = {
  traces: 17_500,
  tools: 2_000,
  fileSize: 5_000,
  increment: 1_000,
  increments: 3,
  embeddings: "use-lite",
  seed: 1,
  /** CPU seconds to the first answer (the 17.5k traces). */
  targetCpuSeconds: 60,
  /** Longest event-loop block, ms. */
  targetDelayMs: 50,
} as const;

export type Backend = "pglite" | "postgres";

const s = (ms: number) => (ms / 1000).toFixed(1);

export interface Phase {
  phase: string;
  wallMs: number;
  cpuMs: number;
  /** Peak RSS of the process so far (MiB). */
  peakRssMiB: number;
  /** Longest gap between two ticks of a 10-ms timer during the phase (ms). */
  longestBlockMs: number;
}

export interface Delay {
  p50: number;
  p99: number;
  max: number;
  /** Share of 10-ms samples over 50 ms. */
  over50: number;
}

export interface BackendRun {
  backend: Backend;
  /** Catalog → traces → settle → calibrate → first answers. */
  toFirstAnswer: { wallMs: number; cpuMs: number; peakRssMiB: number; phases: Phase[]; eventLoop: Delay };
  /** Each incremental batch: import → settle → calibrate → answers. */
  increments: {
    traces: number;
    historyBefore: number;
    wallMs: number;
    cpuMs: number;
    phases: Phase[];
    eventLoop: Delay;
  }[];
  stored: { executions: number; steps: number; edges: number };
  /** `degraded` is the search answer's ("embedding": the lexical and graph channels only). */
  firstAnswer: { search: string[]; next: string[]; degraded?: string | undefined };
  /** `--arm at-once`: from the empty home to answers with every channel (embedding, settle, fits, calibration). */
  toFullAnswer?: { wallMs: number; cpuMs: number; phases: Phase[]; answer: { search: string[]; next: string[] } };
  error?: string;
}

/**
 * The longest gap between two ticks of a 10-ms timer since `reset` (the longest event-loop block, ms). With
 * `record`, every gap over 50 ms is kept with its phase and its bounds on the monotonic clock (µs, the clock of
 * `node --cpu-prof` timestamps), so a profile's samples inside each block can be read (`--blocks-out`), and with
 * the CPU time the loop's thread used in it (`loopCpuMs`, 10 ms resolution, Linux): a gap with much less of it
 * than its length waited for a CPU (a crowded machine), one with over 50 ms of it is our code or the collector.
 */
class BlockWatch {
  private last = performance.now();
  private lastUs = process.hrtime.bigint() / 1000n;
  private lastCpu = loopThreadCpuMs();
  longest = 0;
  phase = "";
  readonly blocks: { phase: string; ms: number; startUs: string; endUs: string; loopCpuMs?: number }[] = [];
  /** Each phase's bounds on the same clock (a profile's samples per phase). */
  readonly phases: { phase: string; startUs: string; endUs?: string }[] = [];
  private readonly timer = setInterval(() => {
    const t = performance.now();
    const us = process.hrtime.bigint() / 1000n;
    const cpu = loopThreadCpuMs();
    if (t - this.last > 50)
      this.blocks.push({
        phase: this.phase,
        ms: t - this.last,
        startUs: String(this.lastUs),
        endUs: String(us),
        ...(cpu !== undefined && this.lastCpu !== undefined ? { loopCpuMs: cpu - this.lastCpu } : {}),
      });
    this.longest = Math.max(this.longest, t - this.last);
    this.last = t;
    this.lastUs = us;
    this.lastCpu = cpu;
  }, 10);
  reset(phase = ""): void {
    this.last = performance.now();
    this.lastUs = process.hrtime.bigint() / 1000n;
    this.lastCpu = loopThreadCpuMs();
    const open = this.phases.at(-1);
    if (open && open.endUs === undefined) open.endUs = String(this.lastUs);
    if (phase) this.phases.push({ phase, startUs: String(this.lastUs) });
    this.longest = 0;
    this.phase = phase;
  }
  /** The longest block so far, the one running since the last tick included. */
  now(): number {
    return Math.max(this.longest, performance.now() - this.last);
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

let watch: BlockWatch | undefined;

/** Runs `fn` as a phase: wall, process CPU (all threads), peak RSS, longest event-loop block. */
async function phase<T>(phases: Phase[], name: string, fn: () => Promise<T>): Promise<T> {
  watch?.reset(name);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const longestBlockMs = watch?.now() ?? 0;
  watch?.reset();
  const c = process.cpuUsage(c0);
  phases.push({
    phase: name,
    wallMs: performance.now() - t0,
    cpuMs: (c.user + c.system) / 1000,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    longestBlockMs,
  });
  return r;
}

function delayOf(h: ReturnType<typeof monitorEventLoopDelay>): Delay {
  const ms = (ns: number) => ns / 1e6;
  // The histogram counts delays past the resolution; the share over 50 ms is read from its percentiles.
  let over = 0;
  for (const [p, v] of h.percentiles) if (ms(v) > 50) over = Math.max(over, 1 - p / 100);
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), over50: over };
}

/**
 * A fresh home for a bench: a temporary PGlite data directory on disk, or a new schema on the server (dropped
 * by `cleanup`).
 */
export async function openBenchHome(
  backend: Backend,
  embeddings: string,
  serverUrl: string,
  project = "ingestion",
): Promise<{ tg: Toolgraph; cleanup: () => Promise<void> }> {
  if (backend === "pglite") {
    const home = mkdtempSync(join(tmpdir(), `toolgraph-${project}-`));
    const tg = await openToolgraph({ home, database: "", project, embeddings }).catch((err) => {
      rmSync(home, { recursive: true, force: true });
      throw err;
    });
    return { tg, cleanup: async () => rmSync(home, { recursive: true, force: true }) };
  }
  const schema = `tg_${project}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`).finally(() => admin.end());
  const drop = async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
  };
  const u = new URL(serverUrl);
  u.searchParams.set("options", `-c search_path=${schema}`);
  const tg = await openToolgraph({ database: u.toString(), poolSize: 4, project, embeddings }).catch(async (err) => {
    await drop();
    throw err;
  });
  return { tg, cleanup: drop };
}

/** The answers a user asks for first: a search by a past intent and the next step after a past first step. */
async function answers(tg: Toolgraph, probe: TraceRecord): Promise<BackendRun["firstAnswer"]> {
  const s = await tg.search({ intent: probe.intent ?? "", limit: 5 });
  const n = await tg.suggestNext({ context: [probe.steps[0]!.tool], intent: probe.intent, limit: 5 });
  return {
    search: s.results.map((r) => r.tool),
    next: n.suggestions.map((x) => x.tool),
    ...(s.degraded ? { degraded: s.degraded } : {}),
  };
}

/**
 * import → settle → (first time: the weight fits) → calibrate: what a batch of traces costs before answers
 * reflect it. The fits run as their own phases, as `learn-weights` and the accuracy bench run them: left to
 * the background, the search-weight fit would run beside whichever phase comes next.
 */
async function ingest(
  tg: Toolgraph,
  phases: Phase[],
  traces: TraceRecord[],
  fileSize: number,
  first: boolean,
): Promise<void> {
  await importPhase(tg, phases, traces, fileSize);
  await learn(tg, phases, first);
}

async function importPhase(tg: Toolgraph, phases: Phase[], traces: TraceRecord[], fileSize: number): Promise<void> {
  await phase(phases, "import traces", async () => {
    for (let i = 0; i < traces.length; i += fileSize) await tg.importTraces(traces.slice(i, i + fileSize));
  });
}

/** settle → (first time: the weight fits) → calibrate. */
async function learn(tg: Toolgraph, phases: Phase[], first: boolean): Promise<void> {
  await phase(phases, "settle (analytics, intent memory)", () => tg.settle());
  if (first) {
    await phase(phases, "fit next-step weights", () => tg.fitNextStepWeights());
    await phase(phases, "fit search weights", () => tg.fitSearchWeights());
  }
  await phase(phases, "calibrate", () => tg.calibrate());
}

async function runBackend(
  backend: Backend,
  data: SyntheticProject,
  o: Required<Omit<IngestionOptions, "backends" | "log" | "blocksOut">> & {
    log: (s: string) => void;
    blocksOut?: string | undefined;
  },
): Promise<BackendRun> {
  const base = data.traces.slice(0, o.traces);
  const probe = base[base.length - 1]!;
  const h = monitorEventLoopDelay({ resolution: 10 });
  const { tg, cleanup } = await openBenchHome(backend, o.embeddings, SERVER_URL);
  watch = new BlockWatch();
  try {
    const phases: Phase[] = [];
    h.enable();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const atOnce = o.arm === "at-once";
    if (atOnce) {
      tg.answerWhileEmbedding("lexical");
      await phase(phases, "import catalog (rows; embedded later)", () =>
        tg.importCatalog(data.catalog, { embed: false }),
      );
      await importPhase(tg, phases, base, o.fileSize);
    } else {
      await phase(phases, "import catalog (tool embedding)", () => tg.importCatalog(data.catalog));
      await ingest(tg, phases, base, o.fileSize, true);
    }
    const firstAnswer = await phase(
      phases,
      atOnce ? "first answers (search, next step; lexical and graph)" : "first answers (search, next step)",
      () => answers(tg, probe),
    );
    const c = process.cpuUsage(c0);
    const toFirstAnswer = {
      wallMs: performance.now() - t0,
      cpuMs: (c.user + c.system) / 1000,
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      phases,
      eventLoop: delayOf(h),
    };
    let toFullAnswer: BackendRun["toFullAnswer"];
    if (atOnce) {
      const full: Phase[] = [];
      await phase(full, "embed the catalog (prepareSearch)", () => tg.prepareSearch());
      await learn(tg, full, true);
      const answer = await phase(full, "full answers (every channel)", () => answers(tg, probe));
      const cf = process.cpuUsage(c0);
      toFullAnswer = { wallMs: performance.now() - t0, cpuMs: (cf.user + cf.system) / 1000, phases: full, answer };
      o.log(`${backend}: full answer after ${s(toFullAnswer.wallMs)} s wall, ${s(toFullAnswer.cpuMs)} s CPU`);
    }
    h.disable();
    o.log(
      `${backend}: first answer after ${(toFirstAnswer.wallMs / 1000).toFixed(1)} s wall, ${(toFirstAnswer.cpuMs / 1000).toFixed(1)} s CPU`,
    );
    for (const p of phases)
      o.log(
        `  ${p.phase}: ${(p.wallMs / 1000).toFixed(2)} s wall, ${(p.cpuMs / 1000).toFixed(2)} s CPU, longest block ${p.longestBlockMs.toFixed(0)} ms`,
      );
    const increments: BackendRun["increments"] = [];
    for (let k = 0; k < o.increments; k++) {
      const from = o.traces + k * o.increment;
      const batch = data.traces.slice(from, from + o.increment);
      const ps: Phase[] = [];
      h.reset();
      h.enable();
      const c1 = process.cpuUsage();
      const t1 = performance.now();
      await ingest(tg, ps, batch, o.fileSize, false);
      await phase(ps, "answers", () => answers(tg, batch[batch.length - 1]!));
      const cc = process.cpuUsage(c1);
      increments.push({
        traces: batch.length,
        historyBefore: from,
        wallMs: performance.now() - t1,
        cpuMs: (cc.user + cc.system) / 1000,
        phases: ps,
        eventLoop: delayOf(h),
      });
      h.disable();
      o.log(
        `${backend}: +${batch.length} traces on ${from}: ${((performance.now() - t1) / 1000).toFixed(1)} s wall, ${((cc.user + cc.system) / 1e6).toFixed(1)} s CPU`,
      );
      for (const p of ps)
        o.log(
          `  ${p.phase}: ${(p.wallMs / 1000).toFixed(2)} s wall, ${(p.cpuMs / 1000).toFixed(2)} s CPU, longest block ${p.longestBlockMs.toFixed(0)} ms`,
        );
    }
    const st = await tg.stats();
    return {
      backend,
      toFirstAnswer,
      increments,
      stored: { executions: st.executions, steps: st.steps, edges: st.edges },
      firstAnswer,
      ...(toFullAnswer ? { toFullAnswer } : {}),
    };
  } finally {
    watch.stop();
    if (o.blocksOut)
      writeFileSync(
        `${o.blocksOut}.${backend}.json`,
        JSON.stringify({ blocks: watch.blocks, phases: watch.phases }, null, 1),
      );
    watch = undefined;
    h.disable();
    await tg.close().catch(() => undefined);
    await cleanup().catch(() => undefined);
  }
}

export interface IngestionOptions {
  /** Traces before the first answer. Default 17,500. */
  traces?: number;
  /** Tools in the synthetic catalog. Default 2,000. */
  tools?: number;
  /** Traces per `importTraces` call (one transaction each). Default 5,000. */
  fileSize?: number;
  /** Traces per incremental batch. Default 1,000. */
  increment?: number;
  /** Incremental batches after the first answer. Default 3. */
  increments?: number;
  /** Embedding spec. Default "use-lite" (the default a user gets). */
  embeddings?: string;
  /** Generator seed. Default 1. */
  seed?: number;
  /** Backends. Default pglite and postgres. */
  backends?: Backend[];
  log?: (line: string) => void;
  /** Writes the event-loop blocks over 50 ms (phase, ms, monotonic µs bounds) to `<blocksOut>.<backend>.json`. */
  blocksOut?: string;
  /** "wait" (default): every channel before the first answer; "at-once": a server's path (see the header). */
  arm?: "wait" | "at-once";
}

export interface IngestionResult {
  bench: "ingestion";
  command: string;
  code: string;
  machine: string;
  date: string;
  loadAverage: { start: number[]; end: number[] };
  options: Required<Omit<IngestionOptions, "log" | "blocksOut">>;
  data: { tools: number; capabilities: number; traces: number; steps: number; distinctIntents: number };
  runs: BackendRun[];
  targets: { cpuSeconds: number; delayMs: number };
}

export async function runIngestion(options: IngestionOptions = {}): Promise<IngestionResult> {
  const o = {
    traces: options.traces ?? INGESTION_DEFAULTS.traces,
    tools: options.tools ?? INGESTION_DEFAULTS.tools,
    fileSize: options.fileSize ?? INGESTION_DEFAULTS.fileSize,
    increment: options.increment ?? INGESTION_DEFAULTS.increment,
    increments: options.increments ?? INGESTION_DEFAULTS.increments,
    embeddings: options.embeddings ?? INGESTION_DEFAULTS.embeddings,
    seed: options.seed ?? INGESTION_DEFAULTS.seed,
    backends: options.backends ?? (["pglite", "postgres"] as Backend[]),
    arm: options.arm ?? "wait",
    log: options.log ?? ((s: string) => process.stderr.write(`${s}\n`)),
    blocksOut: options.blocksOut,
  };
  const start = loadavg();
  const code = codeVersion();
  const data = generateSyntheticProject({
    tools: o.tools,
    traces: o.traces + o.increment * o.increments,
    seed: o.seed,
  });
  const base = data.traces.slice(0, o.traces);
  const runs: BackendRun[] = [];
  for (const backend of o.backends) {
    try {
      runs.push(await runBackend(backend, data, o));
    } catch (err) {
      o.log(`${backend}: not run: ${(err as Error).stack}`);
      runs.push({
        backend,
        toFirstAnswer: {
          wallMs: 0,
          cpuMs: 0,
          peakRssMiB: 0,
          phases: [],
          eventLoop: { p50: 0, p99: 0, max: 0, over50: 0 },
        },
        increments: [],
        stored: { executions: 0, steps: 0, edges: 0 },
        firstAnswer: { search: [], next: [] },
        error: (err as Error).message,
      });
    }
  }
  const { log: _log, blocksOut: _blocks, ...opts } = o;
  return {
    bench: "ingestion",
    command: `npx tsx bench/ingestion.ts ${process.argv.slice(2).join(" ")}`.trim(),
    code,
    machine: machine(),
    date: new Date().toISOString(),
    loadAverage: { start, end: loadavg() },
    options: opts,
    data: {
      tools: data.catalog.tools.length,
      capabilities: data.catalog.capabilities.length,
      traces: base.length,
      steps: base.reduce((n, t) => n + t.steps.length, 0),
      distinctIntents: new Set(base.map((t) => t.intent)).size,
    },
    runs,
    targets: { cpuSeconds: INGESTION_DEFAULTS.targetCpuSeconds, delayMs: INGESTION_DEFAULTS.targetDelayMs },
  };
}

function bad(arm: string): never {
  throw new Error(`--arm must be "wait" or "at-once", got ${JSON.stringify(arm)}`);
}

function cell(q: Phase | undefined): string {
  return q ? `${s(q.wallMs)} / ${s(q.cpuMs)} / ${q.longestBlockMs.toFixed(0)}` : "";
}

export function formatIngestion(r: IngestionResult): string {
  const ok = r.runs.filter((x) => !x.error);
  const atOnce = r.options.arm === "at-once";
  const out = [
    "# Ingestion to the first answer",
    "",
    `${r.data.tools.toLocaleString("en")} tools (${r.data.capabilities} capabilities), ${r.data.traces.toLocaleString("en")} traces (${r.data.steps.toLocaleString("en")} steps, ${r.data.distinctIntents.toLocaleString("en")} distinct intents), embeddings ${r.options.embeddings}; files of ${r.options.fileSize.toLocaleString("en")} traces. CPU is this process's (worker threads included).`,
    "",
    "## Empty home → first answer",
    "",
    ...(atOnce
      ? [
          "Answered at once: the first answers rank by the lexical and graph channels while the catalog is embedded (the search answer says `degraded: embedding`); the full answer has every channel, the history settled, fitted and calibrated.",
          "",
        ]
      : []),
    markdownTable(
      [
        "backend",
        "wall s",
        "CPU s",
        "peak RSS MiB",
        "event loop p99 / max ms",
        `CPU ≤ ${r.targets.cpuSeconds} s`,
        `max delay ≤ ${r.targets.delayMs} ms`,
        ...(atOnce ? ["first search", "full answer wall / CPU s"] : []),
      ],
      r.runs.map((x) =>
        x.error
          ? [x.backend, `not run: ${x.error}`, "", "", "", "", "", ...(atOnce ? ["", ""] : [])]
          : [
              x.backend,
              s(x.toFirstAnswer.wallMs),
              s(x.toFirstAnswer.cpuMs),
              x.toFirstAnswer.peakRssMiB.toFixed(0),
              `${x.toFirstAnswer.eventLoop.p99.toFixed(0)} / ${x.toFirstAnswer.eventLoop.max.toFixed(0)}`,
              x.toFirstAnswer.cpuMs / 1000 <= r.targets.cpuSeconds ? "PASS" : "FAIL",
              x.toFirstAnswer.eventLoop.max <= r.targets.delayMs ? "PASS" : "FAIL",
              ...(atOnce
                ? [
                    x.firstAnswer.degraded ? `degraded: ${x.firstAnswer.degraded}` : "every channel",
                    x.toFullAnswer ? `${s(x.toFullAnswer.wallMs)} / ${s(x.toFullAnswer.cpuMs)}` : "",
                  ]
                : []),
            ],
      ),
    ),
    "",
    "## Where the time goes (wall s / CPU s / longest event-loop block ms)",
    "",
    markdownTable(
      ["phase", ...ok.map((x) => x.backend)],
      [
        ...(ok[0]?.toFirstAnswer.phases ?? []).map((p, i) => [
          p.phase,
          ...ok.map((x) => cell(x.toFirstAnswer.phases[i])),
        ]),
        ...(ok[0]?.toFullAnswer?.phases ?? []).map((p, i) => [
          `then: ${p.phase}`,
          ...ok.map((x) => cell(x.toFullAnswer?.phases[i])),
        ]),
      ],
    ),
    "",
    "## Incremental batches on top (import → settle → calibrate → answers)",
    "",
    markdownTable(
      [
        "backend",
        "batch",
        "history before",
        "wall s",
        "CPU s",
        "CPU ms per trace",
        "first answer CPU ms per trace",
        "event loop p99 / max ms",
        "phases (CPU s)",
      ],
      ok.flatMap((x) =>
        x.increments.map((b) => [
          x.backend,
          String(b.traces),
          String(b.historyBefore),
          s(b.wallMs),
          s(b.cpuMs),
          (b.cpuMs / b.traces).toFixed(2),
          (x.toFirstAnswer.cpuMs / r.data.traces).toFixed(2),
          `${b.eventLoop.p99.toFixed(0)} / ${b.eventLoop.max.toFixed(0)}`,
          b.phases.map((p) => `${p.phase.replace(/ \(.*\)$/, "")} ${s(p.cpuMs)}`).join(", "),
        ]),
      ),
    ),
  ];
  return `${out.join("\n")}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      traces: { type: "string" },
      tools: { type: "string" },
      "file-size": { type: "string" },
      increment: { type: "string" },
      increments: { type: "string" },
      embeddings: { type: "string" },
      seed: { type: "string" },
      backends: { type: "string" },
      out: { type: "string" },
      "blocks-out": { type: "string" },
      arm: { type: "string" },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const r = await runIngestion({
    traces: num(values.traces),
    tools: num(values.tools),
    fileSize: num(values["file-size"]),
    increment: num(values.increment),
    increments: num(values.increments),
    embeddings: values.embeddings,
    seed: num(values.seed),
    backends: values.backends?.split(",") as Backend[] | undefined,
    blocksOut: values["blocks-out"],
    arm:
      values.arm === "at-once"
        ? "at-once"
        : values.arm === undefined || values.arm === "wait"
          ? "wait"
          : bad(values.arm),
  });
  const name = values.out ?? (values.arm === "at-once" ? "ingestion-at-once" : "ingestion");
  writeResult(name, r);
  const md = formatIngestion(r);
  writeFileSync(join(RESULTS_DIR, `${name}.md`), md);
  process.stdout.write(md);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
