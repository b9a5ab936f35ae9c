/**
 * Fault injection under load (a dropped database connection must not kill the server;
 * docs/decisions/database-timeouts.md): the HTTP server with `--clients` clients recording executions
 * (unique ids) and searching for `--duration` ms, on both backends, alternating the order per round.
 *
 *   npx tsx bench/fault-injection.ts [--rounds 1] [--clients 10] [--duration 9000] [--freeze 15000]
 *                                    [--scenarios restart,frozen,pglite,race] [--race-processes 20]
 *                                    [--race-rounds 100] [--race-record-rounds 4]
 *
 * PostgreSQL (a throwaway cluster, bench/lib/pg-cluster.ts: initdb + pg_ctl on a free port, never the
 * shared server), two scenarios:
 * - restart: every client connection terminated (pg_terminate_backend) at 1.5 s, then the cluster stopped
 *   (fast), down 1 s, and started again at 3 s.
 * - frozen: at 1.5 s the postmaster and every backend get SIGSTOP (connections stay open, nothing is
 *   answered) for `--freeze` ms, then SIGCONT. The server runs with the default database timeouts
 *   (docs/decisions/database-timeouts.md). Reported besides: time from the freeze to the first 503, the
 *   longest wait of the requests already running when it began, the longest wait of a request sent during
 *   it, and /health asked 0.5 s into the freeze (its status and answer time).
 * PGlite: the embedded database runs inside the server process: there is no connection to drop, no server
 * to restart or freeze (its failure mode is the process dying, covered by the kill -9 import tests), so the
 * same load runs without a fault as the peer measurement of the same run.
 *
 * race (bench/lock-race.ts): processes started at one instant on one embedded data directory — the lock alone
 * (rounds with two holders at once: must be 0) and whole `toolgraph record` processes (acknowledged = stored).
 *
 * Reported per run: requests and answers by status, errors during the outage (non-2xx answers from the
 * first fault until the first 2xx after the last one), recovery time (end of the last fault → first 2xx
 * answer sent after it), acknowledged writes vs executions stored (and acknowledged ones missing: must be
 * 0), p50/p95/p99 latency of the 2xx answers. Raw results: bench/results/fault-injection.json (+ .md). The
 * stored count is `stats()`'s; which of the sent ids are stored is asked through the public write path after the
 * load (bench/lib/stored-ids.ts: recording is idempotent by id).
 */
import { loadavg, uptime as osUptime } from "node:os";
import { parseArgs } from "node:util";
import { openToolgraph, startServer } from "../src/index.ts";
import { FAULT_TOOLS, type Fault, faultCatalog, type LoadRecord, runFaultLoad, summarize } from "./lib/fault-load.ts";
import { startCluster } from "./lib/pg-cluster.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";
import { storedAmong } from "./lib/stored-ids.ts";
import { runLockRace } from "./lock-race.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "1" },
    clients: { type: "string", default: "10" },
    duration: { type: "string", default: "9000" },
    freeze: { type: "string", default: "15000" },
    scenarios: { type: "string", default: "restart,frozen,pglite,race" },
    "race-processes": { type: "string", default: "20" },
    "race-rounds": { type: "string", default: "100" },
    "race-record-rounds": { type: "string", default: "4" },
  },
});
type Scenario = "restart" | "frozen" | "pglite";
const wanted = String(values.scenarios).split(",");
const scenarios = wanted.filter((s) => s !== "race") as Scenario[];
const freezeMs = Number(values.freeze);
const rounds = Number(values.rounds);
const clients = Number(values.clients);
const durationMs = Number(values.duration);

function pct(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

function latency(records: LoadRecord[], kind: LoadRecord["kind"]) {
  const d = records.filter((r) => r.kind === kind && r.status >= 200 && r.status < 300).map((r) => r.doneAt - r.sentAt);
  return { n: d.length, p50: pct(d, 50), p95: pct(d, 95), p99: pct(d, 99) };
}

async function runOne(scenario: Scenario) {
  const backend = scenario === "pglite" ? "pglite" : "postgres";
  const cluster = backend === "postgres" ? await startCluster() : undefined;
  const project = `faults-${scenario}`;
  const tg = await openToolgraph(
    !cluster
      ? { home: "memory://", database: "", project, embeddings: "hash:256" }
      : scenario === "frozen"
        ? { database: cluster.url, project, embeddings: "hash:256", poolSize: 6, onConnectionError: () => {} }
        : {
            database: cluster.url,
            project,
            embeddings: "hash:256",
            poolSize: 6,
            connectTimeoutMs: 2000,
            onConnectionError: () => {},
          },
  );
  const logged: string[] = [];
  try {
    await tg.importCatalog(faultCatalog());
    const server = await startServer({ api: tg, port: 0, log: (l) => logged.push(l) });
    let health: { status: number; ms: number } | undefined;
    const faults: Fault[] = !cluster
      ? []
      : scenario === "restart"
        ? [
            { atMs: 1_500, name: "pg_terminate_backend", run: () => cluster.terminateConnections() },
            {
              atMs: 3_000,
              name: "stop + 1 s + start",
              run: async () => {
                await cluster.stop();
                await new Promise((r) => setTimeout(r, 1_000));
                await cluster.start();
              },
            },
          ]
        : [
            {
              atMs: 1_500,
              name: `SIGSTOP ${freezeMs} ms + SIGCONT`,
              run: async () => {
                await cluster.freeze();
                const asked = (async () => {
                  await new Promise((r) => setTimeout(r, 500));
                  const t0 = performance.now();
                  const status = await fetch(`${server.url}/health`, {
                    signal: AbortSignal.timeout(freezeMs * 2),
                  }).then(
                    (r) => r.status,
                    () => 0,
                  );
                  health = { status, ms: performance.now() - t0 };
                })();
                await new Promise((r) => setTimeout(r, freezeMs));
                await cluster.thaw();
                await asked;
              },
            },
          ];
    const load = await runFaultLoad({
      baseUrl: server.url,
      clients,
      durationMs: scenario === "frozen" ? Math.max(durationMs, freezeMs + 3_000) : durationMs,
      faults,
      requestTimeoutMs: scenario === "frozen" ? freezeMs * 2 : 8_000,
    });
    await server.close();
    const s =
      faults.length > 0
        ? summarize(load)
        : {
            ...summarize({ ...load, faults: [{ name: "none", startedAt: Number.POSITIVE_INFINITY, endedAt: 0 }] }),
            errorsDuringOutage: 0,
            recoveryMs: null,
          };
    const storedExecutions = (await tg.stats({ project })).executions;
    const stored = await storedAmong(tg, [...s.acknowledged, ...s.unacknowledged], { tool: FAULT_TOOLS[0], project });
    const missing = s.acknowledged.filter((id) => !stored.has(id));
    let frozen:
      | {
          timeTo503Ms: number | null;
          inFlightMaxWaitMs: number | null;
          sentDuringMaxWaitMs: number | null;
          health: typeof health;
        }
      | undefined;
    if (scenario === "frozen") {
      const f = load.faults[0]!;
      const first503 = load.records
        .filter((x) => x.status === 503 && x.doneAt >= f.startedAt)
        .reduce((m, x) => Math.min(m, x.doneAt), Number.POSITIVE_INFINITY);
      const inFlight = load.records
        .filter((x) => x.sentAt < f.startedAt && x.doneAt > f.startedAt)
        .map((x) => x.doneAt - f.startedAt);
      const during = load.records
        .filter((x) => x.sentAt >= f.startedAt && x.sentAt < f.endedAt)
        .map((x) => x.doneAt - x.sentAt);
      frozen = {
        timeTo503Ms: Number.isFinite(first503) ? first503 - f.startedAt : null,
        inFlightMaxWaitMs: inFlight.length > 0 ? Math.max(...inFlight) : null,
        sentDuringMaxWaitMs: during.length > 0 ? Math.max(...during) : null,
        health,
      };
    }
    return {
      scenario,
      backend,
      faults: load.faults,
      requests: s.requests,
      byStatus: s.byStatus,
      byCode: s.byCode,
      unexpectedAnswers: s.unexpected,
      unavailableWithoutRetryAfter: s.unavailableWithoutRetryAfter,
      errorsDuringOutage: s.errorsDuringOutage,
      recoveryMs: s.recoveryMs,
      acknowledgedWrites: s.acknowledged.length,
      storedExecutions,
      acknowledgedMissing: missing.length,
      unacknowledgedButStored: s.unacknowledged.filter((id) => stored.has(id)).length,
      internalErrorsLogged: logged.filter((l) => l.includes("internal error")).length,
      latencyMs: { record: latency(load.records, "record"), search: latency(load.records, "search") },
      ...(frozen ? { frozen } : {}),
    };
  } finally {
    await tg.close();
    await cluster?.dispose();
  }
}

const loadBefore = loadavg();
const runs: (Awaited<ReturnType<typeof runOne>> & { round: number })[] = [];
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? scenarios : [...scenarios].reverse();
  for (const sc of order) {
    const res = await runOne(sc);
    runs.push({ ...res, round: r });
    const fz = res.frozen
      ? `, first 503 after ${res.frozen.timeTo503Ms?.toFixed(0) ?? "–"} ms, running requests answered within ${res.frozen.inFlightMaxWaitMs?.toFixed(0) ?? "–"} ms`
      : "";
    process.stderr.write(
      `round ${r} ${sc}: ${res.requests} requests, ${res.errorsDuringOutage} errors during the outage${fz}, recovery ${res.recoveryMs?.toFixed(0) ?? "–"} ms, acknowledged ${res.acknowledgedWrites} / stored ${res.storedExecutions}\n`,
    );
  }
}
const race = wanted.includes("race")
  ? await runLockRace({
      processes: Number(values["race-processes"]),
      rounds: Number(values["race-rounds"]),
      recordRounds: Number(values["race-record-rounds"]),
    })
  : undefined;
if (race)
  process.stderr.write(
    `race: ${race.lock.overlaps} overlaps in ${race.lock.rounds} rounds; record ${race.record.map((r) => `${r.acknowledged}=${r.stored}`).join(", ")}\n`,
  );
const result = {
  bench: "fault-injection",
  machine: machine(),
  at: new Date().toISOString(),
  loadavg: { before: loadBefore, after: loadavg() },
  uptimeS: osUptime(),
  options: { rounds, clients, durationMs, freezeMs, scenarios },
  note: `PostgreSQL on a throwaway cluster. restart: pg_terminate_backend at 1.5 s, stop + 1 s down + start at 3 s. frozen: SIGSTOP of the postmaster and every backend at 1.5 s for ${freezeMs} ms, then SIGCONT (default database timeouts). PGlite runs in-process: no connection to drop or server to restart or freeze, so it is the same load without a fault (the peer measurement of the same run).`,
  runs,
  ...(race ? { race } : {}),
};
const path = writeResult("fault-injection", result);
const table = markdownTable(
  [
    "round",
    "scenario",
    "requests",
    "2xx",
    "503",
    "other",
    "errors during outage",
    "recovery ms",
    "acknowledged",
    "stored",
    "ack. missing",
    "record p50/p95/p99 ms",
    "search p50/p95/p99 ms",
  ],
  runs.map((r) => {
    const ok = Object.entries(r.byStatus)
      .filter(([k]) => k.startsWith("2"))
      .reduce((a, [, v]) => a + v, 0);
    const l = (x: { p50: number | null; p95: number | null; p99: number | null }) =>
      [x.p50, x.p95, x.p99].map((v) => (v === null ? "–" : v.toFixed(1))).join(" / ");
    return [
      r.round,
      r.scenario,
      r.requests,
      ok,
      r.byStatus["503"] ?? 0,
      r.unexpectedAnswers,
      r.errorsDuringOutage,
      r.recoveryMs === null ? "–" : r.recoveryMs.toFixed(0),
      r.acknowledgedWrites,
      r.storedExecutions,
      r.acknowledgedMissing,
      l(r.latencyMs.record),
      l(r.latencyMs.search),
    ].map(String);
  }),
);
const frozenRuns = runs.filter((r) => r.frozen);
const ms = (v: number | null | undefined) => (v === null || v === undefined ? "–" : v.toFixed(0));
const frozenTable =
  frozenRuns.length === 0
    ? ""
    : `\n\nFrozen server (SIGSTOP ${freezeMs} ms): when the doors answered.\n\n${markdownTable(
        [
          "round",
          "first 503 after freeze ms",
          "running requests answered within ms",
          "longest wait of a request sent while frozen ms",
          "/health while frozen",
          "recovery after SIGCONT ms",
          "acknowledged = stored",
        ],
        frozenRuns
          .map((r) => [
            r.round,
            ms(r.frozen!.timeTo503Ms),
            ms(r.frozen!.inFlightMaxWaitMs),
            ms(r.frozen!.sentDuringMaxWaitMs),
            r.frozen!.health ? `${r.frozen!.health.status} in ${ms(r.frozen!.health.ms)} ms` : "–",
            ms(r.recoveryMs),
            `${r.acknowledgedWrites} = ${r.storedExecutions - r.unacknowledgedButStored} (${r.acknowledgedMissing} missing)`,
          ])
          .map((row) => row.map(String)),
      )}`;
const raceTable = race
  ? `\n\nConcurrent start on one embedded data directory: ${race.lock.processes} processes × ${race.lock.rounds} rounds on the lock — ${race.lock.overlaps} rounds with two holders at once, ${race.lock.refusalsNamingHolder} of ${race.lock.refusals} refusals naming the holder (${(race.lock.wallMs / 1000).toFixed(1)} s). Whole \`toolgraph record\` processes started together (a stale lock file before every other round):\n\n${markdownTable(
      [
        "round",
        "processes",
        "exit 0",
        "exit 4",
        "other exit",
        "acknowledged",
        "stored",
        "acknowledged missing",
        "stored unacknowledged",
      ],
      race.record.map((r, i) =>
        [i, r.processes, r.exit0, r.exit4, r.other, r.acknowledged, r.stored, r.missing, r.extra].map(String),
      ),
    )}`
  : "";
const md = `# Fault injection\n\n${result.note}\n\n${result.machine}; load average ${loadBefore.map((x) => x.toFixed(2)).join(", ")} before.\n\n${table}${frozenTable}${raceTable}\n`;
const { writeFileSync } = await import("node:fs");
writeFileSync(path.replace(/\.json$/, ".md"), md);
process.stdout.write(md);
