/** Loads a GraphSnapshot for one project from the store. */
import type { Kysely } from "kysely";
import { graphVersion } from "../store/projects.ts";
import { loadCapabilities, loadEdges, loadToolStats, loadTools } from "../store/reads.ts";
import type { Database } from "../store/schema.ts";
import { GraphSnapshot } from "./graph-snapshot.ts";

export async function loadGraphSnapshot(db: Kysely<Database>, project: string): Promise<GraphSnapshot> {
  // One repeatable-read transaction so the version matches the rows.
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const version = await graphVersion(trx, project);
      const [tools, edges, stats, capabilities] = [
        await loadTools(trx, project),
        await loadEdges(trx, project),
        await loadToolStats(trx, project),
        await loadCapabilities(trx, project),
      ];
      return new GraphSnapshot({ project, version, tools, edges, stats, capabilities });
    });
}
