/**
 * Tool availability (the gateway): a `available boolean not null default true` column on `tools`.
 * The gateway marks a tool unavailable when its upstream MCP server stops listing it, instead of deleting
 * it (its executions, edges and statistics stay); search and the other jobs skip unavailable tools, and a
 * tool listed again becomes available again.
 * Frozen: never edit after it has landed; add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("tools")
    .addColumn("available", "boolean", (c) => c.notNull().defaultTo(true))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tools").dropColumn("available").execute();
}
