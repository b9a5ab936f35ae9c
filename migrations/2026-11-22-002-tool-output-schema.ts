/**
 * Tool output schemas: a nullable `output_schema` jsonb column on `tools`, the JSON-Schema-like
 * description of what a tool returns (same shape as `input_schema`). The DAG builder matches a tool's
 * output fields against another's required inputs when no learned or declared relation exists.
 * Frozen: never edit after it has landed; add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tools").addColumn("output_schema", "jsonb").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("tools").dropColumn("output_schema").execute();
}
