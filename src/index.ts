/**
 * toolgraph — the library API. `openToolgraph(options)` opens the embedded database (or a PostgreSQL
 * server with `database`) and returns a Toolgraph whose methods are the four jobs: search, suggestNext,
 * matchCapabilities / discoverCapabilities, buildDag / plan, plus imports, recording and stats.
 */
export { openToolgraph, Toolgraph, type ToolgraphOptions, type StatsResult, parseRequest } from "./api/toolgraph.ts";
export type {
  AlternativesRequest,
  BuildDagRequest,
  DiscoverCapabilitiesRequest,
  MatchCapabilitiesRequest,
  PlanRequest,
  SearchRequest,
  SuggestNextRequest,
} from "./api/requests.ts";
export type { RecommenderApi, Scoped } from "./api/contract.ts";
export type { CatalogInput, ExecutionInput, DeclaredEdgeInput, EvalCase } from "./formats/schemas.ts";
export type { EmbeddingProvider } from "./embeddings/provider.ts";
export { createEmbeddingProvider } from "./embeddings/create.ts";
export { ToolgraphError } from "./store/errors.ts";
export { ImportError } from "./services/parse.ts";
export { startServer, runServer, createServer } from "./server/http-server.ts";
export { createMcpServer } from "./mcp/mcp-server.ts";
export { runStdio } from "./mcp/stdio.ts";
