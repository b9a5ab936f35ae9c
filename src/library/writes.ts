/**
 * The facade's writes (imports, recorded executions, the gateway's catalog sync) and what each one tells the
 * read models after it: the snapshot patched or dropped, the intent memory marked stale, the history extended,
 * the users' histories updated, the search index rebuilt when asked. `Toolgraph` (toolgraph.ts) calls these
 * with its private engine; a job never writes through here.
 */
import { readFile } from "node:fs/promises";
import type { ExecutionInput } from "../formats/schemas.ts";
import {
  type CatalogImportResult,
  type EdgeImportResult,
  importCatalog,
  importDeclaredEdges,
  importExecutions,
  importTraces,
  type TraceImportOptions,
  type TraceImportResult,
  validateExecution,
} from "../jobs/import.ts";
import type { RecommendationLog } from "../jobs/recommendation-log.ts";
import {
  forgetRetiredEmbeddings,
  retireUnavailableTools,
  type ServerSyncOptions,
  type ServerToolsSyncResult,
  syncServerTools,
} from "../jobs/server-sync.ts";
import { applyUserHistory, userHistoryUpdate } from "../jobs/user-history.ts";
import { SLICE_MS, yieldToEventLoop } from "../view/background.ts";
import type { Engine } from "../view/engine.ts";
import { forgetProjectConfig } from "../view/filters.ts";
import { appendToHistory } from "../view/history.ts";
import { markMemoryDirty } from "../view/intent-memory.ts";
import { chooseRouting, namespaceIndexFor } from "../view/namespace-index.ts";
import { validatePattern } from "../view/patterns.ts";

/** Imports a catalog given as JSON text, a parsed object, or `{ file }`. */
export async function writeCatalog(
  engine: Engine,
  project: string,
  input: string | object | { file: string },
  opts: {
    /** Embed the new or changed tool texts now (default true); otherwise on the first search. */
    embed?: boolean;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<CatalogImportResult & { embeddedNow: number }> {
  // A parsed object is validated as it is (stringifying it again could overflow on a hostile nesting).
  const { text, file } =
    typeof input === "object" && !("file" in input && typeof input.file === "string")
      ? { text: { json: input }, file: "catalog" }
      : await textOf(input, "catalog");
  const r = await importCatalog(engine.db, project, text, file, { validatePattern });
  engine.invalidate(project);
  if (r.settings) forgetProjectConfig(engine, project);
  let embeddedNow = 0;
  if (opts.embed ?? true) {
    const previous = await engine.cachedSearchIndex(project);
    const idx = await engine.searchIndex(project, opts.onProgress);
    embeddedNow = idx === previous ? 0 : idx.embeddedNow;
    // A catalog large enough for two-hop routing gets its namespace index now, not on the first search.
    const s = await engine.snapshot(project);
    const auto = chooseRouting("auto", s, idx);
    if (auto.mode === "two-hop" || auto.trial) namespaceIndexFor(s, idx);
  }
  return { ...r, embeddedNow };
}

/**
 * Replaces what the catalog knows of one upstream MCP server's tools (the gateway): upserts the listed
 * tools (each validated like a catalog tool; invalid ones are reported in `rejected`), marks the server's
 * tools no longer listed unavailable, retires those unavailable for longer than `retireAfterMs` (they leave
 * search and the console; their history stays), and embeds new texts now unless `embed` is false.
 */
export async function writeServerTools(
  engine: Engine,
  project: string,
  server: string,
  tools: readonly unknown[],
  opts: ServerSyncOptions & { embed?: boolean } = {},
): Promise<ServerToolsSyncResult> {
  const r = await syncServerTools(engine.db, project, server, tools, { retireAfterMs: opts.retireAfterMs });
  engine.invalidate(project);
  if (r.retired.length > 0) await forgetRetiredEmbeddings(engine.db, await engine.snapshot(project), r.retired);
  if (opts.embed ?? true) await engine.searchIndex(project);
  return r;
}

/** Retires every tool unavailable for longer than `graceMs` (the gateway's sweep); returns their ids. */
export async function retireTools(engine: Engine, project: string, graceMs: number): Promise<string[]> {
  const retired = await retireUnavailableTools(engine.db, project, graceMs);
  if (retired.length > 0) {
    engine.invalidate(project);
    await forgetRetiredEmbeddings(engine.db, await engine.snapshot(project), retired);
  }
  return retired;
}

/** Imports traces given as JSONL text, an array of executions, or `{ file }`. */
export async function writeTraces(
  engine: Engine,
  project: string,
  input: string | object[] | { file: string },
  opts: TraceImportOptions = {},
): Promise<TraceImportResult> {
  let r: TraceImportResult & { executions?: ExecutionInput[] };
  if (Array.isArray(input)) {
    // Validated in slices: 5,000 executions are ~100 ms of schema checks.
    const records: { line: number; value: ExecutionInput }[] = [];
    let t = performance.now();
    for (let i = 0; i < input.length; i++) {
      records.push({ line: i + 1, value: validateExecution(input[i], "executions", i + 1) });
      if (performance.now() - t > SLICE_MS) {
        await yieldToEventLoop();
        t = performance.now();
      }
    }
    r = {
      ...(await importExecutions(engine.db, project, records, "executions", opts)),
      executions: records.map((x) => x.value),
    };
  } else {
    const { text, file } = await textOf(input, "traces");
    r = await importTraces(engine.db, project, text, file, opts);
  }
  const { executions, ...result } = r;
  await afterExecutions(engine, project, result, undefined, executions);
  return result;
}

/** Records one execution (idempotent by id) and patches the read model in place. */
export async function writeExecution(
  engine: Engine,
  log: RecommendationLog,
  project: string,
  execution: ExecutionInput | object,
  opts: TraceImportOptions = {},
): Promise<TraceImportResult> {
  const value = validateExecution(execution);
  const r = await importExecutions(engine.db, project, [{ line: 1, value }], "execution", {
    ...opts,
    userHistory: userHistoryUpdate(engine.gatekeeper),
  });
  await afterExecutions(engine, project, r, [value], undefined, true);
  if (r.inserted > 0) {
    const v = value as ExecutionInput & { recommendationId?: string };
    log.outcome({
      project,
      recommendationId: v.recommendationId ?? null,
      session: v.id,
      kind: "execution",
      success: v.success,
      followed: null,
      executionId: v.id,
      tools: v.steps.map((st) => st.tool),
    });
  }
  return r;
}

async function afterExecutions(
  engine: Engine,
  project: string,
  r: TraceImportResult,
  executions?: ExecutionInput[],
  all?: ExecutionInput[],
  historyDone = false,
): Promise<void> {
  if (r.inserted > 0) {
    markMemoryDirty(engine, project);
    appendToHistory(engine, project, r.graphVersion, r.insertedIds);
  }
  const inserted = new Set(r.insertedIds);
  const fresh = (executions ?? all ?? []).filter((e) => inserted.has(e.id));
  if (historyDone) {
    for (const e of fresh) if (e.user) engine.gatekeeper.tracker.invalidate(project, e.user);
  } else if (fresh.length > 0) await applyUserHistory(engine.gatekeeper, project, fresh);
  if (r.autoRegistered.length > 0 || !executions) engine.invalidate(project);
  else if (r.inserted > 0) engine.afterRecord(project, executions, r.graphVersion);
}

/** Imports declared edges given as JSONL text or `{ file }`. */
export async function writeEdges(
  engine: Engine,
  project: string,
  input: string | { file: string },
  opts: { skipInvalid?: boolean } = {},
): Promise<EdgeImportResult> {
  const { text, file } = await textOf(input, "edges");
  const r = await importDeclaredEdges(engine.db, project, text, file, opts);
  engine.invalidate(project);
  return r;
}

async function textOf(
  input: string | object | { file: string },
  what: string,
): Promise<{ text: string; file: string }> {
  if (typeof input === "string") return { text: input, file: what };
  if (input && typeof input === "object" && "file" in input && typeof (input as { file: unknown }).file === "string") {
    const file = (input as { file: string }).file;
    return { text: await readFile(file, "utf8"), file };
  }
  return { text: JSON.stringify(input), file: what };
}
