/**
 * A dropped database connection must not kill the server (docs/decisions/database-timeouts.md), tested for real: a
 * throwaway PostgreSQL cluster (initdb + pg_ctl under a temp dir, a free port; never the shared server), an HTTP
 * server in this process over it, 10 clients recording executions with unique ids and searching, and mid-load: every
 * connection terminated (pg_terminate_backend), then a stop and a start of the cluster. Asserted: this process is
 * alive and answers again once the cluster is back; during the outage requests get 503 database-unreachable with
 * Retry-After (never a 500, never a dropped connection); every acknowledged (2xx) execution is stored exactly once,
 * with all its steps; an unacknowledged one is either absent or complete; the edge counters equal those of a clean
 * import of exactly the stored executions.
 */

import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultCatalog, faultExecution, runFaultLoad, summarize } from "../../bench/lib/fault-load.ts";
import { type PgCluster, startCluster } from "../../bench/lib/pg-cluster.ts";
import { main } from "../../src/cli/main.ts";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { importExecutions, validateExecution } from "../../src/jobs/import.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { isConnectionError } from "../../src/store/connection.ts";

const PROJECT = "faults";
let cluster: PgCluster;
let tg: Toolgraph;
let server: ServerHandle;
const logged: string[] = [];
const errorsBefore = { uncaught: process.listeners("uncaughtException").length };

beforeAll(async () => {
  cluster = await startCluster();
  tg = await openToolgraph({
    database: cluster.url,
    project: PROJECT,
    embeddings: "hash:256",
    poolSize: 6,
    connectTimeoutMs: 2000,
    onConnectionError: (e) => logged.push(e.message),
  });
  await tg.importCatalog(faultCatalog());
  server = await startServer({ api: tg, port: 0, log: (l) => logged.push(l) });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await tg?.close();
  await cluster?.dispose();
}, 60_000);

describe("fault injection on a throwaway PostgreSQL cluster", () => {
  it("survives terminated connections and a cluster stop/start under load, and loses or half-stores nothing", async () => {
    const load = await runFaultLoad({
      baseUrl: server.url,
      clients: 10,
      durationMs: 9_000,
      requestTimeoutMs: 8_000,
      faults: [
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
      ],
    });
    const s = summarize(load);
    // The faults really ran.
    expect(load.faults.map((f) => f.error)).toEqual([undefined, undefined]);

    // Alive and answering: a fresh request after the load is served.
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(s.recoveryMs).not.toBeNull();

    // Only 2xx and 503 database-unreachable, each 503 with Retry-After; the outage was seen.
    expect(s.unexpected, JSON.stringify({ byStatus: s.byStatus, byCode: s.byCode })).toBe(0);
    expect(s.unavailableWithoutRetryAfter).toBe(0);
    expect(s.byCode["database-unreachable"] ?? 0).toBeGreaterThan(0);
    expect(s.acknowledged.length).toBeGreaterThan(0);
    // No internal error was logged.
    expect(logged.filter((l) => l.includes("internal error"))).toEqual([]);

    // Stored exactly once, complete; unacknowledged ones absent or complete.
    const rows = await cluster.query<{ id: string; step_count: number; steps: string }>(
      `SELECT e.id, e.step_count, (SELECT count(*) FROM execution_steps s WHERE s.project = e.project AND s.execution_id = e.id) AS steps
         FROM executions e WHERE e.project = $1`,
      [PROJECT],
    );
    const stored = new Map(rows.map((r) => [r.id, r]));
    expect(stored.size).toBe(rows.length);
    const stepsOf = new Map(load.records.filter((x) => x.kind === "record").map((x) => [x.id!, x.steps!]));
    for (const id of s.acknowledged) {
      expect(stored.has(id), `acknowledged ${id} is stored`).toBe(true);
    }
    for (const r of rows) {
      expect(Number(r.steps), `steps of ${r.id}`).toBe(stepsOf.get(r.id));
      expect(r.step_count).toBe(stepsOf.get(r.id));
    }
    const orphanSteps = await cluster.query<{ n: string }>(
      "SELECT count(*) AS n FROM execution_steps s WHERE s.project = $1 AND NOT EXISTS (SELECT 1 FROM executions e WHERE e.project = s.project AND e.id = s.execution_id)",
      [PROJECT],
    );
    expect(Number(orphanSteps[0]!.n)).toBe(0);

    // The edge counters are exactly those of a clean import of the stored executions (no half-applied write).
    const ref = await openToolgraph({
      database: cluster.url,
      project: `${PROJECT}-ref`,
      embeddings: "hash:256",
      poolSize: 2,
    });
    try {
      await ref.importCatalog(faultCatalog(), { embed: false });
      const executions = [...stored.keys()].map((id) => {
        const [, w, n] = /^w(\d+)-n(\d+)$/.exec(id)!;
        return faultExecution(Number(w), Number(n), "2026-11-01T12:00:00Z");
      });
      if (executions.length > 0) await ref.importTraces(executions);
    } finally {
      await ref.close();
    }
    const edges = await cluster.query<{
      project: string;
      from_tool: string;
      to_tool: string;
      dep: string;
      seq: string;
    }>(
      "SELECT project, from_tool, to_tool, dep_count::text AS dep, seq_count::text AS seq FROM edges WHERE project IN ($1, $2) ORDER BY from_tool, to_tool",
      [PROJECT, `${PROJECT}-ref`],
    );
    const strip = (p: string) => edges.filter((e) => e.project === p).map(({ project: _, ...e }) => e);
    expect(strip(PROJECT)).toEqual(strip(`${PROJECT}-ref`));
    expect(strip(PROJECT).length).toBeGreaterThan(0);

    // The library's own process handlers were never (re)installed by the load.
    expect(process.listeners("uncaughtException").length).toBe(errorsBefore.uncaught);
  }, 45_000);

  it("a transaction cut mid-way is rolled back and reported as database-unreachable; the next one succeeds", async () => {
    const ex = faultExecution(99, 1, "2026-11-01T12:00:00Z");
    const cut = importExecutions(
      engineOf(tg).db,
      PROJECT,
      [
        { line: 1, value: validateExecution({ ...ex, id: "cut-1" }) },
        { line: 2, value: validateExecution({ ...ex, id: "cut-2" }) },
      ],
      "cut",
      {
        // Runs inside the import's transaction after its rows are written: the backend is killed before COMMIT.
        withinTransaction: async (trx) => {
          await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(trx);
        },
      },
    );
    const err = await cut.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ToolgraphError);
    expect((err as ToolgraphError).code).toBe("database-unreachable");
    const rows = await cluster.query("SELECT id FROM executions WHERE project = $1 AND id LIKE 'cut-%'", [PROJECT]);
    expect(rows).toEqual([]);
    const steps = await cluster.query(
      "SELECT 1 FROM execution_steps WHERE project = $1 AND execution_id LIKE 'cut-%'",
      [PROJECT],
    );
    expect(steps).toEqual([]);
    // The same engine writes again at once (a new pooled connection).
    const ok = await tg.recordExecution({ ...ex, id: "cut-after" });
    expect((ok as { inserted: number }).inserted).toBe(1);
  }, 30_000);

  it("while the cluster is down: HTTP 503 + Retry-After, MCP isError, CLI exit 4; back without a restart of the process", async () => {
    await cluster.stop();
    try {
      const h = await fetch(`${server.url}/health`);
      expect(h.status).toBe(503);
      expect(h.headers.get("retry-after")).toBe("1");
      const r = await fetch(`${server.url}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(faultExecution(98, 1, "2026-11-01T12:00:00Z")),
      });
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBe("1");
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe("database-unreachable");

      const spec = MCP_TOOLS.find((t) => t.name === "record_execution")!;
      const m = await callTool(tg, spec, faultExecution(98, 2, "2026-11-01T12:00:00Z") as never);
      expect(m.isError).toBe(true);
      expect((m._meta![ERROR_META_KEY] as { code: string }).code).toBe("database-unreachable");

      const lines: string[] = [];
      const code = await main(["stats", "--database", cluster.url, "--json"], {
        out: (l) => lines.push(l),
        err: () => {},
      });
      expect(code).toBe(4);
      expect(JSON.parse(lines.at(-1)!).error.code).toBe("database-unreachable");
    } finally {
      await cluster.start();
    }
    // Recovers by itself: poll /health (bounded) until it answers 200.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await fetch(`${server.url}/health`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    const s = await fetch(`${server.url}/v1/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ intent: "fetch a page" }),
    });
    expect(s.status).toBe(200);
  }, 30_000);
});

describe("isConnectionError", () => {
  const e = (code: string | undefined, message = "x") => Object.assign(new Error(message), code ? { code } : {});
  it.each([
    ["ECONNREFUSED", true, e("ECONNREFUSED")],
    ["ECONNRESET", true, e("ECONNRESET")],
    ["57P01 admin_shutdown", true, e("57P01", "terminating connection due to administrator command")],
    ["57P03 starting up", true, e("57P03")],
    ["08006 connection failure", true, e("08006")],
    ["Connection terminated unexpectedly", true, e(undefined, "Connection terminated unexpectedly")],
    ["not queryable", true, e(undefined, "Client has encountered a connection error and is not queryable")],
    ["pool connect timeout", true, e(undefined, "timeout exceeded when trying to connect")],
    [
      "AggregateError of refusals",
      true,
      Object.assign(new AggregateError([e("ECONNREFUSED"), e("ECONNREFUSED")], ""), {}),
    ],
    ["23505 unique violation", false, e("23505")],
    ["42601 syntax error", false, e("42601")],
    ["22P05 untranslatable character", false, e("22P05")],
    ["plain error", false, new Error("boom")],
    ["ToolgraphError invalid-input", false, new ToolgraphError("invalid-input", "x")],
  ])("%s → %s", (_name, expected, err) => {
    expect(isConnectionError(err)).toBe(expected);
  });
});
