/**
 * The write path for executions: rows, steps, learned edge counts, tool counters and capability
 * observations. Two entry points share one SQL generator, so they store exactly the same rows:
 *
 * - `insertExecutions` (a batch: an import file): the executions' rows first (INSERT … ON CONFLICT DO
 *   NOTHING RETURNING id, chunked), then what the fresh ones add: their steps and their edge increments in
 *   statements of 2,000 rows, then the tool and capability counters in one. The caller wraps it in a
 *   transaction and bumps the graph version.
 * - `insertExecution` (one recorded execution): ONE statement of data-modifying CTEs — the execution row
 *   (ON CONFLICT DO NOTHING), then, gated on that insert, its steps, edge / tool / capability increments,
 *   the user's new history, and the graph version bump, so the bump happens exactly once and only when
 *   the row was inserted. `checkExecution` is the statement before it: which tools and capability exist,
 *   the graph version, and the user's history row, locked (created empty for a new user) only when the
 *   references are valid.
 *
 * Idempotent: an execution id already stored is skipped, so re-recording never counts twice, even from
 * two processes at once (the second INSERT waits for the first to commit, then conflicts).
 * What an execution teaches the graph (its edge observations and its successions) is computed above the
 * store and handed down as `edgesOf`; the store only counts. Increments are aggregated per key and sorted, so concurrent writers lock rows of each table in one
 * order; in the single statement the project row (graph version) is locked last, as in the batch path.
 */
import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import type { UserHistory } from "../../algorithms/thresholds/user-history.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import { chunks } from "./catalog.ts";
import { PREPARE_MARK } from "./prepared.ts";
import type { Database } from "./schema.ts";
import { lockUserHistoryCte, writeUserHistoryCtes } from "./user-state.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** One learned edge observation of an execution (computed above the store, algorithms/graph/edge-learning.ts). */
export interface EdgeObservationRow {
  readonly from: string;
  readonly to: string;
  readonly type: "dependency" | "contains" | "provides" | "sequence";
}

/**
 * What one execution teaches the graph, handed down by the caller (the store only counts): its distinct
 * edge observations (per type) and its distinct successions (each (from, to) that followed once, whatever
 * the types it was observed as: the next-step co-occurrence).
 */
export type EdgesOf = (e: ExecutionInput) => {
  readonly edges: readonly EdgeObservationRow[];
  readonly successions: readonly { readonly from: string; readonly to: string }[];
};

const SHORT = { dependency: "dep", contains: "con", provides: "prov", sequence: "seq" } as const;

export interface InsertExecutionsResult {
  inserted: string[];
  skipped: string[];
  steps: number;
  edgesTouched: number;
}

interface EdgeIncrement {
  from: string;
  to: string;
  dep: number;
  con: number;
  prov: number;
  seq: number;
  succ: number;
  first: Date;
  last: Date;
}

interface ToolIncrement {
  tool: string;
  n: number;
  ok: number;
  dur: number;
  last: Date;
}

interface CapabilityIncrement {
  cap: string;
  tool: string;
  n: number;
}

/** What fresh executions add besides their own rows: their steps and increments aggregated per key. */
export interface ExecutionIncrements {
  steps: {
    execution: string;
    idx: number;
    tool: string;
    parent: number | null;
    dependsOn: string;
    success: boolean;
    durationMs: number | null;
    at: Date | null;
  }[];
  /** One per distinct (from, to), sorted. */
  edges: EdgeIncrement[];
  /** One per distinct tool, sorted: one execution per step. */
  tools: ToolIncrement[];
  /** One per distinct (capability, tool), sorted: each labelled execution observes each of its tools once. */
  capabilities: CapabilityIncrement[];
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The steps and aggregated increments of these executions (no I/O). */
export function executionIncrements(fresh: readonly ExecutionInput[], edgesOf: EdgesOf): ExecutionIncrements {
  const steps = executionIncrementsSteps(fresh, edgesOf);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `executionIncrements`, yielding after each execution's steps and edges, every 500 executions' counters and
 * around the sort of the edges (a batch of 5,000 is ~100 ms of work).
 */
function* executionIncrementsSteps(
  fresh: readonly ExecutionInput[],
  edgesOf: EdgesOf,
): Generator<void, ExecutionIncrements, void> {
  const steps: ExecutionIncrements["steps"] = [];
  for (const e of fresh) {
    e.steps.forEach((s, idx) => {
      steps.push({
        execution: e.id,
        idx,
        tool: s.tool,
        parent: s.parent ?? null,
        dependsOn: JSON.stringify(s.dependsOn),
        success: s.success,
        durationMs: s.durationMs ?? null,
        at: s.at ?? null,
      });
    });
    yield;
  }

  const edges = new Map<string, EdgeIncrement>();
  for (const e of fresh) {
    const seen = e.steps.reduce((t, s) => (s.at && s.at > t ? s.at : t), e.startedAt);
    const learned = edgesOf(e);
    const at = (from: string, to: string): EdgeIncrement => {
      const key = `${from}\u0000${to}`;
      let a = edges.get(key);
      if (!a) {
        a = { from, to, dep: 0, con: 0, prov: 0, seq: 0, succ: 0, first: seen, last: seen };
        edges.set(key, a);
      }
      if (seen < a.first) a.first = seen;
      if (seen > a.last) a.last = seen;
      return a;
    };
    for (const ob of learned.edges) at(ob.from, ob.to)[SHORT[ob.type]]++;
    for (const ob of learned.successions) at(ob.from, ob.to).succ++;
    yield;
  }

  const tools = new Map<string, ToolIncrement>();
  for (let i = 0; i < fresh.length; i++) {
    if (i > 0 && i % 500 === 0) yield;
    const e = fresh[i]!;
    for (const s of e.steps) {
      const at = s.at ?? e.startedAt;
      let t = tools.get(s.tool);
      if (!t) {
        t = { tool: s.tool, n: 0, ok: 0, dur: 0, last: at };
        tools.set(s.tool, t);
      }
      t.n++;
      if (s.success) t.ok++;
      t.dur += s.durationMs ?? 0;
      if (at > t.last) t.last = at;
    }
  }

  yield;
  const caps = new Map<string, CapabilityIncrement>();
  for (let i = 0; i < fresh.length; i++) {
    if (i > 0 && i % 500 === 0) yield;
    const e = fresh[i]!;
    if (!e.capability) continue;
    for (const tool of new Set(e.steps.map((s) => s.tool))) {
      const key = `${e.capability}\u0000${tool}`;
      const c = caps.get(key) ?? { cap: e.capability, tool, n: 0 };
      c.n++;
      caps.set(key, c);
    }
  }

  yield;
  const sortedEdges = [...edges.values()].sort((x, y) => byKey(x.from, y.from) || byKey(x.to, y.to));
  yield;
  return {
    steps,
    edges: sortedEdges,
    tools: [...tools.values()].sort((x, y) => byKey(x.tool, y.tool)),
    capabilities: [...caps.values()].sort((x, y) => byKey(x.cap, y.cap) || byKey(x.tool, y.tool)),
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The data-modifying CTEs writing `inc` (one per non-empty part, each `RETURNING 1`), every row filtered
 * by `gate`. Arrays are passed one per column and unnested server-side: one parameter per column.
 */
function incrementCtes(
  project: string,
  inc: ExecutionIncrements,
  gate: RawBuilder<unknown>,
): { name: string; cte: RawBuilder<unknown> }[] {
  const out: { name: string; cte: RawBuilder<unknown> }[] = [];
  const s = inc.steps;
  if (s.length > 0) {
    out.push({
      name: "ins_steps",
      cte: sql`ins_steps AS (
        INSERT INTO execution_steps (project, execution_id, idx, tool_id, parent_idx, depends_on, success, duration_ms, at)
        SELECT ${project}, r.* FROM unnest(
          ${s.map((r) => r.execution)}::text[], ${s.map((r) => r.idx)}::int[], ${s.map((r) => r.tool)}::text[],
          ${s.map((r) => r.parent)}::int[], ${s.map((r) => r.dependsOn)}::jsonb[], ${s.map((r) => r.success)}::boolean[],
          ${s.map((r) => r.durationMs)}::float8[], ${s.map((r) => iso(r.at))}::timestamptz[]
        ) AS r WHERE ${gate}
        RETURNING 1)`,
    });
  }
  const e = inc.edges;
  if (e.length > 0) {
    out.push({
      name: "up_edges",
      cte: sql`up_edges AS (
        INSERT INTO edges (project, from_tool, to_tool, dep_count, con_count, prov_count, seq_count, succ_count, first_seen, last_seen)
        SELECT ${project}, r.* FROM unnest(
          ${e.map((a) => a.from)}::text[], ${e.map((a) => a.to)}::text[], ${e.map((a) => a.dep)}::int[], ${e.map((a) => a.con)}::int[],
          ${e.map((a) => a.prov)}::int[], ${e.map((a) => a.seq)}::int[], ${e.map((a) => a.succ)}::int[], ${e.map((a) => iso(a.first))}::timestamptz[],
          ${e.map((a) => iso(a.last))}::timestamptz[]
        ) AS r WHERE ${gate}
        ON CONFLICT (project, from_tool, to_tool) DO UPDATE SET
          dep_count = edges.dep_count + excluded.dep_count,
          con_count = edges.con_count + excluded.con_count,
          prov_count = edges.prov_count + excluded.prov_count,
          seq_count = edges.seq_count + excluded.seq_count,
          succ_count = edges.succ_count + excluded.succ_count,
          first_seen = LEAST(COALESCE(edges.first_seen, excluded.first_seen), excluded.first_seen),
          last_seen = GREATEST(COALESCE(edges.last_seen, excluded.last_seen), excluded.last_seen)
        RETURNING 1)`,
    });
  }
  const t = inc.tools;
  if (t.length > 0) {
    out.push({
      name: "up_tool_stats",
      cte: sql`up_tool_stats AS (
        INSERT INTO tool_stats (project, tool_id, executions, successes, total_duration_ms, last_used_at)
        SELECT ${project}, r.* FROM unnest(
          ${t.map((x) => x.tool)}::text[], ${t.map((x) => x.n)}::int[], ${t.map((x) => x.ok)}::int[],
          ${t.map((x) => x.dur)}::float8[], ${t.map((x) => iso(x.last))}::timestamptz[]
        ) AS r WHERE ${gate}
        ON CONFLICT (project, tool_id) DO UPDATE SET
          executions = tool_stats.executions + excluded.executions,
          successes = tool_stats.successes + excluded.successes,
          total_duration_ms = tool_stats.total_duration_ms + excluded.total_duration_ms,
          last_used_at = GREATEST(tool_stats.last_used_at, excluded.last_used_at)
        RETURNING 1)`,
    });
  }
  const c = inc.capabilities;
  if (c.length > 0) {
    out.push({
      name: "up_capability_tools",
      cte: sql`up_capability_tools AS (
        INSERT INTO capability_tools (project, capability_id, tool_id, declared, observations)
        SELECT ${project}, r.cap, r.tool, false, r.n FROM unnest(
          ${c.map((x) => x.cap)}::text[], ${c.map((x) => x.tool)}::text[], ${c.map((x) => x.n)}::int[]
        ) AS r(cap, tool, n) WHERE ${gate}
        ON CONFLICT (project, capability_id, tool_id) DO UPDATE SET observations = capability_tools.observations + excluded.observations
        RETURNING 1)`,
    });
  }
  return out;
}

/** Step rows per statement of a batch insert (docs/decisions/ingestion-first-answer.md). */
const STEP_CHUNK = 2000;

const durationOf = (e: ExecutionInput) => e.steps.reduce((t, st) => t + (st.durationMs ?? 0), 0);

export async function insertExecutions(
  db: Db,
  project: string,
  executions: readonly ExecutionInput[],
  intentHash: (intent: string) => string,
  edgesOf: EdgesOf,
): Promise<InsertExecutionsResult> {
  const insertedIds = new Set<string>();
  for (const part of chunks(executions, 1000)) {
    if (insertedIds.size > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const rows = await sql<{ id: string }>`
      INSERT INTO executions (project, id, user_id, intent, intent_hash, capability_id, started_at, success, duration_ms, step_count)
      SELECT ${project}, * FROM unnest(
        ${part.map((e) => e.id)}::text[],
        ${part.map((e) => e.user ?? null)}::text[],
        ${part.map((e) => e.intent ?? null)}::text[],
        ${part.map((e) => (e.intent ? intentHash(e.intent) : null))}::text[],
        ${part.map((e) => e.capability ?? null)}::text[],
        ${part.map((e) => e.startedAt.toISOString())}::timestamptz[],
        ${part.map((e) => e.success)}::boolean[],
        ${part.map(durationOf)}::float8[],
        ${part.map((e) => e.steps.length)}::int[]
      )
      ON CONFLICT (project, id) DO NOTHING
      RETURNING id`.execute(db);
    for (const r of rows.rows) insertedIds.add(r.id);
  }
  const fresh = executions.filter((e) => insertedIds.has(e.id));
  const skipped = executions.filter((e) => !insertedIds.has(e.id)).map((e) => e.id);
  // Computed in slices of ≤ 8 ms with a turn of the event loop between them.
  const incSteps = executionIncrementsSteps(fresh, edgesOf);
  let inc: ExecutionIncrements | undefined;
  let t = performance.now();
  while (inc === undefined) {
    const r = incSteps.next();
    if (r.done) inc = r.value;
    else if (performance.now() - t > 8) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      t = performance.now();
    }
  }
  // The steps (new rows, no lock taken on others' rows) in statements of STEP_CHUNK rows, with a turn of the
  // event loop between them: on the embedded database a statement runs on the event loop, and 100k steps in
  // one took seconds. Then everything else the fresh executions add, in one statement (aggregated over the
  // whole batch, so each table's rows are locked in one sorted order).
  for (const part of chunks(inc.steps, STEP_CHUNK)) {
    const ctes = incrementCtes(project, { steps: part, edges: [], tools: [], capabilities: [] }, sql`true`);
    await sql`WITH ${sql.join(
      ctes.map((c) => c.cte),
      sql`, `,
    )} SELECT 1`.execute(db);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // The edges likewise, STEP_CHUNK rows per statement in their sorted order (so the rows of the table are still
  // locked in that one order), then the tool and capability counters.
  for (const part of chunks(inc.edges, STEP_CHUNK)) {
    const edgeCtes = incrementCtes(project, { steps: [], edges: part, tools: [], capabilities: [] }, sql`true`);
    await sql`WITH ${sql.join(
      edgeCtes.map((c) => c.cte),
      sql`, `,
    )} SELECT 1`.execute(db);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const ctes = incrementCtes(project, { ...inc, steps: [], edges: [] }, sql`true`);
  if (ctes.length > 0) {
    await sql`WITH ${sql.join(
      ctes.map((c) => c.cte),
      sql`, `,
    )} SELECT 1`.execute(db);
  }
  return { inserted: fresh.map((e) => e.id), skipped, steps: inc.steps.length, edgesTouched: inc.edges.length };
}

export interface ExecutionCheck {
  /** The execution's tools that exist in the project. */
  tools: Set<string>;
  /** Its capability, if it exists. */
  capabilities: Set<string>;
  /** The user's history, locked (the placeholder for a new user); undefined without `user` or when
   * validation failed (then nothing was locked or written). */
  history: UserHistory | undefined;
  /** The project's graph version (0 before its first write). */
  graphVersion: number;
}

export interface CheckExecutionOptions {
  /** Lock this user's history row until the transaction ends and return it (see `lockUserHistoryCte`);
   * `placeholder` is the history of a new user (an empty one). Only when every tool and the capability
   * exist, or `autoRegister`. */
  user?: { id: string; placeholder: UserHistory } | undefined;
  autoRegister?: boolean | undefined;
}

/**
 * The one statement before recording one execution: which of `tools` and `capabilities` exist, the graph
 * version, and, with `user`, that user's history, locked first (every recorder of one user takes this
 * lock before any other, so they queue instead of deadlocking, and each reads the last one's result).
 */
export async function checkExecution(
  db: Db,
  project: string,
  tools: readonly string[],
  capabilities: readonly string[],
  options: CheckExecutionOptions = {},
): Promise<ExecutionCheck> {
  const user = options.user;
  const valid = sql`(SELECT count(*) FROM known_tools) = ${tools.length} AND (SELECT count(*) FROM known_caps) = ${capabilities.length}`;
  const row = (
    await sql<{
      tools: string[];
      capabilities: string[];
      history: UserHistory | null;
      graph_version: string | number | null;
    }>`${sql.raw(PREPARE_MARK)}
      WITH known_tools AS (SELECT id FROM tools WHERE project = ${project} AND id = ANY(${[...tools]}::text[])),
      known_caps AS (SELECT id FROM capabilities WHERE project = ${project} AND id = ANY(${[...capabilities]}::text[]))
      ${user ? sql`, locked AS (${lockUserHistoryCte(project, user.id, user.placeholder, options.autoRegister ? sql`true` : valid)})` : sql``}
      SELECT
        ARRAY(SELECT id FROM known_tools) AS tools,
        ARRAY(SELECT id FROM known_caps) AS capabilities,
        ${user ? sql`(SELECT history FROM locked)` : sql`NULL::jsonb`} AS history,
        (SELECT graph_version FROM projects WHERE project = ${project}) AS graph_version`.execute(db)
  ).rows[0]!;
  return {
    tools: new Set(row.tools),
    capabilities: new Set(row.capabilities),
    history: row.history ?? undefined,
    graphVersion: Number(row.graph_version ?? 0),
  };
}

export interface InsertExecutionOptions {
  /** The user's new history (written if the execution is inserted) and the placeholder `checkExecution`
   * locked the row with (removed again if it created the row and nothing was inserted). */
  history?: { user: string; history: UserHistory; placeholder: UserHistory } | undefined;
  /** Bump the graph version even if the execution was already stored (tools were just registered). */
  bumpIfSkipped?: boolean | undefined;
}

export interface InsertExecutionResult {
  inserted: boolean;
  steps: number;
  edgesTouched: number;
  /** The bumped version if something was bumped, else the current one. */
  graphVersion: number;
}

/** Records one execution in ONE statement (see the file header). */
export async function insertExecution(
  db: Db,
  project: string,
  e: ExecutionInput,
  intentHash: (intent: string) => string,
  edgesOf: EdgesOf,
  options: InsertExecutionOptions = {},
): Promise<InsertExecutionResult> {
  const inc = executionIncrements([e], edgesOf);
  const inserted = sql`EXISTS (SELECT 1 FROM ins_exec)`;
  const parts = incrementCtes(project, inc, inserted);
  if (options.history) {
    const h = options.history;
    const w = writeUserHistoryCtes(project, h.user, h.history, h.placeholder, inserted);
    parts.push(
      { name: "up_user_history", cte: sql`up_user_history AS (${w.write})` },
      { name: "drop_placeholder", cte: sql`drop_placeholder AS (${w.dropPlaceholder})` },
    );
  }
  // `written` reads every other CTE to the end, and the bump reads `written`: the project row is locked last.
  const written =
    parts.length > 0
      ? sql.join(
          parts.map((p) => sql`(SELECT count(*) FROM ${sql.table(p.name)})`),
          sql` + `,
        )
      : sql`0`;
  const ctes = [
    sql`ins_exec AS (
      INSERT INTO executions (project, id, user_id, intent, intent_hash, capability_id, started_at, success, duration_ms, step_count)
      VALUES (${project}, ${e.id}, ${e.user ?? null}, ${e.intent ?? null}, ${e.intent ? intentHash(e.intent) : null}, ${e.capability ?? null},
        ${e.startedAt.toISOString()}::timestamptz, ${e.success}, ${durationOf(e)}::float8, ${e.steps.length}::int)
      ON CONFLICT (project, id) DO NOTHING
      RETURNING id)`,
    ...parts.map((p) => p.cte),
    sql`written AS MATERIALIZED (SELECT ${written} AS n)`,
    sql`bump AS (
      INSERT INTO projects (project, graph_version)
      SELECT ${project}, 1 FROM written WHERE written.n >= 0 AND (${inserted} OR ${options.bumpIfSkipped ?? false}::boolean)
      ON CONFLICT (project) DO UPDATE SET graph_version = projects.graph_version + 1, updated_at = now()
      RETURNING graph_version)`,
  ];
  const row = (
    await sql<{
      inserted: number;
      bumped: string | number | null;
      current: string | number | null;
    }>`${sql.raw(PREPARE_MARK)}
      WITH ${sql.join(ctes, sql`, `)}
      SELECT
        (SELECT count(*) FROM ins_exec)::int AS inserted,
        (SELECT graph_version FROM bump) AS bumped,
        (SELECT graph_version FROM projects WHERE project = ${project}) AS current`.execute(db)
  ).rows[0]!;
  const ok = row.inserted > 0;
  return {
    inserted: ok,
    steps: ok ? inc.steps.length : 0,
    edgesTouched: ok ? inc.edges.length : 0,
    graphVersion: Number(row.bumped ?? row.current ?? 0),
  };
}
