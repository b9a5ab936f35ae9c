/**
 * toolgraph — the library API. `openToolgraph(options)` opens the embedded database (or a PostgreSQL
 * server with `database`) and returns a Toolgraph whose methods are the four jobs: search, suggestNext,
 * matchCapabilities / discoverCapabilities, buildDag / plan, plus imports, recording and stats.
 */

export type {
  AlternativesResult,
  BuildDagResult,
  CatalogImportResult,
  DiscoverCapabilitiesResult,
  EdgeImportResult,
  MatchCapabilitiesResult,
  PlanResult,
  RecommenderApi,
  Scoped,
  SearchResult,
  SuggestNextResult,
  TraceImportResult,
} from "./api/contract.ts";
export type {
  AlternativesRequest,
  BuildDagRequest,
  DiscoverCapabilitiesRequest,
  MatchCapabilitiesRequest,
  PlanRequest,
  SearchRequest,
  SuggestNextRequest,
} from "./api/requests.ts";
export { openToolgraph, parseRequest, type StatsResult, Toolgraph, type ToolgraphOptions } from "./api/toolgraph.ts";
export { createEmbeddingProvider } from "./embeddings/create.ts";
export type { EmbeddingProvider } from "./embeddings/provider.ts";
export type { CatalogInput, DeclaredEdgeInput, EvalCase, ExecutionInput } from "./formats/schemas.ts";
export { createMcpServer } from "./mcp/mcp-server.ts";
export { runStdio } from "./mcp/stdio.ts";
export { createServer, runServer, startServer } from "./server/http-server.ts";
export { ImportError } from "./services/parse.ts";
export { ToolgraphError } from "./store/errors.ts";
