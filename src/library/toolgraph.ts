/**
 * The library API: `openToolgraph(options)` returns a Toolgraph bound to one project (overridable per
 * call). The CLI, the HTTP server and the MCP server all call these same methods.
 */
import { sql } from "kysely";
import type { RecommenderApi, Scoped } from "../contract/api.ts";
import { OPERATION_LIST, type Operation, type OperationMethods } from "../contract/operations.ts";
import { EmbeddingWorkerPool } from "../embeddings/worker-pool.ts";
import { parseInput } from "../formats/parse.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import { calibrateProject, ensureCalibrationLoaded } from "../jobs/fit-calibration.ts";
import { fitSearchWeights, type SearchFitOptions } from "../jobs/fit-search-weights.ts";
import type { CatalogImportResult, EdgeImportResult, TraceImportOptions, TraceImportResult } from "../jobs/import.ts";
import type { JobContext } from "../jobs/job.ts";
import type { FitRecord } from "../jobs/learning-log.ts";
import { type LearningStatus, learningStatus } from "../jobs/learning-status.ts";
import { fitNextStepWeights } from "../jobs/next.ts";
import { type RecallAnswer, type RecallOptions, recallPast } from "../jobs/recall.ts";
import { type SearchModel, searchModel } from "../jobs/search-model.ts";
import { RecommendationLog, type RecommendationLogOptions, retentionFromEnv } from "../jobs/recommendation-log.ts";
import type { SearchWeights } from "../jobs/search-weights.ts";
import type { ServerSyncOptions, ServerToolsSyncResult } from "../jobs/server-sync.ts";
import { setSearchWeights } from "../jobs/set-search-weights.ts";
import { countProject, type ProjectCounts } from "../store/reads.ts";
import { Engine, type EngineOptions } from "../view/engine.ts";
import { type GraphView, graphView } from "../view/graph-view.ts";
import { settledMemory } from "../view/intent-memory.ts";
import type { ProjectView } from "../view/project-view.ts";
import { ResultCache } from "./result-cache.ts";
import { retireTools, writeCatalog, writeEdges, writeExecution, writeServerTools, writeTraces } from "./writes.ts";

/**
 * Validates a request with its schema, once: the public methods below call it and the doors (CLI, HTTP,
 * MCP, gateway) do not validate again, so a bad field reads the same (`steps[0].tool: …`) on every door.
 */
export const parseRequest = parseInput;

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

/** One method per operation of the table (contract/operations.ts): `tg.search(req)`, `tg.plan(req)`, … */
export interface Toolgraph extends OperationMethods {}

let engineOfToolgraph: (tg: Toolgraph) => Engine;

/**
 * The engine behind a Toolgraph, for this package's tests and benches only: it is not exported by the package
 * (src/index.ts), and `engine` is not a property of the public object.
 */
export function engineOf(tg: Toolgraph): Engine {
  return engineOfToolgraph(tg);
}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class Toolgraph implements RecommenderApi {
  /** Private: a door asks the methods below (database, cacheStats, graph, prepareSearch, …), never the engine. */
  readonly #engine: Engine;
  static {
    engineOfToolgraph = (tg) => tg.#engine;
  }
  readonly project: string;
  readonly results: ResultCache;
  /** Every answer of the jobs below, with the feedback and executions that follow it (written in the background). */
  readonly recommendations: RecommendationLog;
  /**
   * Each operation's job once loaded: `operation.load()` is a dynamic `import()`, which costs ~3 µs per call
   * from the build but 150–250 µs through a loader hook such as tsx's (docs/decisions/job-overhead-budget.md).
   */
  readonly #jobs = new Map<string, Awaited<ReturnType<Operation["load"]>>>();

  constructor(
    engine: Engine,
    project: string,
    resultCacheSize = 1000,
    recommendationLog: RecommendationLogOptions = {},
  ) {
    this.#engine = engine;
    this.project = project;
    this.results = new ResultCache(resultCacheSize);
    this.recommendations = new RecommendationLog(engine.db, recommendationLog);
  }

  /**
   * Answers from the result cache when the same request was answered at the same graph state, and logs
   * the answer (its `recommendationId` is added to the returned copy; the session is not part of the key).
   */
  protected async cached<T>(
    op: string,
    view: ProjectView,
    req: unknown,
    compute: () => Promise<T>,
  ): Promise<T & { recommendationId?: string }> {
    const started = performance.now();
    const project = view.project;
    if (!view.calibrationLoaded()) await ensureCalibrationLoaded(view);
    const s = view.snapshot;
    // A request naming a workflow appends to its detection timeline: its answer depends on the calls before.
    const fresh = this.results.capacity === 0 || (req as { workflow?: { id?: string } }).workflow?.id !== undefined;
    let result: T;
    if (fresh) result = await compute();
    else {
      const a = view.analytics();
      const { session: _session, ...keyed } = (req ?? {}) as { session?: unknown };
      const key = `${op}\u0000${project}\u0000${s.version}.${s.patchCount}\u0000${a.analytics.computedAt}.${a.analytics.version}.${a.analytics.patchCount}\u0000${JSON.stringify(keyed)}`;
      result = await this.results.get(key, compute);
    }
    // The answer object is this call's own (the result cache keeps a serialized copy and answers a hit with a
    // new object), so the id is added in place.
    return this.recommendations.answer(op, project, req, s.version, result, performance.now() - started, true);
  }

  /**
   * Runs one operation of the table: its request validated once (the library options apart), then the job,
   * through the result cache and the recommendation log when it answers (the method `tg.<name>(req)` calls this).
   */
  async run(operation: Operation, req: object & Scoped): Promise<object> {
    let job = this.#jobs.get(operation.name);
    if (job === undefined) {
      job = await operation.load();
      this.#jobs.set(operation.name, job);
    }
    const { project, ...rest } = req as Scoped & Record<string, unknown>;
    const p = project ?? this.project;
    let r: Record<string, unknown>;
    if (job.libraryOptions) {
      const own = new Set(Object.keys(job.libraryOptions.shape));
      const options = Object.fromEntries(Object.entries(rest).filter(([k]) => own.has(k)));
      const request = Object.fromEntries(Object.entries(rest).filter(([k]) => !own.has(k)));
      r = {
        ...(parseRequest(job.request, request) as object),
        ...(parseRequest(job.libraryOptions, options) as object),
      };
    } else r = parseRequest(job.request, rest) as Record<string, unknown>;
    const view = this.#engine.viewNow(p) ?? (await this.#engine.view(p));
    const ctx: JobContext = { view, project: p, log: this.recommendations };
    const answerKey = job.answerKey;
    return answerKey === undefined
      ? (job.run(ctx, r) as Promise<object>)
      : this.cached(answerKey, view, r, () => job.run(ctx, r) as Promise<object>);
  }

  protected p(opts?: ProjectScoped): string {
    return opts?.project ?? this.project;
  }

  /** Imports a catalog given as JSON text, a parsed object, or `{ file }` (writes.ts). */
  importCatalog(
    input: string | object | { file: string },
    opts: ProjectScoped & {
      /** Embed the new or changed tool texts now (default true); otherwise on the first search. */
      embed?: boolean;
      onProgress?: (done: number, total: number) => void;
    } = {},
  ): Promise<CatalogImportResult & { embeddedNow: number }> {
    return writeCatalog(this.#engine, this.p(opts), input, opts);
  }

  /**
   * Replaces what the catalog knows of one upstream MCP server's tools (the gateway): upserts the listed
   * tools (each validated like a catalog tool; invalid ones are reported in `rejected`), marks the server's
   * tools no longer listed unavailable, retires those unavailable for longer than `retireAfterMs` (they leave
   * search and the console; their history stays), and embeds new texts now unless `embed` is false.
   */
  syncServerTools(
    server: string,
    tools: readonly unknown[],
    opts: ProjectScoped & ServerSyncOptions & { embed?: boolean } = {},
  ): Promise<ServerToolsSyncResult> {
    return writeServerTools(this.#engine, this.p(opts), server, tools, opts);
  }

  /** Retires every tool unavailable for longer than `graceMs` (the gateway's sweep); returns their ids. */
  retireUnavailableTools(graceMs: number, opts: ProjectScoped = {}): Promise<string[]> {
    return retireTools(this.#engine, this.p(opts), graceMs);
  }

  /** Imports traces given as JSONL text, an array of executions, or `{ file }`. */
  importTraces(
    input: string | object[] | { file: string },
    opts: ProjectScoped & TraceImportOptions = {},
  ): Promise<TraceImportResult> {
    return writeTraces(this.#engine, this.p(opts), input, opts);
  }

  /** Records one execution (idempotent by id) and patches the read model in place. */
  recordExecution(
    execution: ExecutionInput | object,
    opts: ProjectScoped & TraceImportOptions = {},
  ): Promise<TraceImportResult> {
    return writeExecution(this.#engine, this.recommendations, this.p(opts), execution, opts);
  }

  /**
   * Fit the gate's calibration (score → P(success)) on the project's own traces and store it; `reuse: false`
   * scores every sampled execution again instead of reusing this engine's fresh pairs (calibration-pairs.ts).
   */
  async calibrate(opts: Scoped & { maxExecutions?: number; split?: "cross-fit" | "time"; reuse?: boolean } = {}) {
    return calibrateProject(await this.#engine.view(this.p(opts)), opts);
  }

  /** Fit the next-step weights on the project's own traces (the `learned` mode) and store them. */
  async fitNextStepWeights(opts: Scoped & { maxExecutions?: number; seed?: number; dryRun?: boolean } = {}) {
    const r = await fitNextStepWeights(await this.#engine.view(this.p(opts)), opts);
    if (!opts.dryRun) this.results.clear();
    return r;
  }

  /**
   * Fit the search weights (fusion β, memory μ, content, graph) on the project's own past intents; they replace
   * the defaults only when they beat them on grouped held-out intents (search-weights.ts). `dryRun` stores nothing.
   */
  async fitSearchWeights(opts: Scoped & SearchFitOptions = {}) {
    const r = await fitSearchWeights(await this.#engine.view(this.p(opts)), opts);
    if (!opts.dryRun) this.results.clear();
    return r;
  }

  /** Pins the project's search weights (those not given stay as in force) until a fit replaces them. Library-only. */
  async setSearchWeights(weights: Partial<SearchWeights>, opts: ProjectScoped = {}): Promise<SearchWeights> {
    const w = await setSearchWeights(await this.#engine.view(this.p(opts)), weights);
    this.results.clear();
    return w;
  }

  /** What past requests similar to `intent` did: the intent memory on its own (jobs/recall.ts). Library-only. */
  async recall(intent: string, opts: ProjectScoped & RecallOptions = {}): Promise<RecallAnswer> {
    return recallPast(await this.#engine.view(this.p(opts)), intent, opts);
  }

  /** The search read model as the ranking core (algorithms/search/rank-candidates.ts) takes it. Library-only. */
  async searchModel(opts: ProjectScoped = {}): Promise<SearchModel> {
    return searchModel(await this.#engine.view(this.p(opts)));
  }

  /** Imports declared edges given as JSONL text or `{ file }`. */
  importEdges(
    input: string | { file: string },
    opts: ProjectScoped & { skipInvalid?: boolean } = {},
  ): Promise<EdgeImportResult> {
    return writeEdges(this.#engine, this.p(opts), input, opts);
  }

  /**
   * Waits until the project's read model reflects every write so far: the graph analytics recomputed and the
   * intent memory rebuilt. Requests never wait for this (they answer from the previous analytics and memory
   * while the refresh runs in the background); call it when the next answers must see the writes (a replay,
   * a bench, a test).
   */
  async settle(opts: ProjectScoped = {}): Promise<void> {
    const project = this.p(opts);
    await this.#engine.analyticsCache.fresh(await this.#engine.snapshot(project));
    await settledMemory(this.#engine, project);
    // Answers cached at this graph version were computed from the previous memory: they go.
    this.results.clear();
  }

  async stats(opts: ProjectScoped = {}): Promise<StatsResult> {
    const project = this.p(opts);
    return {
      project,
      backend: this.#engine.conn.backend,
      location: this.#engine.conn.location,
      ...(await countProject(this.#engine.db, project)),
      caches: this.cacheStats(),
      learning: await learningStatus(await this.#engine.view(project)),
    };
  }

  /** Where the data lives: backend, location, and what failed when the server was unreachable at open. */
  database(): DatabaseInfo {
    const c = this.#engine.conn;
    return { backend: c.backend, location: c.location, unreachableAtOpen: c.unreachableAtOpen };
  }

  /** What embeds texts: the provider (its class) and its worker threads (0: it embeds on the event loop). */
  embedding(): EmbeddingInfo {
    const e = this.#engine.embedder;
    return { provider: e.constructor.name, workers: e instanceof EmbeddingWorkerPool ? e.maxWorkers : 0 };
  }

  /** Hits and misses of the caches (the HTTP server's metrics). */
  cacheStats(): CacheStats {
    return { results: this.results.stats(), queryEmbeddings: this.#engine.queryEmbedder.stats() };
  }

  /**
   * The project's graph analytics as last completed: whether they are fresh (false while a refresh of a moved
   * graph runs in the background), how long that run took by phase (ms), and how many background refreshes
   * this Toolgraph ran in the worker thread and on the event loop.
   */
  async analyticsStatus(opts: ProjectScoped = {}): Promise<AnalyticsStatus> {
    const a = (await this.#engine.view(this.p(opts))).analytics();
    return {
      fresh: a.fresh,
      timingsMs: { ...a.analytics.timingsMs },
      refreshes: { ...this.#engine.analyticsCache.refreshes },
    };
  }

  /** Told of every refit of a project's weights (learning-log.ts); a listener set before is kept. */
  onRefit(listener: (record: FitRecord) => void): void {
    this.#engine.learningLog ??= listener;
  }

  /** The project's tool graph for display and export: tools with community and position, edges, capabilities. */
  async graph(opts: ProjectScoped = {}): Promise<GraphView> {
    return graphView(this.#engine, this.p(opts));
  }

  /**
   * Builds the project's search index now, embedding the tool texts not embedded yet (an interrupted import),
   * with `onProgress(done, total)`; nothing on a project without tools.
   */
  async prepareSearch(
    opts: ProjectScoped & { onProgress?: ((done: number, total: number) => void) | undefined } = {},
  ): Promise<void> {
    const view = await this.#engine.view(this.p(opts));
    if (view.snapshot.n === 0) return;
    await view.searchIndex(opts.onProgress);
  }

  /**
   * One warm-up step of a server's readiness: "model" loads the embedding model (one embedding), "index"
   * builds the project's search index, "analytics" runs the graph analytics (in their worker). "search" readies what a search
   * answers from now, so that the first one after a catalog change does not build it: the analytics of the new
   * graph (in their worker), the intent memory, the serving index (the lexical one while the embeddings are
   * computed) and the ranking's derived state — by ranking one fixed intent, logged nowhere.
   */
  async warmUp(step: "model" | "index" | "analytics" | "search", opts: ProjectScoped = {}): Promise<void> {
    const project = this.p(opts);
    if (step === "model") await this.#engine.embedder.embed(["warm-up"]);
    else if (step === "index") await this.#engine.searchIndex(project);
    // In their worker: a graph of a new shape would otherwise be computed on the event loop (analytics.ts).
    else if (step === "analytics") await this.#engine.analyticsCache.fresh(await this.#engine.snapshot(project));
    else {
      const view = await this.#engine.view(project);
      // Even on an empty catalog: this starts the analytics worker (a gateway readies it while its upstreams
      // connect, so that the analytics of their first list do not wait for the worker to load).
      await this.#engine.analyticsCache.fresh(view.snapshot);
      if (view.snapshot.n === 0) return;
      await settledMemory(this.#engine, project);
      const { rankSearch } = await import("../jobs/search.ts");
      const job = await OPERATION_LIST.find((o) => o.name === "search")!.load();
      await rankSearch(view, parseRequest(job.request, { intent: "warm up the search", limit: 1 }) as never);
    }
  }

  /**
   * While a new catalog's embeddings are computed, searches answer from a lexical index ("lexical": the
   * gateway) or wait for them ("wait", the default): docs/decisions/lexical-while-embedding.md.
   */
  answerWhileEmbedding(mode: "wait" | "lexical"): void {
    this.#engine.whileEmbedding = mode;
  }

  /** One `SELECT 1` round trip: cheap liveness for `/health` (rejects with database-unreachable when down). */
  async ping(): Promise<{ backend: "postgres" | "pglite" }> {
    await sql`SELECT 1`.execute(this.#engine.db);
    return { backend: this.#engine.conn.backend };
  }

  async close(): Promise<void> {
    await this.recommendations.close();
    await this.#engine.close();
  }
}

for (const operation of OPERATION_LIST) {
  Object.defineProperty(Toolgraph.prototype, operation.name, {
    value(this: Toolgraph, req: object & Scoped) {
      return this.run(operation, req);
    },
    writable: true,
    configurable: true,
  });
}

export async function openToolgraph(options: ToolgraphOptions = {}): Promise<Toolgraph> {
  retentionFromEnv(); // a bad bound in the environment is refused before the database is opened
  const engine = await Engine.open(options);
  return new Toolgraph(
    engine,
    options.project ?? "default",
    options.resultCacheSize ?? 1000,
    options.recommendationLog,
  );
}
