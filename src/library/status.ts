/**
 * The facade's reads of its own state, for the doors (docs/decisions/layout.md): counts and learning status,
 * where the data lives, what embeds, the caches' hits, the analytics' freshness, the refit listener, the graph
 * for display and export, and a liveness ping. None of them ranks anything.
 */
import { sql } from "kysely";
import { EmbeddingWorkerPool } from "../embeddings/worker-pool.ts";
import type { FitRecord } from "../jobs/learning-log.ts";
import { learningStatus } from "../jobs/learning-status.ts";
import { countProject } from "../store/reads.ts";
import { type GraphView, graphView } from "../view/graph-view.ts";
import {
  type AnalyticsStatus,
  type CacheStats,
  type DatabaseInfo,
  type EmbeddingInfo,
  type Facade,
  type ProjectScoped,
  projectOf,
  type StatsResult,
} from "./facade.ts";

export const STATUS = {
  async stats(f: Facade, opts: ProjectScoped = {}): Promise<StatsResult> {
    const project = projectOf(f, opts);
    return {
      project,
      backend: f.engine.conn.backend,
      location: f.engine.conn.location,
      ...(await countProject(f.engine.db, project)),
      caches: STATUS.cacheStats(f),
      learning: await learningStatus(await f.engine.view(project)),
    };
  },

  /** Where the data lives: backend, location, and what failed when the server was unreachable at open. */
  database(f: Facade): DatabaseInfo {
    const c = f.engine.conn;
    return { backend: c.backend, location: c.location, unreachableAtOpen: c.unreachableAtOpen };
  },

  /** What embeds texts: the provider (its class) and its worker threads (0: it embeds on the event loop). */
  embedding(f: Facade): EmbeddingInfo {
    const e = f.engine.embedder;
    return { provider: e.constructor.name, workers: e instanceof EmbeddingWorkerPool ? e.maxWorkers : 0 };
  },

  /** Hits and misses of the caches (the HTTP server's metrics). */
  cacheStats(f: Facade): CacheStats {
    return { results: f.results.stats(), queryEmbeddings: f.engine.queryEmbedder.stats() };
  },

  /**
   * The project's graph analytics as last completed: whether they are fresh (false while a refresh of a moved
   * graph runs in the background), how long that run took by phase (ms), and how many background refreshes
   * this Toolgraph ran in the worker thread and on the event loop.
   */
  async analyticsStatus(f: Facade, opts: ProjectScoped = {}): Promise<AnalyticsStatus> {
    const a = (await f.engine.view(projectOf(f, opts))).analytics();
    return {
      fresh: a.fresh,
      timingsMs: { ...a.analytics.timingsMs },
      refreshes: { ...f.engine.analyticsCache.refreshes },
    };
  },

  /** Told of every refit of a project's weights (learning-log.ts); a listener set before is kept. */
  onRefit(f: Facade, listener: (record: FitRecord) => void): void {
    f.engine.learningLog ??= listener;
  },

  /** The project's tool graph for display and export: tools with community and position, edges, capabilities. */
  async graph(f: Facade, opts: ProjectScoped = {}): Promise<GraphView> {
    return graphView(f.engine, projectOf(f, opts));
  },

  /** One `SELECT 1` round trip: cheap liveness for `/health` (rejects with database-unreachable when down). */
  async ping(f: Facade): Promise<{ backend: "postgres" | "pglite" }> {
    await sql`SELECT 1`.execute(f.engine.db);
    return { backend: f.engine.conn.backend };
  },
};
