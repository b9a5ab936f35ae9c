/**
 * The facade's types: the library's options and answers beside the operations' own (contract/api.ts), re-exported by
 * toolgraph.ts, and what a library method (writes.ts, recording.ts, learning.ts, status.ts, readiness.ts) is handed: the private engine.
 */
import type { RecommendationLog, RecommendationLogOptions } from "../jobs/recommendation-log.ts";
import type { LearningStatus } from "../jobs/learning-status.ts";
import type { ProjectCounts } from "../store/reads.ts";
import type { Engine, EngineOptions } from "../view/engine.ts";
import type { ResultCache } from "./result-cache.ts";

export interface ToolgraphOptions extends EngineOptions {
  /** Default project (tenant) for every call. Default "default". */
  project?: string | undefined;
  /** Capacity of the result cache for repeated identical requests (0 turns it off). Default 1000. */
  resultCacheSize?: number | undefined;
  /** The recommendation log (every answer stored with its id; retention bounds). Default: on, see RECOMMENDATION_LOG_DEFAULTS. */
  recommendationLog?: RecommendationLogOptions | undefined;
}

export interface ProjectScoped {
  /** The project this call reads or writes. Default: the Toolgraph's project. */
  project?: string | undefined;
}

export interface StatsResult extends ProjectCounts {
  project: string;
  backend: "postgres" | "pglite";
  location: string;
  caches: CacheStats;
  /** The weights in force and their latest fits (when, accepted or not and why). */
  learning: LearningStatus;
}

/** Hits and misses of the result cache (answers) and of the query-embedding cache. */
export interface CacheStats {
  results: ReturnType<ResultCache["stats"]>;
  queryEmbeddings: ReturnType<Engine["queryEmbedder"]["stats"]>;
}

/** The graph analytics of a project as last completed (Toolgraph.analyticsStatus). */
export interface AnalyticsStatus {
  fresh: boolean;
  timingsMs: Record<string, number>;
  refreshes: { worker: number; inThread: number };
}

/** What embeds texts (tg.embedding()). */
export interface EmbeddingInfo {
  /** The embedding provider's class, e.g. EmbeddingWorkerPool (a local model in worker threads). */
  provider: string;
  /** Its worker threads; 0 when it embeds in this thread. */
  workers: number;
}

/** Where the data lives. */
export interface DatabaseInfo {
  backend: "postgres" | "pglite";
  /** The server URL without password, or the embedded data directory. */
  location: string;
  /** Set when the server could not be reached at open (openWhenUnreachable): what failed. */
  unreachableAtOpen: Error | undefined;
}

/**
 * What a library method (library/*-methods.ts) works with: the facade's private engine and its own state. A
 * method takes it first; the Toolgraph binds it, so `tg.stats(opts)` calls `stats(facade, opts)`.
 */
export interface Facade {
  readonly engine: Engine;
  /** The Toolgraph's default project. */
  readonly project: string;
  readonly results: ResultCache;
  readonly recommendations: RecommendationLog;
}

/** The project of a call: the one it names, or the Toolgraph's. */
export const projectOf = (f: Facade, opts?: ProjectScoped): string => opts?.project ?? f.project;

/** The methods of a table with the facade bound: `(f, ...args) => r` becomes `(...args) => r`. */
export type Bound<T> = {
  [K in keyof T]: T[K] extends (f: Facade, ...args: infer A) => infer R ? (...args: A) => R : never;
};
