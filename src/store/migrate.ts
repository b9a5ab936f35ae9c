/** Runs the frozen migrations in migrations/ with kysely's Migrator. */
import { type Kysely, type Migration, type MigrationResultSet, Migrator, sql } from "kysely";
import * as m001 from "../../migrations/2026-11-22-001-initial.ts";
import * as m002 from "../../migrations/2026-11-22-002-tool-output-schema.ts";
import * as m018 from "../../migrations/2026-11-24-018-tool-availability.ts";
import * as m019 from "../../migrations/2026-11-24-019-recommendation-log.ts";
import * as m020 from "../../migrations/2026-11-24-020-edge-successions.ts";
import * as m021 from "../../migrations/2026-11-27-021-tool-retirement.ts";
import * as m022 from "../../migrations/2026-11-27-022-recommendation-retention-index.ts";
import { ToolgraphError } from "../contract/errors.ts";

const MIGRATIONS: Record<string, Migration> = {
  "2026-11-22-001-initial": m001,
  "2026-11-22-002-tool-output-schema": m002,
  "2026-11-24-018-tool-availability": m018,
  "2026-11-24-019-recommendation-log": m019,
  "2026-11-24-020-edge-successions": m020,
  "2026-11-27-021-tool-retirement": m021,
  "2026-11-27-022-recommendation-retention-index": m022,
};

/**
 * The migration tables live in the connection's current schema (explicitly: kysely would otherwise look
 * them up in any schema, and a second toolgraph schema on the same server would confuse it).
 */
async function migrator(db: Kysely<any>): Promise<Migrator> {
  const r = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    migrationTableName: "toolgraph_migrations",
    migrationLockTableName: "toolgraph_migrations_lock",
    migrationTableSchema: r.rows[0]?.schema ?? "public",
  });
}

function check(result: MigrationResultSet): MigrationResultSet {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === "Error");
    const e = new ToolgraphError(
      "migration-failed",
      `migration ${failed?.migrationName ?? "?"} failed: ${(result.error as Error).message ?? String(result.error)}`,
    );
    // Kept, so a failure that was a lost connection can be told from a bad migration.
    e.cause = result.error;
    throw e;
  }
  return result;
}

/**
 * SQLSTATEs of kysely's introspection racing DDL in another schema of the same server: it reads the tables
 * of every schema, so another tenant's or another test file's schema dropped (3F000), or one of its tables
 * (42P01) or columns (42703) dropped meanwhile, fails it.
 */
const CATALOG_RACE_CODES = new Set(["3F000", "42P01", "42703"]);

/**
 * True when a migrator run failed before running any migration (no per-migration results) on a catalog race:
 * nothing was migrated, so running it again is safe.
 */
export function isCatalogRace(result: MigrationResultSet): boolean {
  return (
    result.error !== undefined &&
    result.results === undefined &&
    CATALOG_RACE_CODES.has((result.error as { code?: string }).code ?? "")
  );
}

/** Runs one migrator step, again (at most 5 times) while it fails on a catalog race before migrating anything. */
async function run(db: Kysely<any>, step: (m: Migrator) => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt++) {
    const result = await step(await migrator(db));
    if (attempt < 5 && isCatalogRace(result)) continue;
    return check(result);
  }
}

/**
 * True when the migration table lists exactly this code's migrations: the migrator would do nothing, and its
 * own checks (schema and table introspection, the lock row, a locked transaction) cost an open more than the
 * migrations of a database made from the migrated template (docs/decisions/everyday-budget.md).
 */
async function upToDate(db: Kysely<any>): Promise<boolean> {
  try {
    const r = await sql<{ name: string }>`select name from toolgraph_migrations`.execute(db);
    const names = new Set(r.rows.map((row) => row.name));
    return (
      names.size === r.rows.length &&
      names.size === MIGRATION_NAMES.length &&
      MIGRATION_NAMES.every((n) => names.has(n))
    );
  } catch {
    return false; // no table yet, or the server is away: the migrator decides and reports
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  if (await upToDate(db)) return { results: [] };
  return run(db, (m) => m.migrateToLatest());
}

export async function migrateDown(db: Kysely<any>): Promise<MigrationResultSet> {
  return run(db, (m) => m.migrateDown());
}

export const MIGRATION_NAMES = Object.keys(MIGRATIONS);

export { migrationsKey } from "./migration-key.ts";
