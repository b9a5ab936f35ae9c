/**
 * Ingestion throughput: ~100k steps of synthetic traces (2,000 tools) imported through
 * `tg.importTraces(array)` in files of 5,000 executions (one transaction per file, like the CLI), on the
 * embedded PGlite (a temporary data directory on disk, what users get) and on the PostgreSQL server
 * (a fresh schema, dropped at the end). Reports steps/s, executions/s, seconds, the per-file times, the
 * stored counts checked against what was sent (no lost writes), and where the time goes: every SQL
 * statement is timed (pg.Client#query, used by both backends) and grouped by statement (verb + table);
 * what remains is JavaScript (validation, edge learning, row building).
 *
 *   npx tsx bench/ingest.ts [--steps 100000] [--tools 2000] [--file-size 5000] [--seed 1]
 *                           [--backends pglite,postgres] [--cpu-profile]
 *
 * Target on the server: ≥ 20,000 steps/s. The catalog import (not timed in the throughput) comes first.
 * PostgreSQL: TOOLGRAPH_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 */
import { Session } from "node:inspector/promises";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import pg from "pg";
import type { Toolgraph } from "../src/index.ts";
import type { TraceRecord } from "./convert/common.ts";
import { openBenchHome } from "./ingestion.ts";
import { machine, markdownTable, percentiles, progress, writeResult } from "./lib/report.ts";
import { generateSyntheticProject, type SyntheticProject } from "./synthetic/generate.ts";

export const SERVER_URL = process.env.TOOLGRAPH_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export type IngestBackend = "pglite" | "postgres";

export interface IngestOptions {
  /** Steps to import (the trace prefix reaching this many). Default 100,000. */
  steps?: number;
  /** Tools in the synthetic catalog. Default 2,000. */
  tools?: number;
  /** Executions per file (one transaction each). Default 5,000. */
  fileSize?: number;
  /** Generator seed. Default 1. */
  seed?: number;
  /** Backends to run. Default ["pglite", "postgres"]. */
  backends?: IngestBackend[];
  /** PostgreSQL URL. Default TOOLGRAPH_BENCH_DATABASE_URL or the local test database. */
  serverUrl?: string;
  /** Sample a CPU profile during each timed import and report the top functions by self time. Default false. */
  cpuProfile?: boolean;
  /** Progress lines (stderr by default). */
  log?: (line: string) => void;
}

export const INGEST_DEFAULTS = {
  steps: 100_000,
  tools: 2_000,
  fileSize: 5_000,
  seed: 1,
  targetStepsPerSecond: 20_000,
} as const;

export interface StatementProfile {
  statement: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  /** Share of the timed import wall time. */
  share: number;
}

export interface BackendResult {
  backend: IngestBackend;
  location: string;
  catalogMs: number;
  files: number;
  seconds: number;
  stepsPerSecond: number;
  executionsPerSecond: number;
  fileMs: { p50: number; max: number; first: number; last: number };
  sent: { executions: number; steps: number };
  stored: { executions: number; steps: number; toolStatExecutions: number; edges: number; graphVersion: number };
  noLostWrites: boolean;
  profile: StatementProfile[];
  /** Import wall time not spent waiting on SQL (validation, edge learning, row building), ms. */
  outsideSqlMs: number;
  /** With cpuProfile: the top functions and files (packages) by self time (sampled) during the timed import. */
  hotFunctions?: { fn: string; selfMs: number }[];
  hotFiles?: { file: string; selfMs: number }[];
  error?: string;
}

export interface IngestResult {
  machine: string;
  startedAt: string;
  loadAverage: number[];
  options: { steps: number; tools: number; fileSize: number; seed: number; traces: number; stepsSent: number };
  backends: BackendResult[];
  target: {
    backend: "postgres";
    stepsPerSecond: number;
    measured: number | null;
    verdict: "PASS" | "FAIL" | "not run";
  };
}

/** Traces from one synthetic project, the shortest prefix with ≥ `steps` steps. */
export function tracesForSteps(
  tools: number,
  steps: number,
  seed: number,
): { project: SyntheticProject; traces: TraceRecord[]; steps: number } {
  let guess = Math.ceil(steps / 5) + 100;
  for (;;) {
    const project = generateSyntheticProject({ tools, traces: guess, seed });
    let total = 0;
    let k = 0;
    while (k < project.traces.length && total < steps) total += project.traces[k++]!.steps.length;
    if (total >= steps || guess > steps) return { project, traces: project.traces.slice(0, k), steps: total };
    guess *= 2;
  }
}

/** Statement key: verb + table ("insert edges", "select tools", "begin"). */
export function statementKey(text: string): string {
  const s = text.trim().toLowerCase();
  const w = /^(insert into|update|delete from)\s+"?([\w.]+)"?/.exec(s);
  if (w) return `${w[1]!.split(" ")[0]} ${w[2]}`;
  if (s.startsWith("select") || s.startsWith("with")) {
    const f = /\bfrom\s+"?([\w.]+)"?/.exec(s);
    return `select ${f?.[1] ?? "(expression)"}`;
  }
  return s.split(/\s+/)[0] ?? "(empty)";
}

type QueryFn = (...args: unknown[]) => unknown;

/** Times every pg.Client#query (call to settle) while `active` is true, grouped by statementKey. */
export class StatementTimer {
  active = false;
  readonly byKey = new Map<string, { calls: number; ms: number }>();
  private original: QueryFn | undefined;

  install(): void {
    const proto = pg.Client.prototype as unknown as { query: QueryFn };
    const original = proto.query;
    this.original = original;
    const self = this;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const first = args[0];
      const text = typeof first === "string" ? first : ((first as { text?: string } | null)?.text ?? "");
      const t0 = performance.now();
      const result = original.apply(this, args);
      if (!self.active || !(result instanceof Promise)) return result;
      const key = statementKey(text);
      return result.finally(() => {
        const slot = self.byKey.get(key) ?? { calls: 0, ms: 0 };
        slot.calls++;
        slot.ms += performance.now() - t0;
        self.byKey.set(key, slot);
      });
    };
  }

  uninstall(): void {
    if (this.original) (pg.Client.prototype as unknown as { query: QueryFn }).query = this.original;
  }

  reset(): void {
    this.byKey.clear();
  }
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time per function (name + file:line) and per file, the top `limit` of each, in ms. */
export function selfTimes(
  profile: CpuProfile,
  limit: number,
): { functions: { fn: string; selfMs: number }[]; files: { file: string; selfMs: number }[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => {
    const n = byId.get(id);
    if (!n) return;
    const f = n.callFrame;
    const ms = (deltas[i] ?? 0) / 1000;
    const file = f.url
      .replace(/^file:\/\//, "")
      .replace(/^.*\/node_modules\//, "node_modules/")
      .replace(/^\/work\/main\//, "");
    const fn = `${f.functionName || "(anonymous)"} ${file.split("/").slice(-2).join("/")}`.trim();
    fns.set(fn, (fns.get(fn) ?? 0) + ms);
    const key =
      file === ""
        ? f.functionName || "(native)"
        : file.startsWith("node_modules/")
          ? file
              .split("/")
              .slice(0, file.split("/")[1]!.startsWith("@") ? 3 : 2)
              .join("/")
          : file;
    files.set(key, (files.get(key) ?? 0) + ms);
  });
  const top = <K extends string>(m: Map<string, number>, k: K) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, selfMs]) => ({ [k]: name, selfMs }) as Record<K, string> & { selfMs: number });
  return { functions: top(fns, "fn"), files: top(files, "file") };
}

async function storedCounts(tg: Toolgraph): Promise<BackendResult["stored"]> {
  const st = await tg.stats();
  // Each tool's stored execution count (tool_stats), summed: the public graph view reads them from the database.
  const graph = await tg.graph();
  return {
    executions: st.executions,
    steps: st.steps,
    toolStatExecutions: graph.nodes.reduce((sum, n) => sum + n.executions, 0),
    edges: st.edges,
    graphVersion: st.graphVersion,
  };
}

/** The ingest bench's home: hash:64 embeddings (not timed here), project "ingest". */
function openBackend(
  backend: IngestBackend,
  serverUrl: string,
): Promise<{ tg: Toolgraph; cleanup: () => Promise<void> }> {
  return openBenchHome(backend, "hash:64", serverUrl, "ingest");
}

async function runBackend(
  backend: IngestBackend,
  data: { project: SyntheticProject; traces: TraceRecord[]; steps: number },
  o: { fileSize: number; serverUrl: string; cpuProfile: boolean; log: (s: string) => void },
  timer: StatementTimer,
): Promise<BackendResult> {
  const { tg, cleanup } = await openBackend(backend, o.serverUrl);
  let closed = false;
  try {
    let t0 = performance.now();
    await tg.importCatalog(data.project.catalog, { embed: false });
    const catalogMs = performance.now() - t0;
    const fileMs: number[] = [];
    timer.reset();
    const session = o.cpuProfile ? new Session() : undefined;
    if (session) {
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.start");
    }
    timer.active = true;
    t0 = performance.now();
    const files = Math.ceil(data.traces.length / o.fileSize);
    for (let f = 0; f < files; f++) {
      const part = data.traces.slice(f * o.fileSize, (f + 1) * o.fileSize);
      const t = performance.now();
      await tg.importTraces(part);
      fileMs.push(performance.now() - t);
      progress(`${backend} files`, f + 1, files);
    }
    const wallMs = performance.now() - t0;
    timer.active = false;
    let hot: ReturnType<typeof selfTimes> | undefined;
    if (session) {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      hot = selfTimes(profile, 15);
    }
    const stored = await storedCounts(tg);
    const sqlMs = [...timer.byKey.values()].reduce((t, x) => t + x.ms, 0);
    const profile = [...timer.byKey.entries()]
      .map(([statement, x]) => ({
        statement,
        calls: x.calls,
        totalMs: x.ms,
        meanMs: x.ms / x.calls,
        share: x.ms / wallMs,
      }))
      .sort((a, b) => b.totalMs - a.totalMs);
    const sent = { executions: data.traces.length, steps: data.steps };
    const seconds = wallMs / 1000;
    const location = tg.database().location;
    closed = true;
    await tg.close();
    const fp = percentiles(fileMs);
    o.log(`${backend}: ${(sent.steps / seconds).toFixed(0)} steps/s`);
    return {
      backend,
      location,
      catalogMs,
      files,
      seconds,
      stepsPerSecond: sent.steps / seconds,
      executionsPerSecond: sent.executions / seconds,
      fileMs: { p50: fp.p50, max: Math.max(...fileMs), first: fileMs[0]!, last: fileMs[fileMs.length - 1]! },
      sent,
      stored,
      noLostWrites:
        stored.executions === sent.executions &&
        stored.steps === sent.steps &&
        stored.toolStatExecutions === sent.steps,
      profile,
      outsideSqlMs: wallMs - sqlMs,
      ...(hot ? { hotFunctions: hot.functions, hotFiles: hot.files } : {}),
    };
  } finally {
    timer.active = false;
    if (!closed) await tg.close().catch(() => undefined);
    await cleanup().catch(() => undefined);
  }
}

/** Runs the ingestion bench on each backend; returns the results (no files written, no stdout). */
export async function runIngest(options: IngestOptions = {}): Promise<IngestResult> {
  const o = {
    steps: options.steps ?? INGEST_DEFAULTS.steps,
    tools: options.tools ?? INGEST_DEFAULTS.tools,
    fileSize: options.fileSize ?? INGEST_DEFAULTS.fileSize,
    seed: options.seed ?? INGEST_DEFAULTS.seed,
    backends: options.backends ?? (["pglite", "postgres"] as IngestBackend[]),
    serverUrl: options.serverUrl ?? SERVER_URL,
    cpuProfile: options.cpuProfile ?? false,
    log: options.log ?? ((s: string) => process.stderr.write(`${s}\n`)),
  };
  const startedAt = new Date().toISOString();
  const data = tracesForSteps(o.tools, o.steps, o.seed);
  o.log(`generated ${data.traces.length} traces, ${data.steps} steps over ${o.tools} tools`);
  const timer = new StatementTimer();
  timer.install();
  const results: BackendResult[] = [];
  try {
    for (const backend of o.backends) {
      try {
        results.push(await runBackend(backend, data, o, timer));
      } catch (err) {
        o.log(`${backend}: not run: ${(err as Error).message}`);
        results.push({
          backend,
          location: "",
          catalogMs: 0,
          files: 0,
          seconds: 0,
          stepsPerSecond: 0,
          executionsPerSecond: 0,
          fileMs: { p50: 0, max: 0, first: 0, last: 0 },
          sent: { executions: data.traces.length, steps: data.steps },
          stored: { executions: 0, steps: 0, toolStatExecutions: 0, edges: 0, graphVersion: 0 },
          noLostWrites: false,
          profile: [],
          outsideSqlMs: 0,
          error: (err as Error).message,
        });
      }
    }
  } finally {
    timer.uninstall();
  }
  const server = results.find((r) => r.backend === "postgres" && !r.error);
  const target = INGEST_DEFAULTS.targetStepsPerSecond;
  return {
    machine: machine(),
    startedAt,
    loadAverage: loadavg(),
    options: {
      steps: o.steps,
      tools: o.tools,
      fileSize: o.fileSize,
      seed: o.seed,
      traces: data.traces.length,
      stepsSent: data.steps,
    },
    backends: results,
    target: {
      backend: "postgres",
      stepsPerSecond: target,
      measured: server ? server.stepsPerSecond : null,
      verdict: server ? (server.stepsPerSecond >= target ? "PASS" : "FAIL") : "not run",
    },
  };
}

export function formatIngest(r: IngestResult): string {
  const out = [
    `Machine: ${r.machine} (load average ${r.loadAverage.map((x) => x.toFixed(2)).join(" / ")})`,
    `${r.options.traces.toLocaleString("en")} executions, ${r.options.stepsSent.toLocaleString("en")} steps, ${r.options.tools.toLocaleString("en")} tools, files of ${r.options.fileSize.toLocaleString("en")} executions (one transaction each).`,
    "",
    markdownTable(
      [
        "backend",
        "steps/s",
        "executions/s",
        "seconds",
        "file p50 s",
        "file max s",
        "catalog s",
        "executions stored/sent",
        "steps stored/sent",
        "tool_stats Σ executions",
        "edges",
        "no lost writes",
      ],
      r.backends.map((b) =>
        b.error
          ? [b.backend, `not run: ${b.error}`, "", "", "", "", "", "", "", "", "", ""]
          : [
              b.backend,
              String(Math.round(b.stepsPerSecond)),
              String(Math.round(b.executionsPerSecond)),
              b.seconds.toFixed(2),
              (b.fileMs.p50 / 1000).toFixed(2),
              (b.fileMs.max / 1000).toFixed(2),
              (b.catalogMs / 1000).toFixed(2),
              `${b.stored.executions}/${b.sent.executions}`,
              `${b.stored.steps}/${b.sent.steps}`,
              String(b.stored.toolStatExecutions),
              String(b.stored.edges),
              b.noLostWrites ? "yes" : "NO",
            ],
      ),
    ),
    "",
    `Target on the PostgreSQL server: ≥ ${r.target.stepsPerSecond.toLocaleString("en")} steps/s → ${r.target.measured === null ? "not run" : `${Math.round(r.target.measured).toLocaleString("en")} steps/s`}: ${r.target.verdict}`,
  ];
  for (const b of r.backends) {
    if (b.error) continue;
    out.push(
      "",
      `Where the time goes (${b.backend}, ${b.seconds.toFixed(2)} s):`,
      "",
      markdownTable(
        ["statement", "calls", "total ms", "mean ms", "share of wall"],
        [
          ...b.profile.map((p) => [
            p.statement,
            String(p.calls),
            p.totalMs.toFixed(0),
            p.meanMs.toFixed(2),
            `${(100 * p.share).toFixed(1)} %`,
          ]),
          [
            "(outside SQL: JS)",
            "",
            b.outsideSqlMs.toFixed(0),
            "",
            `${((100 * b.outsideSqlMs) / (1000 * b.seconds)).toFixed(1)} %`,
          ],
        ],
      ),
    );
    if (b.hotFunctions && b.hotFiles) {
      out.push(
        "",
        `Self time by file or package (${b.backend}, sampled CPU profile; "(idle)" = waiting on the database):`,
        "",
        markdownTable(
          ["file", "self ms"],
          b.hotFiles.map((h) => [h.file, h.selfMs.toFixed(0)]),
        ),
      );
      out.push(
        "",
        `Top functions by self time (${b.backend}):`,
        "",
        markdownTable(
          ["function", "self ms"],
          b.hotFunctions.map((h) => [h.fn, h.selfMs.toFixed(0)]),
        ),
      );
    }
  }
  return out.join("\n");
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function intArg(name: string, fallback: number, min: number): number {
  const v = arg(name);
  if (v === undefined) return fallback;
  const x = Number(v.replace(/_/g, ""));
  if (!Number.isInteger(x) || x < min)
    throw new Error(`bench/ingest: --${name} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return x;
}

async function main(): Promise<void> {
  const b = arg("backends");
  const backends = b === undefined ? undefined : b.split(",").map((x) => x.trim());
  for (const x of backends ?? [])
    if (x !== "pglite" && x !== "postgres")
      throw new Error(`bench/ingest: --backends takes pglite,postgres, got ${JSON.stringify(x)}`);
  const r = await runIngest({
    steps: intArg("steps", INGEST_DEFAULTS.steps, 1),
    tools: intArg("tools", INGEST_DEFAULTS.tools, 8),
    fileSize: intArg("file-size", INGEST_DEFAULTS.fileSize, 1),
    seed: intArg("seed", INGEST_DEFAULTS.seed, 0),
    cpuProfile: process.argv.includes("--cpu-profile"),
    ...(backends ? { backends: backends as IngestBackend[] } : {}),
  });
  process.stdout.write(`${formatIngest(r)}\n\n`);
  process.stdout.write(`wrote ${writeResult("ingest", r)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
