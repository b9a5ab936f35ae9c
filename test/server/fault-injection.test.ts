/**
 * A dropped database connection must not kill the server (issue 21, item 1), tested for real: a throwaway
 * PostgreSQL cluster (initdb + pg_ctl under a temp dir, a free port; never the shared server), an HTTP
 * server in this process over it, 10 clients recording executions with unique ids and searching, and
 * mid-load: every connection terminated (pg_terminate_backend), then a stop and a start of the cluster.
 * Asserted: this process is alive and answers again once the cluster is back; during the outage requests
 * get 503 database-unreachable with Retry-After (never a 500, never a dropped connection); every
 * acknowledged (2xx) execution is stored exactly once, with all its steps; an unacknowledged one is either
 * absent or complete; the edge counters equal those of a clean import of exactly the stored executions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openToolgraph, type Toolgraph } from "../../src/api/toolgraph.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { faultCatalog, faultExecution, runFaultLoad, summarize } from "../helpers/fault-load.ts";
import { type PgCluster, startCluster } from "../helpers/pg-cluster.ts";

const PROJECT = "faults";
let cluster: PgCluster;
let tg: Toolgraph;
let server: ServerHandle;
const logged: string[] = [];
const errorsBefore = { uncaught: process.listeners("uncaughtException").length };

beforeAll(async () => {
  cluster = await startCluster();
  tg = await openToolgraph({ database: cluster.url, project: PROJECT, embeddings: "hash:256", poolSize: 6, connectTimeoutMs: 2000, onConnectionError: (e) => logged.push(e.message) });
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
    const ref = await openToolgraph({ database: cluster.url, project: `${PROJECT}-ref`, embeddings: "hash:256", poolSize: 2 });
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
    const edges = await cluster.query<{ project: string; from_tool: string; to_tool: string; dep: string; seq: string }>(
      "SELECT project, from_tool, to_tool, dep_count::text AS dep, seq_count::text AS seq FROM edges WHERE project IN ($1, $2) ORDER BY from_tool, to_tool",
      [PROJECT, `${PROJECT}-ref`],
    );
    const strip = (p: string) => edges.filter((e) => e.project === p).map(({ project: _, ...e }) => e);
    expect(strip(PROJECT)).toEqual(strip(`${PROJECT}-ref`));
    expect(strip(PROJECT).length).toBeGreaterThan(0);

    // The library's own process handlers were never (re)installed by the load.
    expect(process.listeners("uncaughtException").length).toBe(errorsBefore.uncaught);
  }, 45_000);
});
