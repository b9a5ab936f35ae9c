/**
 * Recommendation log: every answer of a recommending job, and the outcomes that follow it.
 * Frozen: never edit after it has landed; add a new migration instead.
 *
 * `recommendations`: one row per answer (job, request summary, ranked items with scores and gate
 * decisions, the answer's overall decision and top score, user, session, graph version). The id is the
 * `recommendationId` returned in the answer.
 *
 * `recommendation_outcomes`: feedback and recorded executions that follow an answer. An outcome names the
 * answer explicitly (`recommendation_id`, the id passed back) or implicitly through its session (the
 * request's `session` = the recorded execution's id); reads join both ways.
 *
 * Retention is bounded by the writer (newest N per project, at most D days); both tables are keyed by
 * project first, and indexed by time for the pruning and the dashboard's time series.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("recommendations")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("job", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("user_id", "text")
    .addColumn("session", "text")
    .addColumn("graph_version", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("request", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("items", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("decision", "text", (c) => c.notNull())
    .addColumn("top_score", "double precision")
    .addColumn("latency_ms", "double precision")
    .addPrimaryKeyConstraint("recommendations_pk", ["project", "id"])
    .execute();
  await db.schema.createIndex("recommendations_time").on("recommendations").columns(["project", "created_at"]).execute();
  await db.schema.createIndex("recommendations_session").on("recommendations").columns(["project", "session"]).execute();

  await db.schema
    .createTable("recommendation_outcomes")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("id", "bigserial", (c) => c.notNull())
    .addColumn("recommendation_id", "text")
    .addColumn("session", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("success", "boolean", (c) => c.notNull())
    .addColumn("followed", "boolean")
    .addColumn("execution_id", "text")
    .addColumn("tools", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addPrimaryKeyConstraint("recommendation_outcomes_pk", ["project", "id"])
    .execute();
  await db.schema.createIndex("recommendation_outcomes_rec").on("recommendation_outcomes").columns(["project", "recommendation_id"]).execute();
  await db.schema.createIndex("recommendation_outcomes_session").on("recommendation_outcomes").columns(["project", "session"]).execute();
  await db.schema.createIndex("recommendation_outcomes_time").on("recommendation_outcomes").columns(["project", "at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("recommendation_outcomes").execute();
  await db.schema.dropTable("recommendations").execute();
}
