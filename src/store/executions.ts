/**
 * The write path for executions: rows, steps, learned edge counts, tool counters and capability
 * observations, all batched. Callers wrap it in one transaction and bump the graph version.
 * Idempotent: an execution id already stored is skipped (INSERT … ON CONFLICT DO NOTHING RETURNING),
 * so re-importing the same traces never counts twice, even from two processes at once.
 */
import { type Kysely, sql, type Transaction } from "kysely";
import { learnEdges } from "../../algorithms/graph/edge-learning.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import { chunks } from "./catalog.ts";
import type { Database } from "./schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

const SHORT = { dependency: "dep", contains: "con", provides: "prov", sequence: "seq" } as const;

export interface InsertExecutionsResult {
  inserted: string[];
  skipped: string[];
  steps: number;
  edgesTouched: number;
}

export async function insertExecutions(
  db: Db,
  project: string,
  executions: readonly ExecutionInput[],
  intentHash: (intent: string) => string,
): Promise<InsertExecutionsResult> {
  // Bulk inserts pass one array per column and unnest them server-side: one parameter per column instead
  // of one per cell, which keeps statements small and fast on both backends.
  const insertedIds = new Set<string>();
  for (const part of chunks(executions, 5000)) {
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
        ${part.map((e) => e.steps.reduce((t, st) => t + (st.durationMs ?? 0), 0))}::float8[],
        ${part.map((e) => e.steps.length)}::int[]
      )
      ON CONFLICT (project, id) DO NOTHING
      RETURNING id`.execute(db);
    for (const r of rows.rows) insertedIds.add(r.id);
  }
  const fresh = executions.filter((e) => insertedIds.has(e.id));
  const skipped = executions.filter((e) => !insertedIds.has(e.id)).map((e) => e.id);

  // Steps.
  const stepRows = fresh.flatMap((e) =>
    e.steps.map((s, idx) => ({
      project,
      execution_id: e.id,
      idx,
      tool_id: s.tool,
      parent_idx: s.parent ?? null,
      depends_on: JSON.stringify(s.dependsOn),
      success: s.success,
      duration_ms: s.durationMs ?? null,
      at: s.at ?? null,
    })),
  );
  for (const part of chunks(stepRows, 20000)) {
    await sql`
      INSERT INTO execution_steps (project, execution_id, idx, tool_id, parent_idx, depends_on, success, duration_ms, at)
      SELECT ${project}, * FROM unnest(
        ${part.map((r) => r.execution_id)}::text[],
        ${part.map((r) => r.idx)}::int[],
        ${part.map((r) => r.tool_id)}::text[],
        ${part.map((r) => r.parent_idx)}::int[],
        ${part.map((r) => r.depends_on)}::jsonb[],
        ${part.map((r) => r.success)}::boolean[],
        ${part.map((r) => r.duration_ms)}::float8[],
        ${part.map((r) => (r.at ? r.at.toISOString() : null))}::timestamptz[]
      )`.execute(db);
  }

  // Learned edges, aggregated over the batch: one upsert per distinct (from, to).
  interface Agg {
    from: string;
    to: string;
    dep: number;
    con: number;
    prov: number;
    seq: number;
    first: Date;
    last: Date;
  }
  const edges = new Map<string, Agg>();
  for (const e of fresh) {
    const seen = e.steps.reduce((t, s) => (s.at && s.at > t ? s.at : t), e.startedAt);
    for (const ob of learnEdges(e.steps)) {
      const key = `${ob.from}\u0000${ob.to}`;
      let a = edges.get(key);
      if (!a) {
        a = { from: ob.from, to: ob.to, dep: 0, con: 0, prov: 0, seq: 0, first: seen, last: seen };
        edges.set(key, a);
      }
      a[SHORT[ob.type]]++;
      if (seen < a.first) a.first = seen;
      if (seen > a.last) a.last = seen;
    }
  }
  const edgeRows = [...edges.values()].sort((x, y) => (x.from === y.from ? (x.to < y.to ? -1 : 1) : x.from < y.from ? -1 : 1));
  for (const part of chunks(edgeRows, 3000)) {
    await db
      .insertInto("edges")
      .values(
        part.map((a) => ({
          project,
          from_tool: a.from,
          to_tool: a.to,
          dep_count: a.dep,
          con_count: a.con,
          prov_count: a.prov,
          seq_count: a.seq,
          first_seen: a.first,
          last_seen: a.last,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["project", "from_tool", "to_tool"]).doUpdateSet({
          dep_count: sql`edges.dep_count + excluded.dep_count`,
          con_count: sql`edges.con_count + excluded.con_count`,
          prov_count: sql`edges.prov_count + excluded.prov_count`,
          seq_count: sql`edges.seq_count + excluded.seq_count`,
          first_seen: sql`LEAST(COALESCE(edges.first_seen, excluded.first_seen), excluded.first_seen)`,
          last_seen: sql`GREATEST(COALESCE(edges.last_seen, excluded.last_seen), excluded.last_seen)`,
        }),
      )
      .execute();
  }

  // Per-tool counters: real counts of executions of each tool (one per step).
  interface ToolAgg {
    n: number;
    ok: number;
    dur: number;
    last: Date;
  }
  const tools = new Map<string, ToolAgg>();
  for (const e of fresh) {
    for (const s of e.steps) {
      const at = s.at ?? e.startedAt;
      let t = tools.get(s.tool);
      if (!t) {
        t = { n: 0, ok: 0, dur: 0, last: at };
        tools.set(s.tool, t);
      }
      t.n++;
      if (s.success) t.ok++;
      t.dur += s.durationMs ?? 0;
      if (at > t.last) t.last = at;
    }
  }
  const toolRows = [...tools.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const part of chunks(toolRows, 3000)) {
    await db
      .insertInto("tool_stats")
      .values(part.map(([id, t]) => ({ project, tool_id: id, executions: t.n, successes: t.ok, total_duration_ms: t.dur, last_used_at: t.last })))
      .onConflict((oc) =>
        oc.columns(["project", "tool_id"]).doUpdateSet({
          executions: sql`tool_stats.executions + excluded.executions`,
          successes: sql`tool_stats.successes + excluded.successes`,
          total_duration_ms: sql`tool_stats.total_duration_ms + excluded.total_duration_ms`,
          last_used_at: sql`GREATEST(tool_stats.last_used_at, excluded.last_used_at)`,
        }),
      )
      .execute();
  }

  // Capability → member tool observations (the bipartite hypergraph's `contains` evidence).
  const capObs = new Map<string, { cap: string; tool: string; n: number }>();
  for (const e of fresh) {
    if (!e.capability) continue;
    for (const tool of new Set(e.steps.map((s) => s.tool))) {
      const key = `${e.capability}\u0000${tool}`;
      const c = capObs.get(key) ?? { cap: e.capability, tool, n: 0 };
      c.n++;
      capObs.set(key, c);
    }
  }
  const capRows = [...capObs.values()].sort((a, b) => (a.cap === b.cap ? (a.tool < b.tool ? -1 : 1) : a.cap < b.cap ? -1 : 1));
  for (const part of chunks(capRows, 3000)) {
    await db
      .insertInto("capability_tools")
      .values(part.map((c) => ({ project, capability_id: c.cap, tool_id: c.tool, declared: false, observations: c.n })))
      .onConflict((oc) =>
        oc.columns(["project", "capability_id", "tool_id"]).doUpdateSet({ observations: sql`capability_tools.observations + excluded.observations` }),
      )
      .execute();
  }

  return { inserted: fresh.map((e) => e.id), skipped, steps: stepRows.length, edgesTouched: edgeRows.length };
}
