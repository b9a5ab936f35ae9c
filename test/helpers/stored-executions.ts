/**
 * What a fault load left in the database, checked against what it was told: every acknowledged execution
 * stored with all its steps, no step without its execution, and edge counters equal to those of a clean
 * import of exactly the stored executions (no half-applied write). Shared by the fault tests.
 */

import { faultCatalog, faultExecution, type LoadRecord } from "../../bench/lib/fault-load.ts";
import type { PgCluster } from "../../bench/lib/pg-cluster.ts";
import { openToolgraph } from "../../src/library/toolgraph.ts";

export interface StoredAudit {
  stored: number;
  /** Acknowledged (2xx) but not stored: must be empty. */
  acknowledgedMissing: string[];
  /** Stored with a step count other than the one sent: must be empty. */
  incomplete: string[];
  orphanSteps: number;
  /** The project's edge counters equal those of a clean import of the stored executions. */
  edgesMatch: boolean;
  edges: number;
}

export async function auditStored(
  cluster: PgCluster,
  project: string,
  records: LoadRecord[],
  acknowledged: string[],
): Promise<StoredAudit> {
  const rows = await cluster.query<{ id: string; step_count: number; steps: string }>(
    `SELECT e.id, e.step_count, (SELECT count(*) FROM execution_steps s WHERE s.project = e.project AND s.execution_id = e.id) AS steps
       FROM executions e WHERE e.project = $1`,
    [project],
  );
  const stored = new Map(rows.map((r) => [r.id, r]));
  const stepsOf = new Map(records.filter((x) => x.kind === "record").map((x) => [x.id!, x.steps!]));
  const orphans = await cluster.query<{ n: string }>(
    "SELECT count(*) AS n FROM execution_steps s WHERE s.project = $1 AND NOT EXISTS (SELECT 1 FROM executions e WHERE e.project = s.project AND e.id = s.execution_id)",
    [project],
  );
  const ref = `${project}-ref`;
  const tg = await openToolgraph({ database: cluster.url, project: ref, embeddings: "hash:256", poolSize: 2 });
  try {
    await tg.importCatalog(faultCatalog(), { embed: false });
    const executions = [...stored.keys()].map((id) => {
      const [, w, n] = /^w(\d+)-n(\d+)$/.exec(id)!;
      return faultExecution(Number(w), Number(n), "2026-11-01T12:00:00Z");
    });
    if (executions.length > 0) await tg.importTraces(executions);
  } finally {
    await tg.close();
  }
  const edges = await cluster.query<{ project: string; from_tool: string; to_tool: string; dep: string; seq: string }>(
    "SELECT project, from_tool, to_tool, dep_count::text AS dep, seq_count::text AS seq FROM edges WHERE project IN ($1, $2) ORDER BY from_tool, to_tool",
    [project, ref],
  );
  const strip = (p: string) => JSON.stringify(edges.filter((e) => e.project === p).map(({ project: _, ...e }) => e));
  return {
    stored: stored.size,
    acknowledgedMissing: acknowledged.filter((id) => !stored.has(id)),
    incomplete: rows
      .filter((r) => Number(r.steps) !== stepsOf.get(r.id) || r.step_count !== stepsOf.get(r.id))
      .map((r) => r.id),
    orphanSteps: Number(orphans[0]!.n),
    edgesMatch: strip(project) === strip(ref),
    edges: edges.filter((e) => e.project === project).length,
  };
}
