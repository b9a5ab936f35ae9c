/**
 * Succession counts (migration 2026-11-24-020): `edges.succ_count` counts each execution
 * in which `from` was followed by `to` once, whatever the edge types it was observed as, on the batch and
 * the single-execution write paths; the migration fills existing rows from the stored steps by the same rule.
 */
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { ExecutionInput } from "../../src/formats/schemas.ts";
import { importCatalog, importExecutions, validateExecution } from "../../src/jobs/import.ts";
import type { Connection } from "../../src/store/connection.ts";
import { MIGRATION_NAMES, migrateDown, migrateToLatest } from "../../src/store/migrate.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const T = "2026-10-30T10:00:00Z";
const exec = (id: string, steps: object[]): ExecutionInput =>
  validateExecution({ id, startedAt: T, success: true, steps });

/**
 * m1 a → b (b dependsOn a), m2 a → b, m3 a, x, b (b dependsOn a), m4 a → c, m5 p containing c1 then c2.
 * Per type: sequence(a→b) = 2 (m1, m2), dependency(a→b) = 2 (m1, m3); successions(a→b) = 3.
 */
const EXECUTIONS = [
  exec("m1", [{ tool: "a" }, { tool: "b", dependsOn: [0] }]),
  exec("m2", [{ tool: "a" }, { tool: "b" }]),
  exec("m3", [{ tool: "a" }, { tool: "x" }, { tool: "b", dependsOn: [0] }]),
  exec("m4", [{ tool: "a" }, { tool: "c" }]),
  exec("m5", [{ tool: "p" }, { tool: "c1", parent: 0 }, { tool: "c2", parent: 0 }]),
];
const EXPECTED = [
  // from, to, sequence, dependency, contains, successions
  ["a", "b", 2, 2, 0, 3],
  ["a", "c", 1, 0, 0, 1],
  ["a", "x", 1, 0, 0, 1],
  ["c1", "c2", 1, 0, 0, 1],
  ["p", "c1", 0, 0, 1, 1],
  ["p", "c2", 0, 0, 1, 1],
  ["x", "b", 1, 0, 0, 1],
];

for (const backend of backends()) {
  describe(`succession counts on ${backend.name}`, () => {
    let conn: Connection;
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    async function rows(p: string): Promise<unknown[][]> {
      const r = await sql<{ f: string; t: string; seq: number; dep: number; con: number; succ: number }>`
        SELECT from_tool AS f, to_tool AS t, seq_count AS seq, dep_count AS dep, con_count AS con, succ_count AS succ
        FROM edges WHERE project = ${p} ORDER BY from_tool, to_tool`.execute(conn.db);
      return r.rows.map((x) => [x.f, x.t, x.seq, x.dep, x.con, x.succ]);
    }

    async function load(p: string): Promise<void> {
      const tools = ["a", "b", "c", "x", "p", "c1", "c2"].map((id) => ({ id }));
      await importCatalog(conn.db, p, JSON.stringify({ tools }), "catalog.json", { validatePattern: () => undefined });
      // m1–m3 through the batch path, m4 and m5 one by one (the single-statement path).
      await importExecutions(
        conn.db,
        p,
        EXECUTIONS.slice(0, 3).map((value, i) => ({ line: i + 1, value })),
        "traces",
        {},
      );
      for (const value of EXECUTIONS.slice(3))
        await importExecutions(conn.db, p, [{ line: 1, value }], "execution", {});
    }

    it("the write paths count each succession once per execution", async () => {
      const p = freshProject();
      await load(p);
      expect(await rows(p)).toEqual(EXPECTED);
      // Re-recording is a no-op.
      await importExecutions(conn.db, p, [{ line: 1, value: EXECUTIONS[0]! }], "execution", {});
      expect(await rows(p)).toEqual(EXPECTED);
    });

    it("migration 020 fills succ_count from the stored steps (down drops only the column)", async () => {
      const p = freshProject();
      await load(p);
      const later = MIGRATION_NAMES.length - 1 - MIGRATION_NAMES.indexOf("2026-11-24-020-edge-successions");
      for (let i = 0; i < later; i++) await migrateDown(conn.db);
      await migrateDown(conn.db);
      const cols = await sql<{ n: string }>`select count(*) as n from information_schema.columns
        where table_name = 'edges' and column_name = 'succ_count' and table_schema = current_schema()`.execute(conn.db);
      expect(Number(cols.rows[0]!.n)).toBe(0);
      await migrateToLatest(conn.db);
      expect(await rows(p)).toEqual(EXPECTED);
    });
  });
}
