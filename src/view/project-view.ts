/**
 * A project's view: what a job reads, for one project at one graph version. The engine builds it once per
 * version (`Engine.view`) and hands the same object to every job until the version changes; a job receives
 * it as `ctx.view` and loads nothing itself (docs/decisions/layout.md).
 *
 * The view holds the graph snapshot of its version and the gate, and answers the other read models through
 * the engine's caches, which are keyed by that version (analytics: the last completed run, refreshed off the
 * request path; the search index: rebuilt only when a tool or capability text changes; the intent memory and
 * the execution history: per version, extended by this engine's own records; the project configuration:
 * re-read at most once per second). The writes a job makes — a fit stored in the project's configuration, new
 * embeddings — go through the view too, so a job never names the store.
 *
 * Invariants: `snapshot.version === version` when built (a record by this engine may patch the snapshot in
 * place and bump its version; the engine then builds a new view for the new version); `latest()` is the view
 * of the project's current version (what a background fit started by a request reads when it runs).
 */
import type { ToolgraphError } from "../contract/errors.ts";
import type { EmbeddingProvider } from "../embeddings/provider.ts";
import type { Gatekeeper } from "../gate/gatekeeper.ts";
import type { FitRecord } from "../jobs/learning-log.ts";
import { emptyProjectError } from "../store/empty-project.ts";
import { type ProjectConfig, projectConfig, setProjectConfig } from "../store/projects.ts";
import type { ExecutionHistoryRow } from "../store/reads.ts";
import type { AnalyticsView } from "./analytics.ts";
import { startOnce } from "./background.ts";
import type { Engine } from "./engine.ts";
import {
  cachedProjectConfig,
  cachedProjectConfigNow,
  forgetProjectConfig,
  projectFallbacks,
  projectFallbacksNow,
} from "./filters.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";
import { executionHistory } from "./history.ts";
import { type MemoryIndex, memoryIndex } from "./intent-memory.ts";
import { type RecallOptions, type RecallResult, recallMemory } from "./memory-recall.ts";
import { ensureEmbeddings, type SearchIndex } from "./search-index.ts";

export class ProjectView {
  readonly #engine: Engine;
  /** The project this view reads. */
  readonly project: string;
  /** The graph snapshot (CSR, tools, capabilities, counts) of this view's version. */
  readonly snapshot: GraphSnapshot;
  /** The graph version this view was built for. */
  readonly version: number;
  /** The Gatekeeper (thresholds, calibration, context detection, user history) shared by every project. */
  readonly gate: Gatekeeper;

  constructor(engine: Engine, project: string, snapshot: GraphSnapshot) {
    this.#engine = engine;
    this.project = project;
    this.snapshot = snapshot;
    this.version = snapshot.version;
    this.gate = engine.gatekeeper;
  }

  /** The scoring clock (epoch ms): recency of past executions, the fits' timestamps. */
  now(): number {
    return this.#engine.now();
  }

  /** The view of the project's current graph version (this one while the version is unchanged). */
  latest(): Promise<ProjectView> {
    return this.#engine.view(this.project);
  }

  /** The analytics of this snapshot (last completed; refreshed off the request path when stale). */
  analytics(): AnalyticsView {
    return this.#engine.analyticsOf(this.snapshot);
  }

  /** The search index of the catalog (built on first use, rebuilt only when tool or capability texts change). */
  searchIndex(onProgress?: (done: number, total: number) => void): Promise<SearchIndex> {
    return this.#engine.searchIndex(this.project, onProgress);
  }

  /** The index a search answers from: the full index, or the lexical one while embeddings are computed. */
  servingSearchIndex(): Promise<SearchIndex> {
    return this.#engine.servingSearchIndex(this.project);
  }

  /** Whether this version's answers rank with the embedding channel now (Engine.embeddingLive). */
  embeddingLive(): boolean {
    return this.#engine.embeddingLive(this.project, this.snapshot);
  }

  /** Embeds query texts (an LRU cache in front of the embedding provider). */
  embedQueries(texts: readonly string[]): Promise<Float32Array[]> {
    return this.#engine.queryEmbedder.embed([...texts]);
  }

  /** The embedding provider's model name and dimensions. */
  get embedder(): Pick<EmbeddingProvider, "model" | "dimensions"> {
    return this.#engine.embedder;
  }

  /** Vectors of texts through the project's stored embeddings: only texts never embedded go to the model. */
  async storedEmbeddings(texts: readonly string[]): Promise<Float32Array[]> {
    return (await ensureEmbeddings(this.#engine.db, this.project, this.#engine.embedder, texts)).vectors;
  }

  /** The same vectors, without storing those embedded now: for measurements a read (search, stats) triggers. */
  async embeddingsReadOnly(texts: readonly string[]): Promise<Float32Array[]> {
    return (await ensureEmbeddings(this.#engine.db, this.project, this.#engine.embedder, texts, undefined, false))
      .vectors;
  }

  /** The project's intent memory (built on first use, rebuilt after recorded executions). */
  memory(): Promise<MemoryIndex> {
    return memoryIndex(this.#engine, this.project);
  }

  /** Past executions whose intents resemble `intent` (intent-memory.ts). */
  recall(intent: string, qv: Float32Array, options?: RecallOptions): Promise<RecallResult> {
    return recallMemory(this.#engine, this.project, intent, qv, options);
  }

  /** Every execution of the project at the current graph version, by start time then id. */
  executionHistory(): Promise<ExecutionHistoryRow[]> {
    return executionHistory(this.#engine, this.project);
  }

  /** The project's configuration, re-read at most once per second. */
  config(): Promise<ProjectConfig> {
    return cachedProjectConfig(this.#engine, this.project);
  }

  /** The cached configuration while it is fresh, without I/O, else undefined. */
  configNow(): ProjectConfig | undefined {
    return cachedProjectConfigNow(this.#engine, this.project);
  }

  /** The project's configuration read from the store now (not the cached copy). */
  storedConfig(): Promise<ProjectConfig> {
    return projectConfig(this.#engine.db, this.project);
  }

  /** Stores the project's configuration and drops the cached copy. */
  async storeConfig(config: ProjectConfig): Promise<void> {
    await setProjectConfig(this.#engine.db, this.project, config);
    forgetProjectConfig(this.#engine, this.project);
  }

  /** The project's fallback tools (configuration `fallbackTools`). */
  fallbacks(): Promise<string[]> {
    return projectFallbacks(this.#engine, this.project);
  }

  /** The fallback tools from a fresh cached configuration, without I/O, else undefined. */
  fallbacksNow(): string[] | undefined {
    return projectFallbacksNow(this.#engine, this.project);
  }

  /** The `empty-project` error for this project, naming the projects of the database that have tools. */
  emptyProjectError(): Promise<ToolgraphError> {
    return emptyProjectError(this.#engine.db, this.project);
  }

  /** Runs `job` on the next turn of the event loop, at most once per engine, name and project (background.ts). */
  startOnce(name: string, job: () => Promise<unknown>): void {
    startOnce(this.#engine, name, this.project, job);
  }

  /**
   * Runs `write` after the previous configuration write of this project's fits and before the next (a search
   * fit and a next-step fit finishing together must not overwrite each other's fields).
   */
  serialFitWrite(write: () => Promise<void>): Promise<void> {
    const perProject = this.#engine.fitWrites;
    const next = (perProject.get(this.project) ?? Promise.resolve()).catch(() => {}).then(write);
    perProject.set(this.project, next);
    return next;
  }

  /** Tells the engine's listener (the HTTP server logs it) of a refit. */
  reportFit(record: FitRecord): void {
    this.#engine.learningLog?.(record);
  }

  /**
   * A slot of per-project state kept across graph versions (for a measurement too costly to repeat at every
   * version, renewed by its owner's own rule); `name` keeps owners apart.
   */
  projectMemo<T>(name: string): { get(): T | undefined; set(value: T | undefined): void } {
    const memos = this.#engine.projectMemos;
    const key = `${name}\u0000${this.project}`;
    return {
      get: () => memos.get(key) as T | undefined,
      set: (value) => {
        if (value === undefined) memos.delete(key);
        else memos.set(key, value);
      },
    };
  }

  /**
   * Bytes kept in the embedded data directory for later processes (store/data-dir-cache.ts) under `kind` and
   * this project and `key` (which must name everything the value depends on); undefined without a data
   * directory (memory://, PostgreSQL).
   */
  shared(kind: string, key: string): { read(): Buffer | undefined; write(bytes: Uint8Array): void } | undefined {
    const cache = this.#engine.dataDirCache;
    if (!cache) return undefined;
    const full = `${this.project}\u0000${key}`;
    return { read: () => cache.read(kind, full), write: (bytes) => cache.write(kind, full, bytes) };
  }

  /** Whether the project's intent memory reflects every execution this engine recorded (none since its build). */
  memoryClean(): boolean {
    const slot = this.#engine.memorySlots.get(this.project);
    return slot !== undefined && !slot.dirty && slot.rebuilding === undefined;
  }

  /** Whether this engine loaded the project's stored calibrations into the gate; `mark` records it (or forgets). */
  calibrationLoaded(mark?: boolean): boolean {
    const set = this.#engine.calibrationsLoaded;
    if (mark === true) set.add(this.project);
    else if (mark === false) set.delete(this.project);
    return set.has(this.project);
  }
}
