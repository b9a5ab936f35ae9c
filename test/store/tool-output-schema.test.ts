import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { ImportError } from "../../src/formats/parse.ts";
import { importCatalog } from "../../src/jobs/import.ts";
import type { Connection } from "../../src/store/connection.ts";
import { MIGRATION_NAMES, migrateDown, migrateToLatest } from "../../src/store/migrate.ts";
import { loadTools } from "../../src/store/reads.ts";
import { backends, connectionPerSuite, freshProject } from "../helpers/backends.ts";

const okPattern = () => undefined;
const out = { type: "object", properties: { distance: { type: "number", description: "Distance in km" } } };
const input = { type: "object", properties: { distance: { type: "number" } }, required: ["distance"] };

const catalog = (tools: unknown[]) => JSON.stringify({ tools });

async function outputColumns(conn: Connection): Promise<number> {
  const r = await sql<{ n: string }>`select count(*) as n from information_schema.columns
    where table_name = 'tools' and column_name = 'output_schema' and table_schema = current_schema()`.execute(conn.db);
  return Number(r.rows[0]!.n);
}

for (const backend of backends()) {
  describe(`tool output schemas on ${backend.name}`, () => {
    let conn: Connection;
    connectionPerSuite(backend, (c) => {
      conn = c;
    });

    it("stores outputSchema and reads it back into the tool rows; absent = null", async () => {
      const p = freshProject();
      await importCatalog(
        conn.db,
        p,
        catalog([
          { id: "route", description: "plan a route", outputSchema: out },
          { id: "ship", description: "shipping cost", inputSchema: input },
        ]),
        "catalog.json",
        { validatePattern: okPattern },
      );
      const rows = await loadTools(conn.db, p);
      expect(rows.map((r) => [r.id, r.outputSchema, r.inputSchema])).toEqual([
        ["route", out, null],
        ["ship", null, input],
      ]);
    });

    it("re-import replaces or clears the output schema", async () => {
      const p = freshProject();
      const other = { type: "object", properties: { time: { type: "number" } } };
      await importCatalog(conn.db, p, catalog([{ id: "route", outputSchema: out }]), "c.json", {
        validatePattern: okPattern,
      });
      await importCatalog(conn.db, p, catalog([{ id: "route", outputSchema: other }]), "c.json", {
        validatePattern: okPattern,
      });
      expect((await loadTools(conn.db, p))[0]!.outputSchema).toEqual(other);
      await importCatalog(conn.db, p, catalog([{ id: "route" }]), "c.json", { validatePattern: okPattern });
      expect((await loadTools(conn.db, p))[0]!.outputSchema).toBeNull();
    });

    it("rejects an outputSchema that is not an object, naming the field", async () => {
      const p = freshProject();
      const err = await importCatalog(conn.db, p, catalog([{ id: "route", outputSchema: "number" }]), "c.json", {
        validatePattern: okPattern,
      }).catch((e) => e);
      expect(err).toBeInstanceOf(ImportError);
      expect(String(err.message)).toContain("tools[0].outputSchema");
      expect(await loadTools(conn.db, p)).toEqual([]);
    });

    it("migration 002 adds the column and its down step drops only it", async () => {
      expect(await outputColumns(conn)).toBe(1);
      // The migrations after 002 first (018 tool availability, …), then 002's down step.
      const later = MIGRATION_NAMES.length - 1 - MIGRATION_NAMES.indexOf("2026-11-22-002-tool-output-schema");
      for (let i = 0; i < later; i++) await migrateDown(conn.db);
      expect(await outputColumns(conn)).toBe(1);
      await migrateDown(conn.db); // 002
      expect(await outputColumns(conn)).toBe(0);
      const tools = await sql<{
        n: string;
      }>`select count(*) as n from information_schema.tables where table_name = 'tools' and table_schema = current_schema()`.execute(
        conn.db,
      );
      expect(Number(tools.rows[0]!.n)).toBe(1);
      await migrateToLatest(conn.db);
      expect(await outputColumns(conn)).toBe(1);
    });
  });
}
