/**
 * The projects of a database with their tool counts, and the `empty-project` error that names them: a user
 * whose `toolgraph mcp` reads project "default" while the demo wrote "demo" is told which one to pick.
 */
import { type Kysely, sql } from "kysely";
import { ToolgraphError } from "../contract/errors.ts";
import type { Advice } from "../formats/advice.ts";
import type { Database } from "./schema.ts";

type Db = Kysely<Database>;

export interface ProjectToolCount {
  project: string;
  tools: number;
}

/** Projects that have at least one tool, most tools first. */
export async function projectsWithTools(db: Db): Promise<ProjectToolCount[]> {
  const rows = await db
    .selectFrom("tools")
    .select(["project", sql<string>`count(*)`.as("n")])
    .groupBy("project")
    .orderBy(sql`count(*)`, "desc")
    .orderBy("project")
    .execute();
  return rows.map((r) => ({ project: r.project, tools: Number(r.n) }));
}

/** The `empty-project` error for `project`, listing the projects of this database that have tools. */
export async function emptyProjectError(db: Db, project: string): Promise<ToolgraphError> {
  const others = (await projectsWithTools(db)).filter((p) => p.project !== project);
  const listed = others
    .slice(0, 10)
    .map((p) => `${p.project} (${p.tools} tool${p.tools === 1 ? "" : "s"})`)
    .join(", ");
  const message =
    others.length === 0
      ? `project ${JSON.stringify(project)} has no tools: import a catalog first`
      : `project ${JSON.stringify(project)} has no tools: import a catalog first, or use one of the projects here: ${listed}${others.length > 10 ? `, … ${others.length - 10} more` : ""}`;
  // The advice is spelled by the door that returns the error (--project, the project field or header, …).
  const advice: Advice =
    others.length === 0 ? { kind: "import-catalog" } : { kind: "project", project: others[0]!.project };
  return new ToolgraphError("empty-project", message, { project, projects: others.map((p) => p.project) }, advice);
}
