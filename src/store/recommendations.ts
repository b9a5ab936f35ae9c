/**
 * The recommendation log (migration 019): rows in, rows out. What an answer contains and how outcomes are
 * judged is decided above (src/services/recommendation-log.ts); this module only stores and joins.
 */
import { type Kysely, sql } from "kysely";
import { chunks } from "./catalog.ts";
import type { Database } from "./schema.ts";

/** One ranked item of an answer: a tool or capability id, its score and its gate decision. */
export interface RecommendationItem {
  id: string;
  score: number | null;
  decision: string | null;
}

export interface RecommendationRow {
  project: string;
  id: string;
  job: string;
  createdAt: Date;
  user: string | null;
  session: string | null;
  graphVersion: number;
  /** A summary of the request (intent, context, limit …), never the whole body. */
  request: Record<string, unknown>;
  items: RecommendationItem[];
  /** The answer's overall gate decision: accepted, accepted-with-caution, abstained (or none). */
  decision: string;
  topScore: number | null;
  latencyMs: number | null;
}

export interface OutcomeRow {
  project: string;
  /** The answer it follows, when the caller passed its id back. */
  recommendationId: string | null;
  /** The session (workflow) it belongs to: joins every answer of that session given before it. */
  session: string | null;
  kind: "feedback" | "execution";
  at: Date;
  success: boolean;
  /** Feedback: did the user follow the answer; executions: null (judged from `tools` against the answer). */
  followed: boolean | null;
  executionId: string | null;
  /** The tools the execution ran, in order (empty for feedback). */
  tools: string[];
}

/** An answer with the latest outcome joined to it (by id, else by session and time). */
export interface JoinedRecommendation extends Omit<RecommendationRow, "project"> {
  outcome: { kind: string; success: boolean; followed: boolean | null; tools: string[]; at: Date } | null;
}

export async function insertRecommendations(db: Kysely<Database>, rows: readonly RecommendationRow[]): Promise<void> {
  for (const part of chunks(rows, 500)) {
    await db
      .insertInto("recommendations")
      .values(
        part.map((r) => ({
          project: r.project,
          id: r.id,
          job: r.job,
          created_at: r.createdAt,
          user_id: r.user,
          session: r.session,
          graph_version: r.graphVersion,
          request: JSON.stringify(r.request),
          items: JSON.stringify(r.items),
          decision: r.decision,
          top_score: r.topScore,
          latency_ms: r.latencyMs,
        })),
      )
      .onConflict((oc) => oc.columns(["project", "id"]).doNothing())
      .execute();
  }
}

export async function insertOutcomes(db: Kysely<Database>, rows: readonly OutcomeRow[]): Promise<void> {
  for (const part of chunks(rows, 500)) {
    await db
      .insertInto("recommendation_outcomes")
      .values(
        part.map((o) => ({
          project: o.project,
          recommendation_id: o.recommendationId,
          session: o.session,
          kind: o.kind,
          at: o.at,
          success: o.success,
          followed: o.followed,
          execution_id: o.executionId,
          tools: JSON.stringify(o.tools),
        })),
      )
      .execute();
  }
}

export interface RetentionOptions {
  /** Keep at most this many newest answers per project. */
  maxPerProject: number;
  /** Drop answers and outcomes older than this many days. */
  maxAgeDays: number;
  /** The clock (ms). */
  now: number;
}

/** Applies the retention bounds to one project; returns how many answers and outcomes were deleted. */
export async function pruneRecommendations(db: Kysely<Database>, project: string, o: RetentionOptions): Promise<{ recommendations: number; outcomes: number }> {
  const cutoff = new Date(o.now - o.maxAgeDays * 86_400_000);
  const old = await db.deleteFrom("recommendations").where("project", "=", project).where("created_at", "<", cutoff).executeTakeFirst();
  // The newest N by (created_at, id); everything past the N-th goes.
  const over = await sql`
    DELETE FROM recommendations WHERE project = ${project} AND id IN (
      SELECT id FROM recommendations WHERE project = ${project} ORDER BY created_at DESC, id DESC OFFSET ${Math.max(0, Math.floor(o.maxPerProject))}
    )`.execute(db);
  const outcomes = await db.deleteFrom("recommendation_outcomes").where("project", "=", project).where("at", "<", cutoff).executeTakeFirst();
  return {
    recommendations: Number(old.numDeletedRows) + Number(over.numAffectedRows ?? 0n),
    outcomes: Number(outcomes.numDeletedRows),
  };
}

/** Answers of a project from `since` on (oldest first, at most `limit`), each with its latest outcome. */
export async function joinedRecommendations(
  db: Kysely<Database>,
  project: string,
  opts: { since?: Date; limit?: number; job?: string } = {},
): Promise<JoinedRecommendation[]> {
  const since = opts.since ?? new Date(0);
  const limit = opts.limit ?? 100_000;
  const jobFilter = opts.job === undefined ? sql`` : sql`AND r.job = ${opts.job}`;
  const rows = await sql<{
    id: string;
    job: string;
    created_at: Date;
    user_id: string | null;
    session: string | null;
    graph_version: string;
    request: Record<string, unknown>;
    items: RecommendationItem[];
    decision: string;
    top_score: number | null;
    latency_ms: number | null;
    o_kind: string | null;
    o_success: boolean | null;
    o_followed: boolean | null;
    o_tools: string[] | null;
    o_at: Date | null;
  }>`
    SELECT r.id, r.job, r.created_at, r.user_id, r.session, r.graph_version, r.request, r.items, r.decision, r.top_score, r.latency_ms,
           o.kind AS o_kind, o.success AS o_success, o.followed AS o_followed, o.tools AS o_tools, o.at AS o_at
    FROM (
      SELECT * FROM recommendations r WHERE r.project = ${project} AND r.created_at >= ${since} ${jobFilter}
      ORDER BY r.created_at DESC, r.id DESC LIMIT ${limit}
    ) r
    LEFT JOIN LATERAL (
      SELECT kind, success, followed, tools, at FROM recommendation_outcomes o
      WHERE o.project = ${project}
        AND (o.recommendation_id = r.id
             OR (o.recommendation_id IS NULL AND r.session IS NOT NULL AND o.session = r.session AND o.at >= r.created_at))
      ORDER BY o.at DESC, o.id DESC LIMIT 1
    ) o ON true
    ORDER BY r.created_at, r.id`.execute(db);
  return rows.rows.map((r) => ({
    id: r.id,
    job: r.job,
    createdAt: new Date(r.created_at),
    user: r.user_id,
    session: r.session,
    graphVersion: Number(r.graph_version),
    request: r.request,
    items: r.items,
    decision: r.decision,
    topScore: r.top_score,
    latencyMs: r.latency_ms,
    outcome:
      r.o_kind === null
        ? null
        : { kind: r.o_kind, success: r.o_success === true, followed: r.o_followed, tools: r.o_tools ?? [], at: new Date(r.o_at as Date) },
  }));
}

/** How many answers and outcomes the project's log holds. */
export async function countRecommendations(db: Kysely<Database>, project: string): Promise<{ recommendations: number; outcomes: number }> {
  const a = await db.selectFrom("recommendations").select((eb) => eb.fn.countAll<string>().as("n")).where("project", "=", project).executeTakeFirstOrThrow();
  const b = await db.selectFrom("recommendation_outcomes").select((eb) => eb.fn.countAll<string>().as("n")).where("project", "=", project).executeTakeFirstOrThrow();
  return { recommendations: Number(a.n), outcomes: Number(b.n) };
}
