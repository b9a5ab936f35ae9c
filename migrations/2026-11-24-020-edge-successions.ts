/**
 * Succession counts: a `succ_count integer not null default 0` column on `edges`, the
 * number of executions in which `from_tool` was followed by `to_tool` — as consecutive siblings, parent →
 * child or through `dependsOn` — counted once per execution whatever the edge types. The next-step
 * co-occurrence reads it; the per-type counts cannot give it (an execution adds 1 to several of them, and
 * max() undercounts a pair seen as a sequence in some executions and as a dependency in others).
 *
 * Existing rows are filled from the stored steps by the same rule (algorithms/graph/edge-learning.ts
 * learnSuccessions, restated here in SQL: migrations import no application code), and never below the
 * largest per-type count (the previous lower bound).
 * Frozen: never edit after it has landed; add a new migration instead.
 */
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("edges")
    .addColumn("succ_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE edges SET succ_count = GREATEST(seq_count, dep_count, con_count)`.execute(db);
  await sql`
    WITH s AS (
      SELECT project, execution_id, idx, tool_id, parent_idx, depends_on,
             LAG(tool_id) OVER (PARTITION BY project, execution_id, COALESCE(parent_idx, -1) ORDER BY idx) AS prev_tool
      FROM execution_steps
    ),
    observed AS (
      SELECT project, execution_id, prev_tool AS from_tool, tool_id AS to_tool FROM s WHERE prev_tool IS NOT NULL
      UNION
      SELECT c.project, c.execution_id, p.tool_id, c.tool_id
      FROM execution_steps c
      JOIN execution_steps p ON p.project = c.project AND p.execution_id = c.execution_id AND p.idx = c.parent_idx
      UNION
      SELECT c.project, c.execution_id, d.tool_id, c.tool_id
      FROM execution_steps c
      CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(c.depends_on) = 'array' THEN c.depends_on ELSE '[]'::jsonb END) AS dep(i)
      JOIN execution_steps d ON d.project = c.project AND d.execution_id = c.execution_id AND d.idx = dep.i::int
    ),
    counted AS (
      SELECT project, from_tool, to_tool, count(*)::int AS n FROM observed WHERE from_tool <> to_tool GROUP BY project, from_tool, to_tool
    )
    UPDATE edges SET succ_count = GREATEST(edges.succ_count, counted.n)
    FROM counted
    WHERE edges.project = counted.project AND edges.from_tool = counted.from_tool AND edges.to_tool = counted.to_tool
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("edges").dropColumn("succ_count").execute();
}
