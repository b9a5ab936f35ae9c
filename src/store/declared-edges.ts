/** Declared edges (bootstrap templates and known dependencies): raise a type's declared level. */
import { type Kysely, sql, type Transaction } from "kysely";
import type { DeclaredEdgeInput } from "../formats/schemas.ts";
import { chunks } from "./catalog.ts";
import type { Database } from "./schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

const COLUMN = {
  dependency: "dep_declared",
  contains: "con_declared",
  provides: "prov_declared",
  sequence: "seq_declared",
} as const;

/**
 * `levelOf` maps a declared source to its evidence level (algorithms/graph/edge-quality.ts LEVEL_OF), handed
 * down by the caller: the store knows no algorithm.
 */
export async function upsertDeclaredEdges(
  db: Db,
  project: string,
  edges: readonly DeclaredEdgeInput[],
  levelOf: (source: DeclaredEdgeInput["source"]) => number,
): Promise<number> {
  // Aggregate: the best declared level per (from, to, type).
  const agg = new Map<string, { from: string; to: string; dep: number; con: number; prov: number; seq: number }>();
  for (const e of edges) {
    const key = `${e.from}\u0000${e.to}`;
    const a = agg.get(key) ?? { from: e.from, to: e.to, dep: 0, con: 0, prov: 0, seq: 0 };
    const col = COLUMN[e.type].split("_")[0] as "dep" | "con" | "prov" | "seq";
    a[col] = Math.max(a[col], levelOf(e.source));
    agg.set(key, a);
  }
  const rows = [...agg.values()];
  for (const part of chunks(rows, 3000)) {
    await db
      .insertInto("edges")
      .values(
        part.map((a) => ({
          project,
          from_tool: a.from,
          to_tool: a.to,
          dep_declared: a.dep,
          con_declared: a.con,
          prov_declared: a.prov,
          seq_declared: a.seq,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["project", "from_tool", "to_tool"]).doUpdateSet({
          dep_declared: sql`GREATEST(edges.dep_declared, excluded.dep_declared)`,
          con_declared: sql`GREATEST(edges.con_declared, excluded.con_declared)`,
          prov_declared: sql`GREATEST(edges.prov_declared, excluded.prov_declared)`,
          seq_declared: sql`GREATEST(edges.seq_declared, excluded.seq_declared)`,
        }),
      )
      .execute();
  }
  return rows.length;
}
