/**
 * Recommendation log retention: an index on `recommendations (project, created_at, id)`, the order in which the
 * writer keeps the newest N answers of a project. With it the answer at rank N+1 is found by a backward
 * index-only scan and everything at or past it deleted by one range; without it every pruning sorted all of
 * the project's answers (docs/decisions/log-retention.md). Outcomes need none: they are kept by id, the
 * primary key's second column.
 * Frozen: never edit after it has landed; add a new migration instead.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("recommendations_retention").on("recommendations").columns(["project", "created_at", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("recommendations_retention").execute();
}
