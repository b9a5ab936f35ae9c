/**
 * The operations every front door exposes. `Toolgraph` (src/api/toolgraph.ts) implements it; the HTTP
 * server and the MCP server are written against this interface so that they stay thin. Inputs are the
 * zod-validated requests of requests.ts plus an optional `project`; results are plain JSON-serialisable
 * objects (every answer carries its explanation and its gate decision).
 */
import type { ExecutionInput } from "../formats/schemas.ts";
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

export interface RecommenderApi {
  search(req: SearchRequest & Scoped): Promise<JsonResult>;
  suggestNext(req: SuggestNextRequest & Scoped): Promise<JsonResult>;
  matchCapabilities(req: MatchCapabilitiesRequest & Scoped): Promise<JsonResult>;
  discoverCapabilities(req: DiscoverCapabilitiesRequest & Scoped): Promise<JsonResult>;
  buildDag(req: BuildDagRequest & Scoped): Promise<JsonResult>;
  plan(req: PlanRequest & Scoped): Promise<JsonResult>;
  alternatives(req: AlternativesRequest & Scoped): Promise<JsonResult>;
  feedback(req: FeedbackRequest & Scoped): Promise<JsonResult>;
  recordExecution(execution: ExecutionInput | object, opts?: Scoped & { autoRegister?: boolean }): Promise<JsonResult>;
  importCatalog(input: string | object, opts?: Scoped): Promise<JsonResult>;
  importTraces(input: string | object[], opts?: Scoped & { skipInvalid?: boolean; autoRegister?: boolean }): Promise<JsonResult>;
  importEdges(input: string, opts?: Scoped & { skipInvalid?: boolean }): Promise<JsonResult>;
  stats(opts?: Scoped): Promise<JsonResult>;
  /** Liveness: one trivial round trip to the database (no counts). Used by the HTTP `/health`. */
  ping?(): Promise<{ backend: string }>;
  close(): Promise<void>;
}
