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
} from "./contract/api.ts";
export { ToolgraphError } from "./contract/errors.ts";
export type {
  AlternativesRequest,
  BuildDagRequest,
  DiscoverCapabilitiesRequest,
  MatchCapabilitiesRequest,
  PlanRequest,
  SearchRequest,
  SuggestNextRequest,
} from "./contract/requests.ts";
export { createEmbeddingProvider } from "./embeddings/create.ts";
export type { EmbeddingProvider } from "./embeddings/provider.ts";
export { ImportError } from "./formats/parse.ts";
export type { CatalogInput, DeclaredEdgeInput, EvalCase, ExecutionInput } from "./formats/schemas.ts";
export { openToolgraph, parseRequest, type StatsResult, Toolgraph, type ToolgraphOptions } from "./library/toolgraph.ts";
export { createMcpServer } from "./mcp/mcp-server.ts";
export { runStdio } from "./mcp/stdio.ts";
export { createServer, runServer, startServer } from "./server/http-server.ts";
