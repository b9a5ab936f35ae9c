/**
 * Tool retirement (the gateway under churn): two nullable columns on `tools`. `unavailable_since` is when
 * the tool's upstream MCP server stopped listing it; `retired_at` is when it had been unavailable for longer
 * than the gateway's grace period and left the read model (search, the console, the jobs). A retired tool's
 * row and history stay (executions, edges, stats count it); listed again, it is available and in the read
 * model again. Existing unavailable tools take their `updated_at` (set when they were marked) as the start.
 * Frozen: never edit after it has landed; add a new migration instead.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("tools")
    .addColumn("unavailable_since", "timestamptz")
    .addColumn("retired_at", "timestamptz")
    .execute();
  await sql`UPDATE tools SET unavailable_since = updated_at WHERE available = false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tools").dropColumn("retired_at").dropColumn("unavailable_since").execute();
}
