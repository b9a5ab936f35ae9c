/**
 * toolgraph — the library API. `openToolgraph(options)` opens the embedded database (or a PostgreSQL
 * server with `database`) and returns a Toolgraph with one method per operation of the table (OPERATIONS:
 * search, suggestNext, matchCapabilities, discoverCapabilities, buildDag, plan, alternatives, toolInfo,
 * feedback), plus imports, recording and stats. The gate (AdaptiveThresholdManager) works on its own too, with
 * its resource readings (ResourceMonitor, the `resources` option; readResources for one reading).
 */

export type { ThresholdAdjustment } from "../algorithms/thresholds/adjust-threshold.ts";
export type { GateDecision } from "../algorithms/thresholds/gate-decision.ts";
export type { EnvironmentContext, TaskContext } from "../algorithms/thresholds/types.ts";
export type { UserSignalInput } from "../algorithms/thresholds/user-history-signals.ts";
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
export {
  OPERATIONS,
  type Operation,
  type OperationName,
  type RequestOf,
  type ResultOf,
} from "./contract/operations.ts";
export type {
  AlternativesRequest,
  BuildDagRequest,
  DiscoverCapabilitiesRequest,
  FeedbackRequest,
  MatchCapabilitiesRequest,
  PlanRequest,
  SearchRequest,
  SuggestNextRequest,
} from "./contract/requests.ts";
export { createEmbeddingProvider } from "./embeddings/create.ts";
export type { EmbeddingProvider } from "./embeddings/provider.ts";
export { ImportError } from "./formats/parse.ts";
export type { CatalogInput, DeclaredEdgeInput, EvalCase, ExecutionInput } from "./formats/schemas.ts";
export { AdaptiveThresholdManager, type AdaptiveThresholdManagerOptions } from "./gate/adaptive-threshold-manager.ts";
export {
  ResourceMonitor,
  type ResourceMonitorOptions,
  type ResourceSnapshot,
  readResources,
} from "./gate/resource-monitor.ts";
export type { CalibrationOptions, CalibrationPair, CalibrationPairs } from "./jobs/calibration-pairs.ts";
export type { DagModel } from "./jobs/dag-model.ts";
export type { GateQuery } from "./jobs/gate-decision.ts";
export type { MemoryNeighbour, MemoryStats } from "./jobs/memory-stats.ts";
export type { ExecutionSequence, NextStepMode, NextStepReadModel } from "./jobs/next-step-model.ts";
export type { RecallAnswer, RecalledExecution, RecallOptions } from "./jobs/recall.ts";
export { RECOMMENDATION_LOG_DEFAULTS, type RecommendationLogOptions } from "./jobs/recommendation-log.ts";
export type { RoutingModel } from "./jobs/routing-model.ts";
export type { SearchModel } from "./jobs/search-model.ts";
export { DEFAULT_SEARCH_WEIGHTS, type SearchWeights } from "./jobs/search-weights.ts";
export {
  type AnalyticsStatus,
  type CacheStats,
  type DatabaseInfo,
  type EmbeddingInfo,
  openToolgraph,
  parseRequest,
  type StatsResult,
  Toolgraph,
  type ToolgraphOptions,
} from "./library/toolgraph.ts";
export { createMcpServer } from "./mcp/mcp-server.ts";
export { runStdio } from "./mcp/stdio.ts";
export { createServer, runServer, startServer } from "./server/http-server.ts";
export type { GraphView } from "./view/graph-view.ts";
export { ROUTING_DEFAULTS } from "./view/namespace-index.ts";
