/**
 * The operations every front door exposes (the table of src/contract/operations.ts, plus the writes). `Toolgraph`
 * (src/library/toolgraph.ts) implements it; the HTTP
 * server and the MCP server are written against this interface so that they stay thin. Inputs are the
 * requests of requests.ts plus an optional `project`, passed as the caller sent them: an implementation
 * validates each one once (Toolgraph: `parseRequest`), so the doors do not; results are plain
 * JSON-serialisable objects (every answer carries its explanation and its gate decision).
 */
import type { ExecutionInput } from "../formats/schemas.ts";
import type { CatalogImportResult, EdgeImportResult, TraceImportResult } from "../jobs/import.ts";
import type { OperationMethods, ResultOf, Scoped } from "./operations.ts";

export type { Scoped };

/** A JSON object result. */
export type JsonResult = object;

/** `search`: ranked tools, each with its score terms, gate decision and explanation. */
export type SearchResult = ResultOf<"search">;
/** `suggestNext`: next-tool suggestions with their terms. */
export type SuggestNextResult = ResultOf<"suggestNext">;
/** `matchCapabilities`: capabilities answering an intent. */
export type MatchCapabilitiesResult = ResultOf<"matchCapabilities">;
/** `discoverCapabilities`: capabilities fitting the workflow so far. */
export type DiscoverCapabilitiesResult = ResultOf<"discoverCapabilities">;
/** `buildDag`: the execution DAG (layers, edges, critical path). */
export type BuildDagResult = ResultOf<"buildDag">;
/** `plan`: intent → tools with their reasons, and the DAG. */
export type PlanResult = ResultOf<"plan">;
/** `alternatives`: substitutes for a failed or unavailable tool. */
export type AlternativesResult = ResultOf<"alternatives">;
export type { CatalogImportResult, EdgeImportResult, TraceImportResult };

/** The operations of the table (one method each), plus the writes and imports that take files. */
export interface RecommenderApi extends OperationMethods {
  recordExecution(
    execution: ExecutionInput | object,
    opts?: Scoped & { autoRegister?: boolean },
  ): Promise<TraceImportResult>;
  importCatalog(input: string | object, opts?: Scoped): Promise<CatalogImportResult>;
  importTraces(
    input: string | object[],
    opts?: Scoped & { skipInvalid?: boolean; autoRegister?: boolean },
  ): Promise<TraceImportResult>;
  importEdges(input: string, opts?: Scoped & { skipInvalid?: boolean }): Promise<EdgeImportResult>;
  stats(opts?: Scoped): Promise<JsonResult>;
  /** Liveness: one trivial round trip to the database (no counts). Used by the HTTP `/health`. */
  ping?(): Promise<{ backend: string }>;
  close(): Promise<void>;
}
