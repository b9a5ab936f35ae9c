/**
 * The operations every front door exposes. `Toolgraph` (src/library/toolgraph.ts) implements it; the HTTP
 * server and the MCP server are written against this interface so that they stay thin. Inputs are the
 * requests of requests.ts plus an optional `project`, passed as the caller sent them: an implementation
 * validates each one once (Toolgraph: `parseRequest`), so the doors do not; results are plain
 * JSON-serialisable objects (every answer carries its explanation and its gate decision).
 */
import type { ExecutionInput } from "../formats/schemas.ts";
import type { runAlternatives } from "../jobs/alternatives.ts";
import type { runDiscoverCapabilities, runMatchCapabilities } from "../jobs/capabilities.ts";
import type { runBuildDag, runPlan } from "../jobs/dag.ts";
import type { CatalogImportResult, EdgeImportResult, TraceImportResult } from "../jobs/import.ts";
import type { runSuggest } from "../jobs/next.ts";
import type { runSearch } from "../jobs/search.ts";
import type {
  AlternativesRequest,
  BuildDagRequest,
  DiscoverCapabilitiesRequest,
  FeedbackRequest,
  MatchCapabilitiesRequest,
  PlanRequest,
  SearchRequest,
  SuggestNextRequest,
} from "./requests.ts";

export interface Scoped {
  /** The project (tenant) to read and write. Default: the instance's project. */
  project?: string | undefined;
}

/** A JSON object result. */
export type JsonResult = object;

/** `search`: ranked tools, each with its score terms, gate decision and explanation. */
export type SearchResult = Awaited<ReturnType<typeof runSearch>>;
/** `suggestNext`: next-tool suggestions with their terms. */
export type SuggestNextResult = Awaited<ReturnType<typeof runSuggest>>;
/** `matchCapabilities`: capabilities answering an intent. */
export type MatchCapabilitiesResult = Awaited<ReturnType<typeof runMatchCapabilities>>;
/** `discoverCapabilities`: capabilities fitting the workflow so far. */
export type DiscoverCapabilitiesResult = Awaited<ReturnType<typeof runDiscoverCapabilities>>;
/** `buildDag`: the execution DAG (layers, edges, critical path). */
export type BuildDagResult = Awaited<ReturnType<typeof runBuildDag>>;
/** `plan`: intent → tools with their reasons, and the DAG. */
export type PlanResult = Awaited<ReturnType<typeof runPlan>>;
/** `alternatives`: substitutes for a failed or unavailable tool. */
export type AlternativesResult = Awaited<ReturnType<typeof runAlternatives>>;
export type { CatalogImportResult, EdgeImportResult, TraceImportResult };

export interface RecommenderApi {
  search(req: SearchRequest & Scoped): Promise<SearchResult>;
  suggestNext(req: SuggestNextRequest & Scoped): Promise<SuggestNextResult>;
  matchCapabilities(req: MatchCapabilitiesRequest & Scoped): Promise<MatchCapabilitiesResult>;
  discoverCapabilities(req: DiscoverCapabilitiesRequest & Scoped): Promise<DiscoverCapabilitiesResult>;
  buildDag(req: BuildDagRequest & Scoped): Promise<BuildDagResult>;
  plan(req: PlanRequest & Scoped): Promise<PlanResult>;
  alternatives(req: AlternativesRequest & Scoped): Promise<AlternativesResult>;
  feedback(req: FeedbackRequest & Scoped): Promise<JsonResult>;
  recordExecution(execution: ExecutionInput | object, opts?: Scoped & { autoRegister?: boolean }): Promise<TraceImportResult>;
  importCatalog(input: string | object, opts?: Scoped): Promise<CatalogImportResult>;
  importTraces(input: string | object[], opts?: Scoped & { skipInvalid?: boolean; autoRegister?: boolean }): Promise<TraceImportResult>;
  importEdges(input: string, opts?: Scoped & { skipInvalid?: boolean }): Promise<EdgeImportResult>;
  stats(opts?: Scoped): Promise<JsonResult>;
  /** Liveness: one trivial round trip to the database (no counts). Used by the HTTP `/health`. */
  ping?(): Promise<{ backend: string }>;
  close(): Promise<void>;
}
