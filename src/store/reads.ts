/** Reads that build the per-project read model (snapshot) and answer stats. */
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { EdgeSource, EdgeType } from "../../algorithms/graph/edge-quality.ts";
import type { Database, ToolsTable } from "./schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export interface ToolRow {
  id: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown> | null;
  /** What the tool returns (catalog `outputSchema`), or null. */
  outputSchema: Record<string, unknown> | null;
  tags: string[];
  examples: string[];
  antiPatterns: string[];
  costEstimate: number | null;
  avgLatencyMs: number | null;
  safetyTags: string[];
  server: string | null;
  autoRegistered: boolean;
  /** False once the tool's upstream MCP server stopped listing it (the jobs skip it; its history stays). */
  available: boolean;
  textHash: string;
  /** When the tool first entered the catalog (epoch ms, the database's clock): what history could know of it. */
  addedAt: number;
}

/** The tools of the read model: every tool but the retired ones (unavailable past the gateway's grace period). */
export async function loadTools(db: Db, project: string): Promise<ToolRow[]> {
  const rows = await db
    .selectFrom("tools")
    .selectAll()
    .where("project", "=", project)
    .where("retired_at", "is", null)
    .orderBy("id")
    .execute();
  return rows.map(toolRow);
}

/** The retired tools among `ids` (out of the read model), e.g. to forget their stored embeddings. */
export async function loadRetiredTools(db: Db, project: string, ids: readonly string[]): Promise<ToolRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom("tools")
    .selectAll()
    .where("project", "=", project)
    .where("retired_at", "is not", null)
    .where("id", "=", sql<string>`ANY(${[...ids]})`)
    .orderBy("id")
    .execute();
  return rows.map(toolRow);
}

function toolRow(r: Selectable<ToolsTable>): ToolRow {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    inputSchema: (r.input_schema as Record<string, unknown> | null) ?? null,
    outputSchema: (r.output_schema as Record<string, unknown> | null) ?? null,
    tags: r.tags as string[],
    examples: r.examples as string[],
    antiPatterns: r.anti_patterns as string[],
    costEstimate: r.cost_estimate,
    avgLatencyMs: r.avg_latency_ms,
    safetyTags: r.safety_tags as string[],
    server: r.server,
    autoRegistered: r.auto_registered,
    available: r.available,
    textHash: r.text_hash,
    addedAt: new Date(r.created_at).getTime(),
  };
}

export interface EdgeRow {
  from: string;
  to: string;
  weight: number;
  type: EdgeType;
  source: EdgeSource;
  counts: { dependency: number; contains: number; provides: number; sequence: number };
  declared: { dependency: number; contains: number; provides: number; sequence: number };
  /** Executions in which this pair was observed as a succession, each counted once (migration 020). */
  successions: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
}

/** Edge rows per read of `loadEdges` (5,000 were still 60 ms of parsing and mapping on PostgreSQL). */
const EDGE_PAGE = 2500;

/**
 * The project's edges of positive weight, by (from, to). Read in pages of EDGE_PAGE rows (keyset on the pair),
 * a turn of the event loop between pages: 50k edges in one result were parsed and mapped in one piece (tens
 * of ms of the event loop). The snapshot reads them in one repeatable-read transaction, so the pages are of
 * one state.
 */
export async function loadEdges(db: Db, project: string): Promise<EdgeRow[]> {
  const out: EdgeRow[] = [];
  let after: { from: string; to: string } | undefined;
  for (;;) {
    let q = db.selectFrom("edges").selectAll().where("project", "=", project).where("weight", ">", 0);
    if (after) q = q.where(sql<boolean>`(from_tool, to_tool) > (${after.from}, ${after.to})`);
    const rows = await q.orderBy("from_tool").orderBy("to_tool").limit(EDGE_PAGE).execute();
    for (const r of rows) out.push(edgeRow(r));
    if (rows.length < EDGE_PAGE) return out;
    const last = rows[rows.length - 1]!;
    after = { from: last.from_tool, to: last.to_tool };
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function edgeRow(r: Selectable<Database["edges"]>): EdgeRow {
  return {
    from: r.from_tool,
    to: r.to_tool,
    weight: r.weight,
    type: r.type as EdgeType,
    source: r.source as EdgeSource,
    counts: { dependency: r.dep_count, contains: r.con_count, provides: r.prov_count, sequence: r.seq_count },
    declared: {
      dependency: r.dep_declared,
      contains: r.con_declared,
      provides: r.prov_declared,
      sequence: r.seq_declared,
    },
    successions: r.succ_count,
    firstSeen: r.first_seen,
    lastSeen: r.last_seen,
  };
}

export interface CapabilityRow {
  id: string;
  name: string;
  description: string;
  patterns: string[];
  keywords: string[];
  priority: number;
  textHash: string;
  /** Declared or observed member tools, with the observation count. */
  members: { tool: string; declared: boolean; observations: number }[];
  dependsOn: { to: string; weight: number }[];
  executions: number;
  successes: number;
}

export async function loadCapabilities(db: Db, project: string): Promise<CapabilityRow[]> {
  const caps = await db.selectFrom("capabilities").selectAll().where("project", "=", project).orderBy("id").execute();
  const members = await db
    .selectFrom("capability_tools")
    .select(["capability_id", "tool_id", "declared", "observations"])
    .where("project", "=", project)
    .orderBy("capability_id")
    .orderBy("tool_id")
    .execute();
  const deps = await db
    .selectFrom("capability_dependencies")
    .select(["from_capability", "to_capability", "weight"])
    .where("project", "=", project)
    .execute();
  const stats = await db
    .selectFrom("executions")
    .select([
      "capability_id",
      sql<string>`count(*)`.as("n"),
      sql<string>`sum(case when success then 1 else 0 end)`.as("ok"),
    ])
    .where("project", "=", project)
    .where("capability_id", "is not", null)
    .groupBy("capability_id")
    .execute();
  const byCap = new Map(
    caps.map((c) => [c.id, { members: [] as CapabilityRow["members"], deps: [] as CapabilityRow["dependsOn"] }]),
  );
  for (const m of members)
    byCap.get(m.capability_id)?.members.push({ tool: m.tool_id, declared: m.declared, observations: m.observations });
  for (const d of deps) byCap.get(d.from_capability)?.deps.push({ to: d.to_capability, weight: d.weight });
  const statBy = new Map(stats.map((s) => [s.capability_id as string, { n: Number(s.n), ok: Number(s.ok) }]));
  return caps.map((c) => ({
    id: c.id,
    name: c.name,
    description: c.description,
    patterns: c.patterns as string[],
    keywords: c.keywords as string[],
    priority: c.priority,
    textHash: c.text_hash,
    members: byCap.get(c.id)?.members ?? [],
    dependsOn: byCap.get(c.id)?.deps ?? [],
    executions: statBy.get(c.id)?.n ?? 0,
    successes: statBy.get(c.id)?.ok ?? 0,
  }));
}

export interface ToolStatRow {
  tool: string;
  executions: number;
  successes: number;
  totalDurationMs: number;
  lastUsedAt: Date | null;
}

export async function loadToolStats(db: Db, project: string): Promise<ToolStatRow[]> {
  const rows = await db.selectFrom("tool_stats").selectAll().where("project", "=", project).execute();
  return rows.map((r) => ({
    tool: r.tool_id,
    executions: r.executions,
    successes: r.successes,
    totalDurationMs: r.total_duration_ms,
    lastUsedAt: r.last_used_at,
  }));
}

export interface ExecutionMemoryRow {
  id: string;
  user: string | null;
  intent: string;
  intentHash: string;
  capability: string | null;
  startedAt: Date;
  /** When it was recorded (epoch ms, the database's clock; a later import of old traces records them late). */
  recordedAt: number;
  success: boolean;
  steps: { tool: string; success: boolean }[];
}

export interface ProjectCounts {
  /** Every tool of the catalog, retired ones included. */
  tools: number;
  /** Tools whose upstream server no longer lists them (retired ones included). */
  unavailableTools: number;
  /** Tools unavailable past the gateway's grace period: out of search and the console, history kept. */
  retiredTools: number;
  capabilities: number;
  edges: number;
  executions: number;
  steps: number;
  embeddings: number;
  users: number;
  graphVersion: number;
}

export async function countProject(db: Db, project: string): Promise<ProjectCounts> {
  const one = async (table: keyof Database): Promise<number> => {
    const r = await db
      .selectFrom(table)
      .select(sql<string>`count(*)`.as("n"))
      .where("project" as never, "=", project as never)
      .executeTakeFirst();
    return Number((r as { n: string } | undefined)?.n ?? 0);
  };
  const version = await db
    .selectFrom("projects")
    .select("graph_version")
    .where("project", "=", project)
    .executeTakeFirst();
  const lifecycle = await db
    .selectFrom("tools")
    .select([
      sql<string>`count(*) filter (where not available)`.as("unavailable"),
      sql<string>`count(retired_at)`.as("retired"),
    ])
    .where("project", "=", project)
    .executeTakeFirst();
  return {
    tools: await one("tools"),
    unavailableTools: Number(lifecycle?.unavailable ?? 0),
    retiredTools: Number(lifecycle?.retired ?? 0),
    capabilities: await one("capabilities"),
    edges: await one("edges"),
    executions: await one("executions"),
    steps: await one("execution_steps"),
    embeddings: await one("embeddings"),
    users: await one("user_history"),
    graphVersion: Number(version?.graph_version ?? 0),
  };
}

export interface ExecutionSequenceRow {
  id: string;
  success: boolean;
  startedAt: Date;
  steps: { tool: string; success: boolean; dependsOn: number[] }[];
}

/** The most recent `limit` executions with their ordered steps (training data for learned weights). */
export async function loadExecutionSequences(db: Db, project: string, limit: number): Promise<ExecutionSequenceRow[]> {
  const execs = await db
    .selectFrom("executions")
    .select(["id", "success", "started_at"])
    .where("project", "=", project)
    .orderBy("started_at", "desc")
    .orderBy("id")
    .limit(limit)
    .execute();
  if (execs.length === 0) return [];
  const steps = await db
    .selectFrom("execution_steps")
    .select(["execution_id", "idx", "tool_id", "success", "depends_on"])
    .where("project", "=", project)
    .where("execution_id", "=", sql<string>`ANY(${execs.map((e) => e.id)})`)
    .orderBy("execution_id")
    .orderBy("idx")
    .execute();
  const by = new Map<string, ExecutionSequenceRow["steps"]>();
  groupSteps(steps, by);
  return execs
    .map((e) => ({ id: e.id, success: e.success, startedAt: e.started_at, steps: by.get(e.id) ?? [] }))
    .reverse();
}

/** Appends step rows (ordered by execution, index) to their execution's list in `by`. */
function groupSteps(
  steps: readonly { execution_id: string; tool_id: string; success: boolean; depends_on: unknown }[],
  by: Map<string, { tool: string; success: boolean; dependsOn: number[] }[]>,
): void {
  for (const st of steps) {
    let l = by.get(st.execution_id);
    if (!l) {
      l = [];
      by.set(st.execution_id, l);
    }
    l.push({ tool: st.tool_id, success: st.success, dependsOn: st.depends_on as number[] });
  }
}

/** An execution with everything the history views read (intent memory, sequences for fits and calibration). */
export interface ExecutionHistoryRow {
  id: string;
  user: string | null;
  intent: string | null;
  intentHash: string | null;
  capability: string | null;
  startedAt: Date;
  /** When it was recorded (epoch ms, the database's clock). */
  recordedAt: number;
  success: boolean;
  steps: { tool: string; success: boolean; dependsOn: number[] }[];
}

/** Step rows per read of `loadExecutionHistory` (10,000 were still 40 ms of parsing and grouping on PostgreSQL). */
const HISTORY_PAGE = 5000;

interface ExecutionPageRow {
  id: string;
  user_id: string | null;
  intent: string | null;
  intent_hash: string | null;
  capability_id: string | null;
  started_at: Date;
  recorded_at: Date | string;
  success: boolean;
  at_key: string;
}

/**
 * Every execution of the project (or only those of `ids`) with its ordered steps, by start time then id:
 * one read of the history where the intent memory and the sequences each read their own.
 */
export async function loadExecutionHistory(
  db: Db,
  project: string,
  ids?: readonly string[],
): Promise<ExecutionHistoryRow[]> {
  if (ids && ids.length === 0) return [];
  // The whole history is read in pages (below): in one repeatable-read transaction, so they are of one state.
  if (!ids && !db.isTransaction)
    return db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute((trx) => loadExecutionHistory(trx, project));
  // Executions in pages of HISTORY_PAGE / 2 (keyset on start time and id; the start time's text is exact to the
  // microsecond, where a Date is not), a turn of the event loop between pages: 17k rows in one result were
  // parsed in a few socket reads, tens of ms of the event loop.
  const execs: ExecutionPageRow[] = [];
  let from: { at: string; id: string } | undefined;
  for (;;) {
    let q = db
      .selectFrom("executions")
      .select(["id", "user_id", "intent", "intent_hash", "capability_id", "started_at", "recorded_at", "success"])
      .select(sql<string>`started_at::text`.as("at_key"))
      .where("project", "=", project);
    if (ids) q = q.where("id", "=", sql<string>`ANY(${[...ids]})`);
    if (from) q = q.where(sql<boolean>`(started_at, id) > (${from.at}::timestamptz, ${from.id})`);
    const page = await q
      .orderBy("started_at")
      .orderBy("id")
      .limit(HISTORY_PAGE / 2)
      .execute();
    for (const r of page) execs.push(r);
    if (page.length < HISTORY_PAGE / 2) break;
    const last = page[page.length - 1]!;
    from = { at: last.at_key, id: last.id };
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Steps in pages of HISTORY_PAGE rows (keyset on execution id, index), a turn of the event loop between
  // pages: on the embedded database a statement runs on the event loop (100k steps in one took seconds).
  const by = new Map<string, ExecutionHistoryRow["steps"]>();
  let after: { id: string; idx: number } | undefined;
  for (;;) {
    let sq = db
      .selectFrom("execution_steps")
      .select(["execution_id", "idx", "tool_id", "success", "depends_on"])
      .where("project", "=", project);
    if (ids) sq = sq.where("execution_id", "=", sql<string>`ANY(${[...ids]})`);
    if (after) sq = sq.where(sql<boolean>`(execution_id, idx) > (${after.id}, ${after.idx})`);
    const steps = await sq.orderBy("execution_id").orderBy("idx").limit(HISTORY_PAGE).execute();
    groupSteps(steps, by);
    if (steps.length < HISTORY_PAGE) break;
    const last = steps[steps.length - 1]!;
    after = { id: last.execution_id, idx: last.idx };
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // The rows in slices of HISTORY_PAGE / 5 executions, a turn of the event loop between them (17k rows in one
  // map were tens of ms).
  const out: ExecutionHistoryRow[] = [];
  for (let i = 0; i < execs.length; i++) {
    if (i > 0 && i % (HISTORY_PAGE / 5) === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const e = execs[i]!;
    out.push({
      id: e.id,
      user: e.user_id,
      intent: e.intent,
      intentHash: e.intent_hash,
      capability: e.capability_id,
      startedAt: e.started_at,
      recordedAt: new Date(e.recorded_at).getTime(),
      success: e.success,
      steps: by.get(e.id) ?? [],
    });
  }
  return out;
}
