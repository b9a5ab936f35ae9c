/**
 * A migrator run that fails on kysely's introspection racing DDL in another schema (before any migration ran)
 * is retried; a failed migration, or another error, is not.
 */
import type { MigrationResultSet } from "kysely";
import { describe, expect, it } from "vitest";
import { isCatalogRace } from "../../src/store/migrate.ts";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("isCatalogRace", () => {
  it("is true for a schema, table or column dropped meanwhile, before any migration ran", () => {
    for (const code of ["3F000", "42P01", "42703"]) {
      expect(isCatalogRace({ error: pgError(code, "dropped meanwhile") }), code).toBe(true);
    }
  });

  it("is false once a migration ran or failed, for other errors, and for success", () => {
    const ran: MigrationResultSet = {
      error: pgError("42703", 'column "available" of relation "tools" does not exist'),
      results: [{ migrationName: "2026-11-24-018-tool-availability", direction: "Down", status: "Error" }],
    };
    expect(isCatalogRace(ran)).toBe(false);
    expect(isCatalogRace({ error: pgError("23505", "duplicate key") })).toBe(false);
    expect(isCatalogRace({ error: new Error("no code") })).toBe(false);
    expect(isCatalogRace({ results: [] })).toBe(false);
  });
});
