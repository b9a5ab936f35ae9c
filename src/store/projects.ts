/** Project rows: the tenant key and its graph version (bumped by every write that changes the graph). */
import type { Kysely, Transaction } from "kysely";
import { sql } from "kysely";
import type { Database } from "./schema.ts";

type Db = Kysely<Database> | Transaction<Database>;

export async function ensureProject(db: Db, project: string): Promise<void> {
  await db
    .insertInto("projects")
    .values({ project })
    .onConflict((oc) => oc.column("project").doNothing())
    .execute();
}

/** Increments the project's graph version and returns the new value. */
export async function bumpGraphVersion(db: Db, project: string): Promise<number> {
  const row = await db
    .updateTable("projects")
    .set({ graph_version: sql`graph_version + 1`, updated_at: sql`now()` })
    .where("project", "=", project)
    .returning("graph_version")
    .executeTakeFirst();
  return row ? Number(row.graph_version) : 0;
}

export async function graphVersion(db: Db, project: string): Promise<number> {
  const row = await db.selectFrom("projects").select("graph_version").where("project", "=", project).executeTakeFirst();
  return row ? Number(row.graph_version) : 0;
}

export interface ProjectConfig {
  /** Tools offered instead when the gate abstains (fallback to general tools). */
  fallbackTools?: string[];
  [key: string]: unknown;
}

export async function projectConfig(db: Db, project: string): Promise<ProjectConfig> {
  const row = await db.selectFrom("projects").select("config").where("project", "=", project).executeTakeFirst();
  return (row?.config as ProjectConfig | undefined) ?? {};
}

export async function setProjectConfig(db: Db, project: string, config: ProjectConfig): Promise<void> {
  await ensureProject(db, project);
  await db
    .updateTable("projects")
    .set({ config: JSON.stringify(config) })
    .where("project", "=", project)
    .execute();
}

export async function listProjects(db: Db): Promise<{ project: string; graphVersion: number }[]> {
  const rows = await db.selectFrom("projects").select(["project", "graph_version"]).orderBy("project").execute();
  return rows.map((r) => ({ project: r.project, graphVersion: Number(r.graph_version) }));
}
