import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ToolgraphError } from "../../src/contract/errors.ts";
import { openConnection } from "../../src/store/connection.ts";
import { embeddedThread, PGliteWorker, READ_SLICE_BYTES } from "../../src/store/pglite-worker.ts";

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), "tg-pglite-worker-"));
  dirs.push(d);
  return join(d, "home");
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the embedded database on a worker thread", () => {
  it("answers concurrent statements each with its own result, in order, across large rows", async () => {
    const db = await PGliteWorker.open("memory://");
    const pool = new pg.Pool(db.poolConfig());
    pool.on("error", () => {});
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 30 }), async (texts) => {
          const got = await Promise.all(
            texts.map((t, i) =>
              pool.query<{ i: number; t: string }>("SELECT $1::int AS i, $2::text AS t", [i, t.replace(/\0/g, "")]),
            ),
          );
          expect(got.map((r) => r.rows[0])).toEqual(texts.map((t, i) => ({ i, t: t.replace(/\0/g, "") })));
        }),
        { numRuns: 20 },
      );
      // A reply larger than PGlite's 1 MiB receive buffer and a statement split over many writes.
      const big = await pool.query<{ n: number }>(
        "SELECT length(repeat('x', 3000000)) AS n, repeat('y', 3000000) AS s",
      );
      expect(big.rows[0]!.n).toBe(3_000_000);
      const err = await pool.query("SELECT * FROM no_such_table").catch((e: Error) => e);
      expect((err as Error).message).toMatch(/no_such_table/);
      expect((await pool.query<{ x: number }>("SELECT 1 AS x")).rows[0]!.x).toBe(1);
    } finally {
      await pool.end();
      await db.close();
    }
  });

  it("hands a reply larger than READ_SLICE_BYTES to node-postgres in slices over several turns, whole and in order", async () => {
    const db = await PGliteWorker.open("memory://");
    const pool = new pg.Pool(db.poolConfig());
    pool.on("error", () => {});
    try {
      const client = await pool.connect();
      try {
        // 2,000 rows of 300 characters: about 10 slices. A counter ticks once per turn of the event loop.
        let turns = 0;
        let ticking = true;
        const tick = () => {
          turns++;
          if (ticking) setImmediate(tick);
        };
        setImmediate(tick);
        const rowTurns: number[] = [];
        const rows: { i: number; s: string }[] = [];
        const text = "SELECT i, repeat(chr(65 + i % 26), 300) AS s FROM generate_series(1, 2000) AS i ORDER BY i";
        await new Promise<void>((resolve, reject) => {
          const q = client.query(new pg.Query(text));
          q.on("row", (row: { i: number; s: string }) => {
            rows.push(row);
            rowTurns.push(turns);
          });
          q.on("end", () => resolve());
          q.on("error", reject);
        });
        ticking = false;
        expect(2000 * 300).toBeGreaterThan(8 * READ_SLICE_BYTES);
        expect(rows.map((r) => r.i)).toEqual(Array.from({ length: 2000 }, (_, k) => k + 1));
        expect(rows.every((r) => r.s === String.fromCharCode(65 + (r.i % 26)).repeat(300))).toBe(true);
        // Parsed over at least 8 turns (the rows of one slice in one turn).
        expect(rowTurns.at(-1)! - rowTurns[0]!).toBeGreaterThanOrEqual(8);
        // The next statement on the same connection still gets its own answer.
        expect((await client.query<{ x: number }>("SELECT 7 AS x")).rows[0]!.x).toBe(7);
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
      await db.close();
    }
  });

  it("a connection dropped inside a transaction leaves nothing of it for the next connection", async () => {
    const db = await PGliteWorker.open("memory://");
    const pool = new pg.Pool(db.poolConfig());
    pool.on("error", () => {});
    try {
      await pool.query("CREATE TABLE t (x int)");
      const c = await pool.connect();
      c.on("error", () => {});
      await c.query("BEGIN");
      await c.query("INSERT INTO t VALUES (1), (2)");
      c.release(true); // destroys the connection mid-transaction
      const next = await pool.connect();
      try {
        expect((await next.query<{ n: string }>("SELECT count(*) AS n FROM t")).rows[0]!.n).toBe("0");
        // Not inside the dropped transaction: this BEGIN/COMMIT is a transaction of its own.
        await next.query("BEGIN");
        await next.query("INSERT INTO t VALUES (3)");
        await next.query("COMMIT");
        expect((await next.query<{ n: string }>("SELECT count(*) AS n FROM t")).rows[0]!.n).toBe("1");
      } finally {
        next.release();
      }
    } finally {
      await pool.end();
      await db.close();
    }
  });

  it("a crashed worker fails the statement as database-unreachable, then a data directory opens again with its data", async () => {
    const home = freshDir();
    const conn = await openConnection({ home, onConnectionError: () => {} });
    try {
      await sql`CREATE TABLE kept (x int)`.execute(conn.db);
      await sql`INSERT INTO kept VALUES (7)`.execute(conn.db);
      const worker = (conn.embedded as PGliteWorker).worker;
      // The statement is in flight when the thread dies: it must fail, not hang.
      const inFlight = sql`SELECT pg_sleep(2)`.execute(conn.db);
      await new Promise((r) => setTimeout(r, 100));
      await worker.terminate();
      const err = await inFlight.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ToolgraphError);
      expect((err as ToolgraphError).code).toBe("database-unreachable");
      // A new worker opens the directory again (at once, in the background); until it answers, a statement
      // fails as unreachable too (on a loaded machine the open can outlast the connect timeout).
      let rows: unknown[] | undefined;
      for (let attempt = 0; attempt < 10 && rows === undefined; attempt++) {
        try {
          rows = (await sql<{ x: number }>`SELECT x FROM kept`.execute(conn.db)).rows;
        } catch (e) {
          expect((e as ToolgraphError).code).toBe("database-unreachable");
        }
      }
      expect(rows).toEqual([{ x: 7 }]);
    } finally {
      await conn.close();
    }
  });

  it("an in-memory database died with its worker: later statements fail as database-unreachable", async () => {
    const conn = await openConnection({ home: "memory://", onConnectionError: () => {} });
    try {
      await (conn.embedded as PGliteWorker).worker.terminate();
      for (let i = 0; i < 2; i++) {
        const err = await sql`SELECT 1`.execute(conn.db).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((err as ToolgraphError).code).toBe("database-unreachable");
      }
    } finally {
      await conn.close();
    }
  });

  it("TOOLGRAPH_PGLITE_THREAD chooses the thread; another value is refused naming it", () => {
    expect(embeddedThread({})).toBe("worker");
    expect(embeddedThread({ TOOLGRAPH_PGLITE_THREAD: "main" })).toBe("main");
    expect(() => embeddedThread({ TOOLGRAPH_PGLITE_THREAD: "gpu" })).toThrow(/TOOLGRAPH_PGLITE_THREAD/);
  });
});
