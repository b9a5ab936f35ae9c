/**
 * The database timeouts (docs/decisions/database-timeouts.md): how they are resolved (option, environment,
 * default; a bad value names its source), which errors count as "the database did not answer", and the
 * embedded database's bound: a request waits for its one connection at most connectTimeoutMs, then gets
 * database-unreachable, while the work holding the connection completes untouched.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import {
  CONNECTION_DEFAULTS,
  type Connection,
  isConnectionError,
  openConnection,
  resolveTimeouts,
} from "../../src/store/connection.ts";
import { UnansweredStatement } from "../../src/store/statement-watch.ts";
import { SERVER_URL, SKIP_SERVER } from "../helpers/backends.ts";

describe("resolveTimeouts", () => {
  it("takes the defaults when nothing is set", () => {
    expect(resolveTimeouts({}, {})).toEqual({
      connectTimeoutMs: 2000,
      statementTimeoutMs: 30_000,
      idleInTransactionTimeoutMs: 60_000,
      livenessCheckAfterMs: 1000,
    });
    expect(CONNECTION_DEFAULTS.statementGraceMs).toBe(2000);
    // The embedded database waits longer for its one connection (queued behind other requests, not a server).
    expect(resolveTimeouts({}, {}, "pglite").connectTimeoutMs).toBe(10_000);
    expect(resolveTimeouts({}, { TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "500" }, "pglite").connectTimeoutMs).toBe(500);
  });

  it("an option beats its environment variable, which beats the default", () => {
    const env = { TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "750", TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS: "0" };
    expect(resolveTimeouts({}, env)).toMatchObject({ connectTimeoutMs: 750, statementTimeoutMs: 0 });
    expect(resolveTimeouts({ connectTimeoutMs: 1200, statementTimeoutMs: 9000 }, env)).toMatchObject({
      connectTimeoutMs: 1200,
      statementTimeoutMs: 9000,
    });
    expect(resolveTimeouts({}, { TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "" })).toMatchObject({ connectTimeoutMs: 2000 });
  });

  it.each([
    [{}, { TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "3s" }, "TOOLGRAPH_DB_CONNECT_TIMEOUT_MS"],
    [{}, { TOOLGRAPH_DB_CONNECT_TIMEOUT_MS: "0" }, "TOOLGRAPH_DB_CONNECT_TIMEOUT_MS"],
    [{}, { TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS: "-5" }, "TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS"],
    [{ statementTimeoutMs: 1.5 }, {}, "statementTimeoutMs"],
    [{ livenessCheckAfterMs: -1 }, {}, "livenessCheckAfterMs"],
  ])("refuses %j %j, naming %s", (options, env, field) => {
    let err: unknown;
    try {
      resolveTimeouts(options, env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolgraphError);
    expect((err as ToolgraphError).code).toBe("invalid-input");
    expect((err as ToolgraphError).details?.field).toBe(field);
    expect((err as Error).message).toContain(field);
  });
});

describe("isConnectionError: the database did not answer in time", () => {
  const e = (code: string, message = "x") => Object.assign(new Error(message), { code });
  it.each([
    ["57014 statement timeout", true, e("57014", "canceling statement due to statement timeout")],
    [
      "25P03 idle in transaction timeout",
      true,
      e("25P03", "terminating connection due to idle-in-transaction timeout"),
    ],
    ["an abandoned statement", true, new UnansweredStatement("no answer")],
    ["40001 serialization failure", false, e("40001")],
  ])("%s → %s", (_name, expected, err) => {
    expect(isConnectionError(err)).toBe(expected);
  });
});

describe("the embedded database's one connection", () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await openConnection({ home: "memory://", database: "", connectTimeoutMs: 300 });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
  });

  it("a request waits for it at most connectTimeoutMs, then gets database-unreachable; the holder's work commits untouched", async () => {
    await sql`CREATE TABLE held (n int)`.execute(conn.db);
    let letGo!: () => void;
    const holding = new Promise<void>((r) => {
      letGo = r;
    });
    let inside!: () => void;
    const entered = new Promise<void>((r) => {
      inside = r;
    });
    const holder = conn.db.transaction().execute(async (trx) => {
      await sql`INSERT INTO held VALUES (1)`.execute(trx);
      inside();
      await holding;
      await sql`INSERT INTO held VALUES (2)`.execute(trx);
    });
    await entered;
    const err = await sql`SELECT count(*) FROM held`.execute(conn.db).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(ToolgraphError);
    expect((err as ToolgraphError).code).toBe("database-unreachable");
    expect((err as Error).message).toMatch(/embedded database stayed busy for 300 ms/);
    letGo();
    await holder;
    const rows = await sql<{ n: number }>`SELECT n FROM held ORDER BY n`.execute(conn.db);
    expect(rows.rows.map((r) => r.n)).toEqual([1, 2]);
  }, 30_000);
});

describe.skipIf(SKIP_SERVER)("a stalled event loop is not blamed on the server", () => {
  it("a connection the server answered while this process was busy is not failed as a connect timeout", async () => {
    const conn = await openConnection({ database: SERVER_URL, migrate: false, connectTimeoutMs: 500 });
    try {
      // The pool has no connection yet: this statement opens one, and the process then blocks for 3× the bound.
      const answer = sql<{ one: number }>`SELECT 1 AS one`.execute(conn.db);
      // Let the connect start (kysely reaches pool.connect() after a few microtasks), then stall.
      await new Promise((r) => setImmediate(r));
      const until = performance.now() + 1500;
      while (performance.now() < until) {
        // synchronous work (an analytics pass, a big JSON parse) or a process starved of CPU
      }
      expect((await answer).rows).toEqual([{ one: 1 }]);
    } finally {
      await conn.close();
    }
  }, 30_000);
});
