/**
 * The recommendation log (migration 019): rows in, rows out. What an answer contains and how outcomes are
 * judged is decided above (src/jobs/recommendation-log.ts); this module only stores and joins.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
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

/**
 * Rows go in as one JSON array of positional arrays per statement (`jsonb_array_elements`), not as a VALUES
 * list of 12 parameters per row: the embedded database spends its CPU (on the caller's thread) moving and
 * parsing bytes and placeholders, so one compact parameter per batch costs it less.
 */
export async function insertRecommendations(db: Kysely<Database>, rows: readonly RecommendationRow[]): Promise<void> {
  for (const part of chunks(rows, 500)) {
    const payload = JSON.stringify(
      part.map((r) => [
        r.project,
        r.id,
        r.job,
        r.createdAt,
        r.user,
        r.session,
        r.graphVersion,
        r.request,
        r.items,
        r.decision,
        r.topScore,
        r.latencyMs,
      ]),
    );
    await sql`
      INSERT INTO recommendations (project, id, job, created_at, user_id, session, graph_version, request, items, decision, top_score, latency_ms)
      SELECT e->>0, e->>1, e->>2, (e->>3)::timestamptz, e->>4, e->>5, (e->>6)::bigint, e->7, e->8, e->>9, (e->>10)::float8, (e->>11)::float8
      FROM jsonb_array_elements(${payload}::jsonb) AS e
      ON CONFLICT (project, id) DO NOTHING`.execute(db);
  }
}

/** Outcomes go in the same way as answers (one JSON parameter per batch), ids in the order given. */
export async function insertOutcomes(db: Kysely<Database>, rows: readonly OutcomeRow[]): Promise<void> {
  for (const part of chunks(rows, 500)) {
    const payload = JSON.stringify(
      part.map((o) => [
        o.project,
        o.recommendationId,
        o.session,
        o.kind,
        o.at,
        o.success,
        o.followed,
        o.executionId,
        o.tools,
      ]),
    );
    await sql`
      INSERT INTO recommendation_outcomes (project, recommendation_id, session, kind, at, success, followed, execution_id, tools)
      SELECT e->>0, e->>1, e->>2, e->>3, (e->>4)::timestamptz, (e->>5)::boolean, (e->>6)::boolean, e->>7, e->8
      FROM jsonb_array_elements(${payload}::jsonb) WITH ORDINALITY AS x(e, n)
      ORDER BY n`.execute(db);
  }
}

export interface RetentionOptions {
  /** Keep at most this many newest answers per project. */
  maxPerProject: number;
  /** Keep at most this many newest outcomes per project (newest by when they were written). */
  maxOutcomesPerProject: number;
  /** Drop answers and outcomes older than this many days. */
  maxAgeDays: number;
  /** The clock (ms). */
  now: number;
  /** Most rows one statement reads or deletes. Default RETENTION_STEP (2,000). */
  step?: number | undefined;
  /**
   * Awaited after each statement. The writer passes a turn of the event loop: a pruning at 100,000 rows is tens of
   * statements, and the embedded database works on the caller's thread when TOOLGRAPH_PGLITE_THREAD=main (on its
   * own thread by default, where the pause lets other requests' statements in between). Default: none.
   */
  pause?: (() => Promise<void>) | undefined;
}

/** Rows one retention statement reads or deletes at most. */
export const RETENTION_STEP = 2_000;

/**
 * The two log tables as retention sees them: the order "newest first" (answers by (created_at, id), on the
 * recommendations_retention index; outcomes by id, the order they were written, on the primary key), a key of
 * a row in that order as text, and the time column the age bound reads. Constants: safe as raw SQL.
 */
const LOG_TABLES = {
  answers: {
    table: "recommendations",
    columns: "project, created_at, id",
    newestFirst: "created_at DESC, id DESC",
    oldestFirst: "created_at, id",
    key: "created_at::text AS k0, id AS k1",
    time: "created_at",
  },
  outcomes: {
    table: "recommendation_outcomes",
    columns: "project, id, at",
    newestFirst: "id DESC",
    oldestFirst: "id",
    key: "id::text AS k0",
    time: "at",
  },
} as const;
type LogTable = (typeof LOG_TABLES)[keyof typeof LOG_TABLES];
type RowKey = { k0: string; k1?: string };

/** `key <op> given` in the table's order. */
function keyIs(t: LogTable, op: "<" | "<=", k: RowKey) {
  return t === LOG_TABLES.answers
    ? sql`(created_at, id) ${sql.raw(op)} (${k.k0}::timestamptz, ${k.k1})`
    : sql`id ${sql.raw(op)} ${k.k0}::bigint`;
}

/**
 * The key of the row of rank `n` (0 = the newest) of a project, or undefined when it has n rows or fewer. Read in
 * steps of at most `step` index entries, each step starting after the last one's row, with a pause after each.
 */
async function keyAtRank(
  db: Kysely<Database>,
  t: LogTable,
  project: string,
  n: number,
  step: number,
  pause: () => Promise<void>,
): Promise<RowKey | undefined> {
  let after: RowKey | undefined;
  let left = n + 1; // rows to walk past, the one wanted included
  while (left > 0) {
    const take = Math.min(step, left);
    const r = await sql<RowKey>`
      SELECT ${sql.raw(t.key)} FROM ${sql.raw(t.table)}
      WHERE project = ${project} ${after ? sql`AND ${keyIs(t, "<", after)}` : sql``}
      ORDER BY ${sql.raw(t.newestFirst)} OFFSET ${take - 1} LIMIT 1`.execute(db);
    await pause();
    after = r.rows[0];
    if (!after) return undefined;
    left -= take;
  }
  return after;
}

/** Deletes a project's rows matching `where`, at most `step` per statement (oldest first), pausing after each; returns how many. */
async function deleteInSteps(
  db: Kysely<Database>,
  t: LogTable,
  project: string,
  where: RawBuilder<unknown>,
  step: number,
  pause: () => Promise<void>,
): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await sql`
      DELETE FROM ${sql.raw(t.table)} WHERE project = ${project} AND id IN (
        SELECT id FROM ${sql.raw(t.table)} WHERE project = ${project} AND ${where} ORDER BY ${sql.raw(t.oldestFirst)} LIMIT ${step}
      )`.execute(db);
    await pause();
    const n = Number(r.numAffectedRows ?? 0n);
    total += n;
    if (n < step) return total;
  }
}

/** Keeps a project's newest `keep` rows of a table and those younger than `cutoff`; returns how many rows went. */
async function pruneTable(
  db: Kysely<Database>,
  t: LogTable,
  project: string,
  keep: number,
  cutoff: Date,
  step: number,
  pause: () => Promise<void>,
): Promise<number> {
  // Fresh statistics first: the embedded database has no autovacuum, and with the row counts of an empty table
  // each step below was planned as a scan and sort of the whole project (22,000 rows: 466 ms → 121 ms analysed;
  // on a server whose statistics lagged, 18 s → 0.2 s). ANALYZE reads a fixed-size sample, of the columns
  // retention reads only (not the jsonb ones).
  await sql`ANALYZE ${sql.raw(t.table)} (${sql.raw(t.columns)})`.execute(db);
  await pause();
  let n = await deleteInSteps(db, t, project, sql`${sql.raw(t.time)} < ${cutoff}`, step, pause);
  const last = await keyAtRank(db, t, project, Math.max(0, Math.floor(keep)), step, pause);
  if (last) n += await deleteInSteps(db, t, project, keyIs(t, "<=", last), step, pause);
  return n;
}

/**
 * Applies the retention bounds to one project: answers and outcomes older than the age bound go, then all but the
 * newest N of each. No statement reads or deletes more than `step` rows. Returns how many answers and outcomes
 * were deleted.
 */
export async function pruneRecommendations(
  db: Kysely<Database>,
  project: string,
  o: RetentionOptions,
): Promise<{ recommendations: number; outcomes: number }> {
  const cutoff = new Date(o.now - o.maxAgeDays * 86_400_000);
  const step = Math.max(1, Math.floor(o.step ?? RETENTION_STEP));
  const pause = o.pause ?? (async () => {});
  return {
    recommendations: await pruneTable(db, LOG_TABLES.answers, project, o.maxPerProject, cutoff, step, pause),
    outcomes: await pruneTable(db, LOG_TABLES.outcomes, project, o.maxOutcomesPerProject, cutoff, step, pause),
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
        : {
            kind: r.o_kind,
            success: r.o_success === true,
            followed: r.o_followed,
            tools: r.o_tools ?? [],
            at: new Date(r.o_at as Date),
          },
  }));
}

/** How many answers and outcomes the project's log holds. */
export async function countRecommendations(
  db: Kysely<Database>,
  project: string,
): Promise<{ recommendations: number; outcomes: number }> {
  const a = await db
    .selectFrom("recommendations")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("project", "=", project)
    .executeTakeFirstOrThrow();
  const b = await db
    .selectFrom("recommendation_outcomes")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("project", "=", project)
    .executeTakeFirstOrThrow();
  return { recommendations: Number(a.n), outcomes: Number(b.n) };
}
