/**
 * Load check of the HTTP server: N concurrent keep-alive clients for S seconds, a mix of search / next /
 * record requests over loopback, against a real server process on the embedded database and on the
 * PostgreSQL server. Reports requests/s, p50/p95/p99 latency and errors per operation, then checks that
 * every execution the clients recorded is in the database (no lost writes).
 *
 *   npx tsx bench/load.ts [--clients 50] [--seconds 30] [--backend pglite|postgres|both] [--traces 600]
 *                         [--embeddings hash:256] [--max-requests 2000000] [--mix 50:30:20]
 *
 * --mix gives the relative weights of search : next : record (default 50:30:20).
 *
 * The server runs in a child process (this file with --child) so the load generator does not share its event
 * loop; the child serves through runServer and shuts down gracefully on SIGTERM. PostgreSQL: the URL comes
 * from TOOLGRAPH_BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each run uses a fresh
 * schema (search_path) and drops it afterwards. Bounded: the run stops at the deadline or after
 * --max-requests, every request has a 10 s timeout, and the child is killed if it does not exit.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import pg from "pg";
import { mulberry32 } from "../algorithms/random/rng.ts";
import { DEMO_CAPABILITIES, demoCatalog, demoTraces } from "../src/demo/index.ts";
import { openToolgraph, runServer } from "../src/index.ts";

const NOW = Date.parse("2026-11-01T12:00:00Z");
const PROJECT = "load";
const TOKEN = randomBytes(16).toString("hex");
const REQUEST_TIMEOUT_MS = 10_000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

function intArg(name: string, fallback: number, min: number, max: number): number {
  const v = Number(arg(name, String(fallback)));
  if (!Number.isInteger(v) || v < min || v > max)
    throw new Error(`bench/load: --${name} must be an integer from ${min} to ${max}, got ${arg(name, "")}`);
  return v;
}

// ---------------------------------------------------------------- child: the server
async function child(): Promise<void> {
  const database = arg("database", "");
  const api = await openToolgraph({
    home: "memory://",
    database,
    project: PROJECT,
    embeddings: arg("embeddings", "hash:256"),
  });
  await api.importCatalog(demoCatalog());
  await api.importTraces(demoTraces(intArg("traces", 600, 0, 100_000), 42, NOW));
  await runServer({
    api,
    port: 0,
    token: arg("token", ""),
    log: (line) => process.stderr.write(`${line}\n`),
    onListening: (a) => process.stdout.write(`${JSON.stringify({ port: a.port })}\n`),
  });
}

// ---------------------------------------------------------------- parent: the clients
type Op = "search" | "next" | "record";

interface Sample {
  op: Op;
  ms: number;
  ok: boolean;
}

interface RunResult {
  backend: string;
  seconds: number;
  samples: Sample[];
  errors: string[];
  recorded: number;
  executionsBefore: number;
  executionsAfter: number;
  directCount: number | undefined;
}

function startChild(args: string[]): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--child", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += String(d)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`bench/load: the server did not start within 120 s\n${stderr}`));
    }, 120_000);
    const lines = createInterface({ input: proc.stdout! });
    lines.once("line", (line) => {
      clearTimeout(timer);
      resolve({ proc, port: (JSON.parse(line) as { port: number }).port });
    });
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`bench/load: the server exited (${code}) before listening\n${stderr}`));
    });
  });
}

function stopChild(proc: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    const kill = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    proc.once("exit", (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    proc.kill("SIGTERM");
  });
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-toolgraph-project": PROJECT,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function runLoad(
  backend: string,
  base: string,
  clients: number,
  seconds: number,
  maxRequests: number,
  mix: [number, number, number],
): Promise<Omit<RunResult, "executionsBefore" | "executionsAfter" | "directCount">> {
  const intents = DEMO_CAPABILITIES.flatMap((c) => c.intents);
  const contexts = DEMO_CAPABILITIES.flatMap((c) =>
    c.workflow.slice(0, -1).map((_, i) => c.workflow.slice(0, i + 1).map((w) => w.tool)),
  );
  const templates = demoTraces(500, 7, NOW);
  const samples: Sample[] = [];
  const errors: string[] = [];
  let recorded = 0;
  let issued = 0;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const runId = randomBytes(3).toString("hex");

  async function client(c: number): Promise<void> {
    const rng = mulberry32(1000 + c);
    let i = 0;
    while (performance.now() < deadline && issued < maxRequests) {
      issued++;
      const r = rng();
      const total = mix[0] + mix[1] + mix[2];
      const op: Op = r < mix[0] / total ? "search" : r < (mix[0] + mix[1]) / total ? "next" : "record";
      const start = performance.now();
      let ok = false;
      try {
        let res: { status: number; json: any };
        if (op === "search")
          res = await call(base, "POST", "/v1/search", {
            intent: intents[Math.floor(rng() * intents.length)]!,
            limit: 5,
          });
        else if (op === "next")
          res = await call(base, "POST", "/v1/next", {
            context: contexts[Math.floor(rng() * contexts.length)]!,
            limit: 5,
          });
        else {
          const t = templates[Math.floor(rng() * templates.length)]!;
          res = await call(base, "POST", "/v1/executions", { ...t, id: `load-${runId}-${c}-${i++}` });
          if (res.status === 200 && res.json.inserted === 1) recorded++;
        }
        ok = res.status === 200;
        if (!ok && errors.length < 10) errors.push(`${op}: ${res.status} ${JSON.stringify(res.json).slice(0, 200)}`);
      } catch (err) {
        if (errors.length < 10) errors.push(`${op}: ${(err as Error).message}`);
      }
      samples.push({ op, ms: performance.now() - start, ok });
    }
  }

  await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
  return { backend, seconds: (performance.now() - t0) / 1000, samples, errors, recorded };
}

function pct(sorted: number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function rows(r: RunResult): string[] {
  const out: string[] = [];
  for (const op of ["search", "next", "record", "all"] as const) {
    const s = r.samples.filter((x) => op === "all" || x.op === op);
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    const errs = s.filter((x) => !x.ok).length;
    out.push(
      `| ${r.backend} | ${op} | ${s.length} | ${(s.length / r.seconds).toFixed(0)} | ${pct(ms, 0.5).toFixed(1)} | ${pct(ms, 0.95).toFixed(1)} | ${pct(ms, 0.99).toFixed(1)} | ${errs} |`,
    );
  }
  return out;
}

async function runBackend(
  backend: "pglite" | "postgres",
  o: {
    clients: number;
    seconds: number;
    traces: number;
    embeddings: string;
    maxRequests: number;
    mix: [number, number, number];
  },
): Promise<RunResult> {
  let database = "";
  let dropSchema: (() => Promise<void>) | undefined;
  let countDirect: (() => Promise<number>) | undefined;
  if (backend === "postgres") {
    const serverUrl = process.env.TOOLGRAPH_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
    const schema = `tg_load_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.searchParams.set("options", `-c search_path=${schema}`);
    database = url.toString();
    countDirect = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      const r = await c.query(`SELECT count(*)::int AS n FROM ${schema}.executions WHERE project = $1`, [PROJECT]);
      await c.end();
      return r.rows[0].n as number;
    };
    dropSchema = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    };
  }
  const { proc, port } = await startChild([
    "--database",
    database,
    "--token",
    TOKEN,
    "--traces",
    String(o.traces),
    "--embeddings",
    o.embeddings,
  ]);
  try {
    const base = `http://127.0.0.1:${port}`;
    const before = await call(base, "GET", "/v1/stats");
    // Warm-up: the first search builds the index and analytics.
    await call(base, "POST", "/v1/search", { intent: "warm up", limit: 1 });
    await call(base, "POST", "/v1/next", { context: ["git.status"], limit: 1 });
    const r = await runLoad(backend, base, o.clients, o.seconds, o.maxRequests, o.mix);
    const after = await call(base, "GET", "/v1/stats");
    const code = await stopChild(proc);
    if (code !== 0) r.errors.push(`server exited with code ${code} after SIGTERM`);
    const directCount = countDirect ? await countDirect() : undefined;
    return {
      ...r,
      executionsBefore: Number(before.json.executions),
      executionsAfter: Number(after.json.executions),
      directCount,
    };
  } finally {
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await dropSchema?.();
  }
}

async function parent(): Promise<void> {
  const clients = intArg("clients", 50, 1, 1000);
  const seconds = intArg("seconds", 30, 1, 600);
  const traces = intArg("traces", 600, 0, 100_000);
  const maxRequests = intArg("max-requests", 2_000_000, 1, 100_000_000);
  const embeddings = arg("embeddings", "hash:256");
  const which = arg("backend", "both");
  const mixText = arg("mix", "50:30:20");
  const mix = mixText.split(":").map(Number);
  if (mix.length !== 3 || mix.some((x) => !Number.isFinite(x) || x < 0) || mix[0]! + mix[1]! + mix[2]! <= 0) {
    throw new Error(`bench/load: --mix must be three non-negative weights search:next:record, got ${mixText}`);
  }
  if (!["pglite", "postgres", "both"].includes(which))
    throw new Error(`bench/load: --backend must be pglite, postgres or both, got ${which}`);
  const backends = which === "both" ? (["pglite", "postgres"] as const) : ([which] as ("pglite" | "postgres")[]);
  const results: RunResult[] = [];
  for (const b of backends) {
    process.stderr.write(`bench/load: ${b}: ${clients} clients for ${seconds} s…\n`);
    results.push(
      await runBackend(b, { clients, seconds, traces, embeddings, maxRequests, mix: mix as [number, number, number] }),
    );
  }
  console.log(
    `\nLoad: ${clients} concurrent clients, ${seconds} s per backend, mix search:next:record ${mixText}, embeddings ${embeddings}, ${traces} demo traces; latency in ms.\n`,
  );
  console.log("| backend | op | requests | req/s | p50 | p95 | p99 | errors |");
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of results) for (const line of rows(r)) console.log(line);
  console.log(
    "\n| backend | recorded (HTTP 200, inserted) | executions before | after | expected after | direct count | lost writes |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  let bad = false;
  for (const r of results) {
    const expected = r.executionsBefore + r.recorded;
    const stored = r.directCount ?? r.executionsAfter;
    const lost = expected - stored;
    if (lost !== 0 || r.executionsAfter !== expected || r.samples.some((s) => !s.ok) || r.errors.length > 0) bad = true;
    console.log(
      `| ${r.backend} | ${r.recorded} | ${r.executionsBefore} | ${r.executionsAfter} | ${expected} | ${r.directCount ?? "n/a (in-memory, via /v1/stats)"} | ${lost} |`,
    );
  }
  for (const r of results) for (const e of r.errors) console.log(`- ${r.backend}: ${e}`);
  console.log(bad ? "\nFAILED: errors or lost writes (see above)" : "\nOK: no errors, no lost writes");
  process.exitCode = bad ? 1 : 0;
}

if (process.argv.includes("--child")) await child();
else await parent();
