/**
 * Initial schema. Frozen: never edit after it has landed; add a new migration instead.
 *
 * Every table is scoped by `project` (the tenant key) and every primary key starts with it.
 *
 * Edge quality (docs/decisions/edge-quality.md) is a STORED generated column so it can never disagree with
 * the counts it comes from. For each edge type t ∈ {dependency 1.0, contains 0.8, provides 0.7,
 * sequence 0.5}: level_t = max(declared_t, learned_t) where learned_t = 3 (observed) when the type
 * was observed ≥ 3 times, 2 (inferred) when 1–2 times, else 0; declared_t is 1 (template),
 * 2 (inferred) or 3 (observed) from a declared-edges import. The source multiplier of a level is
 * observed 1.0, inferred 0.7, template 0.5. weight = max_t typeWeight(t) × multiplier(level_t); the
 * edge's type is the argmax (ties: the stronger type), its source that type's level.
 * algorithms/graph/edge-quality.ts computes the same in TypeScript; a test checks both agree.
 */
import { type Kysely, sql } from "kysely";

const TYPES = [
  ["dependency", "dep", 1.0],
  ["contains", "con", 0.8],
  ["provides", "prov", 0.7],
  ["sequence", "seq", 0.5],
] as const;

function levelSql(short: string): string {
  return `GREATEST(${short}_declared, CASE WHEN ${short}_count >= 3 THEN 3 WHEN ${short}_count >= 1 THEN 2 ELSE 0 END)`;
}

function qualitySql(short: string, typeWeight: number): string {
  const lvl = levelSql(short);
  return `(${typeWeight} * (CASE ${lvl} WHEN 3 THEN 1.0 WHEN 2 THEN 0.7 WHEN 1 THEN 0.5 ELSE 0.0 END))`;
}

const weightSql = `GREATEST(${TYPES.map(([, s, w]) => qualitySql(s, w)).join(", ")})`;

// The type whose quality is the maximum; CASE order = type-weight order breaks ties toward the stronger type.
const typeSql = `CASE ${TYPES.map(
  ([name, s, w]) => `WHEN ${qualitySql(s, w)} > 0 AND ${qualitySql(s, w)} >= ${weightSql} THEN '${name}'`,
).join(" ")} ELSE 'none' END`;

const sourceSql = `CASE ${TYPES.map(
  ([, s, w]) =>
    `WHEN ${qualitySql(s, w)} > 0 AND ${qualitySql(s, w)} >= ${weightSql} THEN (CASE ${levelSql(s)} WHEN 3 THEN 'observed' WHEN 2 THEN 'inferred' ELSE 'template' END)`,
).join(" ")} ELSE 'none' END`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("projects")
    .addColumn("project", "text", (c) => c.primaryKey())
    .addColumn("graph_version", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("config", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("tools")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("input_schema", "jsonb")
    .addColumn("tags", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("examples", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("anti_patterns", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("cost_estimate", "double precision")
    .addColumn("avg_latency_ms", "double precision")
    .addColumn("safety_tags", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("server", "text")
    .addColumn("auto_registered", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("text_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("tools_pk", ["project", "id"])
    .execute();

  await db.schema
    .createTable("capabilities")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("patterns", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("keywords", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("text_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("capabilities_pk", ["project", "id"])
    .execute();

  // Bipartite tool–capability hypergraph: declared membership (template) and observed use
  // (an execution labelled with the capability used the tool: a `contains` observation).
  await db.schema
    .createTable("capability_tools")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("capability_id", "text", (c) => c.notNull())
    .addColumn("tool_id", "text", (c) => c.notNull())
    .addColumn("declared", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("observations", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("capability_tools_pk", ["project", "capability_id", "tool_id"])
    .execute();

  await db.schema
    .createTable("capability_dependencies")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("from_capability", "text", (c) => c.notNull())
    .addColumn("to_capability", "text", (c) => c.notNull())
    .addColumn("weight", "double precision", (c) => c.notNull().defaultTo(1))
    .addPrimaryKeyConstraint("capability_dependencies_pk", ["project", "from_capability", "to_capability"])
    .execute();

  await sql
    .raw(`CREATE TABLE edges (
      project text NOT NULL,
      from_tool text NOT NULL,
      to_tool text NOT NULL,
      dep_count integer NOT NULL DEFAULT 0,
      con_count integer NOT NULL DEFAULT 0,
      prov_count integer NOT NULL DEFAULT 0,
      seq_count integer NOT NULL DEFAULT 0,
      dep_declared smallint NOT NULL DEFAULT 0,
      con_declared smallint NOT NULL DEFAULT 0,
      prov_declared smallint NOT NULL DEFAULT 0,
      seq_declared smallint NOT NULL DEFAULT 0,
      weight double precision GENERATED ALWAYS AS (${weightSql}) STORED,
      type text GENERATED ALWAYS AS (${typeSql}) STORED,
      source text GENERATED ALWAYS AS (${sourceSql}) STORED,
      first_seen timestamptz,
      last_seen timestamptz,
      CONSTRAINT edges_pk PRIMARY KEY (project, from_tool, to_tool),
      CONSTRAINT edges_no_self_loop CHECK (from_tool <> to_tool),
      CONSTRAINT edges_declared_levels CHECK (dep_declared BETWEEN 0 AND 3 AND con_declared BETWEEN 0 AND 3
        AND prov_declared BETWEEN 0 AND 3 AND seq_declared BETWEEN 0 AND 3)
    )`)
    .execute(db);

  await db.schema
    .createTable("executions")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("intent", "text")
    .addColumn("intent_hash", "text")
    .addColumn("capability_id", "text")
    .addColumn("started_at", "timestamptz", (c) => c.notNull())
    .addColumn("success", "boolean", (c) => c.notNull())
    .addColumn("duration_ms", "double precision")
    .addColumn("step_count", "integer", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("executions_pk", ["project", "id"])
    .execute();
  await db.schema.createIndex("executions_user_idx").on("executions").columns(["project", "user_id"]).execute();

  await db.schema
    .createTable("execution_steps")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("execution_id", "text", (c) => c.notNull())
    .addColumn("idx", "integer", (c) => c.notNull())
    .addColumn("tool_id", "text", (c) => c.notNull())
    .addColumn("parent_idx", "integer")
    .addColumn("depends_on", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("success", "boolean", (c) => c.notNull())
    .addColumn("duration_ms", "double precision")
    .addColumn("at", "timestamptz")
    .addPrimaryKeyConstraint("execution_steps_pk", ["project", "execution_id", "idx"])
    .execute();
  await db.schema.createIndex("execution_steps_tool_idx").on("execution_steps").columns(["project", "tool_id"]).execute();

  // Per-tool counters maintained by the write path (real execution counts, for α and recency).
  await db.schema
    .createTable("tool_stats")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("tool_id", "text", (c) => c.notNull())
    .addColumn("executions", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("successes", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("total_duration_ms", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("last_used_at", "timestamptz")
    .addPrimaryKeyConstraint("tool_stats_pk", ["project", "tool_id"])
    .execute();

  // Embeddings stored portably (float32 little-endian bytes), keyed by the embedded text's hash and model.
  await db.schema
    .createTable("embeddings")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("text_hash", "text", (c) => c.notNull())
    .addColumn("dims", "integer", (c) => c.notNull())
    .addColumn("vector", "bytea", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("embeddings_pk", ["project", "model", "text_hash"])
    .execute();

  // User history for the AdaptiveThresholdManager (docs/decisions/gate-thresholds.md), one JSON document per user.
  await db.schema
    .createTable("user_history")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("history", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("user_history_pk", ["project", "user_id"])
    .execute();

  // Learned per-context threshold state (project × operation × domain).
  await db.schema
    .createTable("context_thresholds")
    .addColumn("project", "text", (c) => c.notNull())
    .addColumn("context_key", "text", (c) => c.notNull())
    .addColumn("state", "jsonb", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("context_thresholds_pk", ["project", "context_key"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    "context_thresholds",
    "user_history",
    "embeddings",
    "tool_stats",
    "execution_steps",
    "executions",
    "edges",
    "capability_dependencies",
    "capability_tools",
    "capabilities",
    "tools",
    "projects",
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
