/**
 * A frozen PostgreSQL server (SIGSTOP of the postmaster and every backend of a throwaway cluster: connections
 * stay open, nothing answers) must turn into 503 database-unreachable on every door while it is frozen, not
 * into requests that wait for the thaw; the process recovers by itself after SIGCONT, and nothing
 * acknowledged is lost or half-written. Also: a statement slower than the liveness check on a live server is
 * not cut; one over statement_timeout is a 503 and rolled back; `serve` started while the server is down
 * starts, answers 503 with Retry-After, and recovers (migrating a fresh database) once the server is up.
 *
 * The timeouts are set short here (connect 1 s, liveness check after 0.5 s, statement 3 s) so that a freeze
 * of 8 s tells "answered while frozen" from "answered after the thaw" with a wide margin; the defaults
 * are measured by bench/fault-injection.ts (docs/decisions/database-timeouts.md).
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { faultCatalog, faultExecution, runFaultLoad, summarize } from "../../bench/lib/fault-load.ts";
import { type PgCluster, startCluster } from "../../bench/lib/pg-cluster.ts";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { importExecutions, validateExecution } from "../../src/jobs/import.ts";
import { engineOf, openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";
import { callTool, ERROR_META_KEY, MCP_TOOLS } from "../../src/mcp/mcp-server.ts";
import { type ServerHandle, startServer } from "../../src/server/http-server.ts";
import { auditStored } from "../helpers/stored-executions.ts";

const PROJECT = "frozen";
const TIMEOUTS = { connectTimeoutMs: 1000, livenessCheckAfterMs: 500, statementTimeoutMs: 3000 };
const FREEZE_MS = 8000;
let cluster: PgCluster;
let tg: Toolgraph;
let server: ServerHandle;
const logged: string[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  cluster = await startCluster();
  tg = await openToolgraph({
    database: cluster.url,
    project: PROJECT,
    embeddings: "hash:256",
    poolSize: 6,
    ...TIMEOUTS,
    onConnectionError: (e) => logged.push(e.message),
  });
  await tg.importCatalog(faultCatalog());
  server = await startServer({ api: tg, port: 0, log: (l) => logged.push(l), warmUp: false });
}, 60_000);

afterAll(async () => {
  await cluster?.thaw();
  await server?.close();
  await tg?.close();
  await cluster?.dispose();
}, 60_000);

async function waitForHealth(url: string, status: number): Promise<number> {
  let got = 0;
  for (let i = 0; i < 150 && got !== status; i++) {
    got = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (got !== status) await sleep(100);
  }
  return got;
}

function expectUnreachable(err: unknown): void {
  expect(err).toBeInstanceOf(ToolgraphError);
  expect((err as ToolgraphError).code).toBe("database-unreachable");
}

describe("a frozen PostgreSQL server", () => {
  it("every door answers 503 database-unreachable while it is frozen; it recovers after the thaw; acknowledged = stored", async () => {
    let thawed = false;
    // When every process of the cluster was stopped, on the load's clock (runFaultLoad starts it on call).
    let frozenAt = Number.NaN;
    let loadT0 = 0;
    const doors: Record<string, { status?: number; code?: string; retryAfter?: string | null; beforeThaw: boolean }> =
      {};
    loadT0 = performance.now();
    const load = await runFaultLoad({
      baseUrl: server.url,
      clients: 6,
      durationMs: 4_000,
      tailMs: 3_000,
      requestTimeoutMs: 20_000,
      faults: [
        {
          atMs: 1_500,
          name: `freeze ${FREEZE_MS} ms`,
          run: async () => {
            expect(await cluster.freeze()).toBeGreaterThan(1);
            frozenAt = performance.now() - loadT0;
            // Every door at once (each may wait its bound), asked once the freeze has settled in.
            const checks = sleep(300).then(() =>
              Promise.all([
                (async () => {
                  const h = await fetch(`${server.url}/health`);
                  doors.health = {
                    status: h.status,
                    code: ((await h.json()) as { error?: { code: string } }).error?.code,
                    retryAfter: h.headers.get("retry-after"),
                    beforeThaw: !thawed,
                  };
                })(),
                (async () => {
                  const r = await fetch(`${server.url}/ready`);
                  doors.ready = { status: r.status, retryAfter: r.headers.get("retry-after"), beforeThaw: !thawed };
                })(),
                (async () => {
                  const spec = MCP_TOOLS.find((t) => t.name === "record_execution")!;
                  const m = await callTool(tg, spec, faultExecution(97, 1, "2026-11-01T12:00:00Z") as never);
                  doors.mcp = {
                    code: (m._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code,
                    beforeThaw: !thawed,
                  };
                })(),
                (async () => {
                  const mh = await fetch(`${server.url}/mcp`, {
                    method: "POST",
                    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
                    body: JSON.stringify({
                      jsonrpc: "2.0",
                      id: 1,
                      method: "tools/call",
                      params: { name: "record_execution", arguments: faultExecution(97, 2, "2026-11-01T12:00:00Z") },
                    }),
                  });
                  const body = (await mh.json()) as {
                    result?: { isError?: boolean; _meta?: Record<string, { code?: string }> };
                  };
                  doors.mcpHttp = {
                    status: mh.status,
                    code: body.result?.isError ? body.result._meta?.[ERROR_META_KEY]?.code : "not an error",
                    beforeThaw: !thawed,
                  };
                })(),
              ]),
            );
            await sleep(FREEZE_MS);
            thawed = true;
            await cluster.thaw();
            await checks;
          },
        },
      ],
    });
    const s = summarize(load);
    const freeze = load.faults[0]!;
    expect(freeze.error).toBeUndefined();

    // Every door answered while the server was frozen, with the unreachable error and Retry-After.
    expect(doors.health).toEqual({ status: 503, code: "database-unreachable", retryAfter: "1", beforeThaw: true });
    expect(doors.ready).toEqual({ status: 503, retryAfter: "1", beforeThaw: true });
    expect(doors.mcp).toEqual({ code: "database-unreachable", beforeThaw: true });
    expect(doors.mcpHttp).toEqual({ status: 200, code: "database-unreachable", beforeThaw: true });

    // No request went unanswered; only 2xx and 503 database-unreachable, each 503 with Retry-After.
    expect(s.byStatus["0"] ?? 0).toBe(0);
    expect(s.unexpected, JSON.stringify({ byStatus: s.byStatus, byCode: s.byCode })).toBe(0);
    expect(s.unavailableWithoutRetryAfter).toBe(0);
    // Requests running when the freeze began, and those sent in its first half, were answered before the thaw
    // (the freeze lasts FREEZE_MS; with these timeouts an answer comes within about 1.5 s, 3 s after a stall).
    const running = load.records.filter((x) => x.sentAt < freeze.startedAt && x.doneAt > freeze.startedAt);
    const early = load.records.filter((x) => x.sentAt >= frozenAt && x.sentAt <= frozenAt + FREEZE_MS / 2);
    expect(early.length).toBeGreaterThan(0);
    for (const x of [...running, ...early]) expect(x.doneAt, JSON.stringify(x)).toBeLessThan(freeze.endedAt);
    // Writes need the server; a search may still be answered from memory (cached answers and read model).
    expect(early.filter((x) => x.kind === "record" && x.status !== 503)).toEqual([]);

    // Back by itself.
    expect(s.recoveryMs).not.toBeNull();
    expect(await waitForHealth(server.url, 200)).toBe(200);
    expect(logged.filter((l) => l.includes("internal error"))).toEqual([]);

    // Acknowledged = stored, complete, nothing half-applied.
    const audit = await auditStored(cluster, PROJECT, load.records, s.acknowledged);
    expect(s.acknowledged.length).toBeGreaterThan(0);
    expect(audit.acknowledgedMissing).toEqual([]);
    expect(audit.incomplete).toEqual([]);
    expect(audit.orphanSteps).toBe(0);
    expect(audit.edgesMatch).toBe(true);
  }, 90_000);

  it("a write cut by a freeze inside its transaction is rolled back, and the project's writes go on after the thaw", async () => {
    const ex = faultExecution(96, 1, "2026-11-01T12:00:00Z");
    const cut = importExecutions(
      engineOf(tg).db,
      PROJECT,
      [
        { line: 1, value: validateExecution({ ...ex, id: "frozen-1" }) },
        { line: 2, value: validateExecution({ ...ex, id: "frozen-2" }) },
      ],
      "cut",
      {
        // Inside the import's transaction, its rows written and the project row locked: the server freezes.
        withinTransaction: async (trx) => {
          await cluster.freeze();
          await sql`SELECT 1`.execute(trx);
        },
      },
    );
    const err = await cut.then(
      () => undefined,
      (e: unknown) => e,
    );
    await cluster.thaw();
    expectUnreachable(err);
    expect(
      await cluster.query("SELECT id FROM executions WHERE project = $1 AND id LIKE 'frozen-%'", [PROJECT]),
    ).toEqual([]);
    expect(
      await cluster.query("SELECT 1 FROM execution_steps WHERE project = $1 AND execution_id LIKE 'frozen-%'", [
        PROJECT,
      ]),
    ).toEqual([]);
    // The cut transaction held the project row; once the server read the closed connection it let go.
    const ok = await tg.recordExecution({ ...ex, id: "frozen-after" });
    expect((ok as { inserted: number }).inserted).toBe(1);
  }, 60_000);
});

describe("a slow statement on a live server", () => {
  it("longer than the liveness check: not cut (the server answers the check); committed", async () => {
    const ex = faultExecution(95, 1, "2026-11-01T12:00:00Z");
    const r = await importExecutions(
      engineOf(tg).db,
      PROJECT,
      [
        { line: 1, value: validateExecution({ ...ex, id: "slow-ok-1" }) },
        { line: 2, value: validateExecution({ ...ex, id: "slow-ok-2" }) },
      ],
      "slow",
      {
        withinTransaction: async (trx) => {
          await sql`SELECT pg_sleep(1.5)`.execute(trx);
        },
      },
    );
    expect(r.inserted).toBe(2);
    expect(
      (
        await cluster.query("SELECT id FROM executions WHERE project = $1 AND id LIKE 'slow-ok-%' ORDER BY id", [
          PROJECT,
        ])
      ).map((x) => x.id),
    ).toEqual(["slow-ok-1", "slow-ok-2"]);
  }, 30_000);

  it("over statement_timeout: database-unreachable, the transaction rolled back, the pool still usable", async () => {
    const ex = faultExecution(94, 1, "2026-11-01T12:00:00Z");
    const err = await importExecutions(
      engineOf(tg).db,
      PROJECT,
      [
        { line: 1, value: validateExecution({ ...ex, id: "slow-cut-1" }) },
        { line: 2, value: validateExecution({ ...ex, id: "slow-cut-2" }) },
      ],
      "slow",
      {
        withinTransaction: async (trx) => {
          await sql`SELECT pg_sleep(4)`.execute(trx);
        },
      },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expectUnreachable(err);
    expect((err as Error).message).toMatch(/statement timeout/);
    expect(
      await cluster.query("SELECT id FROM executions WHERE project = $1 AND id LIKE 'slow-cut-%'", [PROJECT]),
    ).toEqual([]);
    expect(((await tg.recordExecution({ ...ex, id: "slow-after" })) as { inserted: number }).inserted).toBe(1);
  }, 30_000);
});

describe("serve with the database down at start", () => {
  it("starts, answers 503 with Retry-After (not ready), and recovers when the database comes up", async () => {
    await cluster.query("CREATE DATABASE later");
    const url = cluster.url.replace(/\/postgres$/, "/later");
    await cluster.stop();
    const child = spawn(
      process.execPath,
      ["src/cli/toolgraph.mjs", "serve", "--port", "0", "--database", url, "--json"],
      {
        env: {
          ...process.env,
          DATABASE_URL: "",
          TOOLGRAPH_EMBEDDINGS: "hash:256",
          TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "1000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const first = await Promise.race([
        new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
        exited.then((code) => `exited ${code}: ${stderr}`),
      ]);
      const base = (JSON.parse(first) as { listening: string }).listening;
      expect(stderr).toMatch(/database is unreachable/);

      const h = await fetch(`${base}/health`);
      expect(h.status).toBe(503);
      expect(h.headers.get("retry-after")).toBe("1");
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get("retry-after")).toBe("1");
      const search = await fetch(`${base}/v1/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent: "fetch a page" }),
      });
      expect(search.status).toBe(503);
      expect(search.headers.get("retry-after")).toBe("1");
      expect(((await search.json()) as { error: { code: string } }).error.code).toBe("database-unreachable");

      await cluster.start();
      expect(await waitForHealth(base, 200)).toBe(200);
      // The fresh database was migrated by the first statement that reached it.
      const imported = await fetch(`${base}/v1/import/catalog`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(faultCatalog()),
      });
      expect(imported.status).toBe(200);
      const found = await fetch(`${base}/v1/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ intent: "fetch a page" }),
      });
      expect(found.status).toBe(200);
      // The warm-up that failed at start runs again: ready without a restart.
      let readyStatus = 0;
      for (let i = 0; i < 150 && readyStatus !== 200; i++) {
        readyStatus = (await fetch(`${base}/ready`)).status;
        if (readyStatus !== 200) await sleep(100);
      }
      expect(readyStatus).toBe(200);
      expect(
        (await cluster.query<{ n: string }>("SELECT count(*) AS n FROM pg_database WHERE datname = 'later'"))[0]!.n,
      ).toBe("1");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 90_000);
});
