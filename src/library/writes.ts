/**
 * The facade's catalog writes (imports of catalogs and declared edges, the gateway's catalog sync) and what
 * each one tells the read models after it: the snapshot dropped, the project's settings forgotten, the search
 * index rebuilt when asked. Executions are written by recording.ts. `Toolgraph` (toolgraph.ts) binds these to
 * its private engine (facade.ts); a job never writes through here.
 */
import { readFile } from "node:fs/promises";
import { type CatalogImportResult, type EdgeImportResult, importCatalog, importDeclaredEdges } from "../jobs/import.ts";
import {
  forgetRetiredEmbeddings,
  retireUnavailableTools,
  type ServerSyncOptions,
  type ServerToolsSyncResult,
  syncServerTools,
} from "../jobs/server-sync.ts";
import { forgetProjectConfig } from "../view/filters.ts";
import { chooseRouting, namespaceIndexFor } from "../view/namespace-index.ts";
import { validatePattern } from "../view/patterns.ts";
import { type Facade, type ProjectScoped, projectOf } from "./facade.ts";

export const CATALOG_WRITES = {
  /** Imports a catalog given as JSON text, a parsed object, or `{ file }`. */
  async importCatalog(
    f: Facade,
    input: string | object | { file: string },
    opts: ProjectScoped & {
      /** Embed the new or changed tool texts now (default true); otherwise on the first search. */
      embed?: boolean;
      onProgress?: (done: number, total: number) => void;
    } = {},
  ): Promise<CatalogImportResult & { embeddedNow: number }> {
    const { engine } = f;
    const project = projectOf(f, opts);
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
  },

  /**
   * Replaces what the catalog knows of one upstream MCP server's tools (the gateway): upserts the listed
   * tools (each validated like a catalog tool; invalid ones are reported in `rejected`), marks the server's
   * tools no longer listed unavailable, retires those unavailable for longer than `retireAfterMs` (they leave
   * search and the console; their history stays), and embeds new texts now unless `embed` is false.
   */
  async syncServerTools(
    f: Facade,
    server: string,
    tools: readonly unknown[],
    opts: ProjectScoped & ServerSyncOptions & { embed?: boolean } = {},
  ): Promise<ServerToolsSyncResult> {
    const { engine } = f;
    const project = projectOf(f, opts);
    const r = await syncServerTools(engine.db, project, server, tools, { retireAfterMs: opts.retireAfterMs });
    engine.invalidate(project);
    if (r.retired.length > 0) await forgetRetiredEmbeddings(engine.db, await engine.snapshot(project), r.retired);
    if (opts.embed ?? true) await engine.searchIndex(project);
    return r;
  },

  /** Retires every tool unavailable for longer than `graceMs` (the gateway's sweep); returns their ids. */
  async retireUnavailableTools(f: Facade, graceMs: number, opts: ProjectScoped = {}): Promise<string[]> {
    const { engine } = f;
    const project = projectOf(f, opts);
    const retired = await retireUnavailableTools(engine.db, project, graceMs);
    if (retired.length > 0) {
      engine.invalidate(project);
      await forgetRetiredEmbeddings(engine.db, await engine.snapshot(project), retired);
    }
    return retired;
  },

  /** Imports declared edges given as JSONL text or `{ file }`. */
  async importEdges(
    f: Facade,
    input: string | { file: string },
    opts: ProjectScoped & { skipInvalid?: boolean } = {},
  ): Promise<EdgeImportResult> {
    const project = projectOf(f, opts);
    const { text, file } = await textOf(input, "edges");
    const r = await importDeclaredEdges(f.engine.db, project, text, file, opts);
    f.engine.invalidate(project);
    return r;
  },
};

/** The text of an import given as text, `{ file }` or a parsed value, and the name its errors cite. */
export async function textOf(
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
