/**
 * Keeps the catalog in step with one upstream MCP server (the gateway): the tools it lists now
 * are upserted as `<server>.<tool>` (validated like a catalog import: `toolSchema`, the same size caps and
 * id rules), the tools of that server it no longer lists are marked unavailable (kept with their history),
 * those unavailable for longer than `retireAfterMs` are retired (they leave the read model: search, the
 * console, the jobs; rows and history stay; docs/decisions/gateway-churn.md), and the project's graph
 * version is bumped once, all in one transaction. Upstream descriptions are text to
 * embed and show, nothing more: no capability and no pattern is ever created from them.
 */
import type { Kysely } from "kysely";
import { toolText, toolTextInput } from "../../algorithms/search/tokenize.ts";
import { textHash } from "../embeddings/text-hash.ts";
import { describeIssue, type ToolInput } from "../formats/schemas.ts";
import { toolInput } from "../formats/tool-check.ts";
import { markUnlistedUnavailable, retireUnavailable, type UpsertCounts, upsertTools } from "../store/catalog.ts";
import { deleteEmbeddings } from "../store/embeddings.ts";
import { bumpGraphVersion, ensureProject } from "../store/projects.ts";
import { loadRetiredTools } from "../store/reads.ts";
import type { Database } from "../store/schema.ts";
import { slicer } from "../view/background.ts";
import type { GraphSnapshot } from "../view/graph-snapshot.ts";
import { capabilityText } from "../view/search-index.ts";

export interface ServerToolsSyncResult {
  server: string;
  tools: UpsertCounts;
  /** Tools of this server marked unavailable by this sync (no longer listed). */
  unavailable: string[];
  /** Tools of this server retired by this sync (unavailable for longer than `retireAfterMs`). */
  retired: string[];
  /** Listed tools that failed validation and were left out of the catalog: id (or index) and the problem. */
  rejected: { tool: string; problem: string }[];
  graphVersion: number;
}

/**
 * Validates each candidate tool on its own: one bad upstream tool never blocks the others. In slices between
 * event-loop turns: a list of thousands of tools is a few hundred milliseconds of schema checks.
 */
export async function validateServerTools(
  server: string,
  candidates: readonly unknown[],
): Promise<{ tools: ToolInput[]; rejected: ServerToolsSyncResult["rejected"] }> {
  const tools: ToolInput[] = [];
  const rejected: ServerToolsSyncResult["rejected"] = [];
  const slice = slicer();
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    // toolSchema's verdict; a usual tool is checked by hand (tool-check.ts), never compiling the zod schema.
    const r = toolInput(c);
    const id = typeof (c as { id?: unknown })?.id === "string" ? (c as { id: string }).id : `${server}[${i}]`;
    if (!r.success) rejected.push({ tool: id, problem: describeIssue(r.error.issues[0]!) });
    else if (r.data.server !== server)
      rejected.push({ tool: id, problem: `server: must be ${JSON.stringify(server)}` });
    else tools.push(r.data);
    await slice();
  }
  return { tools, rejected };
}

export interface ServerSyncOptions {
  /** Retire the server's tools unavailable for longer than this (ms). Default: never (undefined). */
  retireAfterMs?: number | undefined;
}

export async function syncServerTools(
  db: Kysely<Database>,
  project: string,
  server: string,
  candidates: readonly unknown[],
  opts: ServerSyncOptions = {},
): Promise<ServerToolsSyncResult> {
  const { tools, rejected } = await validateServerTools(server, candidates);
  return db.transaction().execute(async (trx) => {
    await ensureProject(trx, project);
    const counts =
      tools.length > 0 ? await upsertTools(trx, project, tools) : { inserted: 0, updated: 0, unchanged: 0 };
    const unavailable = await markUnlistedUnavailable(
      trx,
      project,
      server,
      tools.map((t) => t.id),
    );
    const retired =
      opts.retireAfterMs === undefined ? [] : await retireUnavailable(trx, project, opts.retireAfterMs, server);
    const graphVersion = await bumpGraphVersion(trx, project);
    return { server, tools: counts, unavailable, retired, rejected, graphVersion };
  });
}

/**
 * Retires every tool of the project unavailable for longer than `graceMs` (the gateway's periodic sweep, for
 * tools no sync touches again), bumping the graph version when any was retired. Returns their ids.
 */
export async function retireUnavailableTools(
  db: Kysely<Database>,
  project: string,
  graceMs: number,
): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const retired = await retireUnavailable(trx, project, graceMs);
    if (retired.length > 0) await bumpGraphVersion(trx, project);
    return retired;
  });
}

/**
 * Deletes the stored embedding vectors of retired tools (a cache keyed by text: a tool listed again is
 * embedded again), except texts the read model `live` still uses. Returns how many rows went.
 */
export async function forgetRetiredEmbeddings(
  db: Kysely<Database>,
  live: GraphSnapshot,
  retired: readonly string[],
): Promise<number> {
  const rows = await loadRetiredTools(db, live.project, retired);
  if (rows.length === 0) return 0;
  const keep = new Set([
    ...live.tools.map((t) => textHash(toolText(toolTextInput(t)))),
    ...live.capabilities.map((c) => textHash(capabilityText(c))),
  ]);
  const gone = rows.map((t) => textHash(toolText(toolTextInput(t)))).filter((h) => !keep.has(h));
  return gone.length === 0 ? 0 : deleteEmbeddings(db, live.project, gone);
}
