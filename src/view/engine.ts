/**
 * The engine: one open database, the embedding provider, and the per-project read models.
 * Every front door (library, CLI, HTTP, MCP) calls the services through one Engine.
 *
 * Freshness: a read model is reused while the project's graph version is unchanged. Writes made
 * through this engine patch or invalidate it at once; writes by other processes (several `serve`
 * processes on one PostgreSQL) are noticed by a version check at most every `versionCheckMs`
 * (default 250 ms), so they are reflected within one second.
 */

import type { Kysely } from "kysely";
import { setSimdEnabled } from "../../algorithms/simd/row-dots.ts";
import { CachedEmbeddingProvider, type QueryVectorStore } from "../embeddings/cached.ts";
import type { EmbeddingCallStore } from "../embeddings/call-store.ts";
import { createEmbeddingProvider, type EmbeddingSpec, parseEmbeddingSpec } from "../embeddings/create.ts";
import { EmbeddingError, type EmbeddingProvider } from "../embeddings/provider.ts";
import { EmbeddingWorkerPool } from "../embeddings/worker-pool.ts";
import type { ExecutionInput } from "../formats/schemas.ts";
import { Gatekeeper } from "../gate/gatekeeper.ts";
import type { FitRecord } from "../jobs/learning-log.ts";
import { type Connection, type ConnectionOptions, openConnection } from "../store/connection.ts";
import { type DataDirCache, dataDirCacheFor } from "../store/data-dir-cache.ts";
import { resolveDatabaseUrl, resolveHome } from "../store/locations.ts";
import { graphVersion, type ProjectConfig } from "../store/projects.ts";
import type { Database } from "../store/schema.ts";
import { userEmbeddingStore } from "../store/user-cache.ts";
import { AnalyticsCache, type AnalyticsOptions, type AnalyticsView } from "./analytics.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";
import type { HistorySlot } from "./history.ts";
import type { MemorySlot } from "./intent-memory.ts";
import { loadGraphSnapshot } from "./load-snapshot.ts";
import { ProjectView } from "./project-view.ts";
import { type Published, PublishedVersions, publishedIndex } from "./published.ts";
import { buildLexicalIndex, buildSearchIndex, catalogKey, type SearchIndex } from "./search-index.ts";
import { TokenLists } from "./token-lists.ts";

export interface EngineOptions extends ConnectionOptions {
  /** How often (ms) a read checks the stored graph version for writes by other processes. Default 250. */
  versionCheckMs?: number | undefined;
  /**
   * The scoring clock (epoch ms): recency of past executions, the analytics' and fits' timestamps. Default
   * Date.now. Algorithms never read the clock; services pass `now`. A frozen `now` (tests, benches) does not
   * freeze refreshes: version checks run on `clock`.
   */
  now?: (() => number) | undefined;
  /**
   * The operational clock (ms, monotonic) of the version checks. Default performance.now. The other refreshes
   * (analytics debounce, memory rebuilds, the result cache's TTL) already run on performance.now.
   */
  clock?: (() => number) | undefined;
  /** Embedding provider or spec ("use-lite" default, "hash:256", "openai:<url>#<model>"). Default TOOLGRAPH_EMBEDDINGS or "use-lite". */
  embeddings?: EmbeddingProvider | string | EmbeddingSpec | undefined;
  /**
   * Worker threads that run a local model ("use-lite") off the event loop; 0 runs it on the event loop. Other
   * specs (hash: cheap; openai: remote) and a provider instance are used as they are. Default
   * TOOLGRAPH_EMBEDDING_WORKERS, else 1 on a 2-core machine (cores − 1, at most 4): docs/decisions/embedding-worker-pool.md.
   */
  embeddingWorkers?: number | undefined;
  /** Capacity of the query-embedding LRU cache. Default 1000. */
  queryCacheSize?: number | undefined;
  /**
   * Query texts to embed while the database opens (a CLI call's one request): the model loads on its worker
   * thread at the same time as the database on this one, and the request then finds its vector in the query
   * cache. A failure here is not reported (the request embeds again and reports it). Default none.
   */
  warmQueries?: readonly string[] | undefined;
  /**
   * Background fits started by requests (search and next-step weights when a project has none). Default true;
   * a one-shot process (a CLI command that answers one request and exits) sets false: it would close before
   * a fit of seconds ends, having spent the CPU for nothing (docs/decisions/everyday-budget.md).
   */
  backgroundFits?: boolean | undefined;
  /** Analytics options (seeds, hypergraph weights). */
  analytics?: AnalyticsOptions | undefined;
  /** Context detection for the gate. Default true. */
  detection?: boolean | undefined;
}

export const ENGINE_DEFAULTS = { versionCheckMs: 250 } as const;

/** TOOLGRAPH_NO_SIMD=1 runs every vector kernel in plain JS (the WebAssembly SIMD kernels stay unused). */
function applySimdEnvironment(): void {
  if (process.env.TOOLGRAPH_NO_SIMD === "1") setSimdEnabled(false);
}

/**
 * The provider of a spec: a local model in a worker pool (unless workers is 0), anything else in process. A
 * local model keeps its answers in `store` when given (a `memory://` project: the user's cache directory).
 */
function embeddingProvider(
  spec: string | EmbeddingSpec,
  workers: number | undefined,
  store: EmbeddingCallStore | undefined,
): EmbeddingProvider {
  const parsed = typeof spec === "string" ? parseEmbeddingSpec(spec) : spec;
  const env = process.env.TOOLGRAPH_EMBEDDING_WORKERS;
  const n = workers ?? (env !== undefined && env.trim() !== "" ? Number(env) : undefined);
  if (workers === undefined && n !== undefined && !(Number.isInteger(n) && n >= 0)) {
    throw new EmbeddingError(
      "bad-option",
      `TOOLGRAPH_EMBEDDING_WORKERS must be a non-negative integer, got ${JSON.stringify(env)}`,
    );
  }
  if (parsed.kind !== "use-lite" || n === 0) return createEmbeddingProvider(parsed, { store });
  return new EmbeddingWorkerPool(parsed, n === undefined ? { store } : { workers: n, store });
}

const noop = () => {};

/** Query vectors in the data directory's cache: the vector's float32 bytes under the query cache's key. */
function queryVectorStore(cache: DataDirCache): QueryVectorStore {
  return {
    get(key) {
      const b = cache.read("query-vectors", key);
      if (!b || b.length === 0 || b.length % 4 !== 0) return undefined;
      const v = new Float32Array(b.length / 4);
      new Uint8Array(v.buffer).set(b);
      return v;
    },
    set(key, v) {
      cache.write("query-vectors", key, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    },
  };
}

interface CachedSnapshot {
  snapshot: GraphSnapshot;
  checkedAt: number;
}

export class Engine {
  readonly conn: Connection;
  readonly now: () => number;
  /** The operational clock (version checks): see EngineOptions.clock. */
  private readonly clock: () => number;
  private readonly versionCheckMs: number;
  private readonly snapshots = new Map<string, CachedSnapshot>();
  /** The load in flight per project, with the invalidation generation it started in. */
  private readonly loading = new Map<string, { promise: Promise<GraphSnapshot>; generation: number }>();
  /** Bumped by `invalidate`: a load started before a write must not answer (or be cached) after it. */
  private readonly generations = new Map<string, number>();
  private closed = false;
  readonly embedder: EmbeddingProvider;
  readonly queryEmbedder: CachedEmbeddingProvider;
  readonly analyticsCache: AnalyticsCache;
  readonly gatekeeper: Gatekeeper;
  private readonly searchIndexes = new Map<string, Promise<SearchIndex>>();
  /** Per project, the last full search index built (servingSearchIndex answers from it without waiting). */
  private readonly builtIndexes = new Map<string, SearchIndex>();
  /** Per project, the lexical index of the catalog whose embeddings are being computed. */
  private readonly lexicalIndexes = new Map<string, Promise<SearchIndex>>();
  /** Per project: token lists kept between index builds (only changed texts are tokenized: token-lists.ts). */
  private readonly tokenLists = new Map<string, TokenLists>();
  /**
   * Search answers from a lexical index while a catalog's embeddings are computed ("lexical"), or waits for
   * them ("wait"). Default "wait"; the gateway answers at once (docs/decisions/lexical-while-embedding.md).
   */
  whileEmbedding: "wait" | "lexical" = "wait";
  /** The intent memory of each project (memory.ts: built on first use, rebuilt after recorded executions). */
  readonly memorySlots = new Map<string, MemorySlot>();
  /** The execution history of each project as last read (history.ts: per graph version, extended by own imports). */
  readonly histories = new Map<string, HistorySlot>();
  /** Each project's configuration as last read, with when (filters.ts: re-read at most once per second). */
  readonly projectConfigs = new Map<string, { at: number; config: ProjectConfig }>();
  /** One-off background jobs started by this engine, as "name\0project" (background.ts). */
  readonly startedJobs = new Set<string>();
  /** The last configuration write of each project's fits (learning-log.ts serialises them: read, modify, write). */
  readonly fitWrites = new Map<string, Promise<void>>();
  /** Projects whose stored calibrations the gate has loaded (calibrate.ts). */
  readonly calibrationsLoaded = new Set<string>();
  /** Per-project state that outlives graph versions (ProjectView.projectMemo), as "name\0project". */
  readonly projectMemos = new Map<string, unknown>();
  /** Told of every refit of a project's weights (learning-log.ts); the HTTP server logs them. Default: none. */
  learningLog: ((record: FitRecord) => void) | undefined;
  /** Results kept in the embedded data directory for later processes; undefined for memory:// and PostgreSQL. */
  readonly dataDirCache: DataDirCache | undefined;
  /** Whether requests may start background fits (EngineOptions.backgroundFits). */
  readonly backgroundFits: boolean;

  private constructor(
    conn: Connection,
    options: EngineOptions,
    queryEmbedder: CachedEmbeddingProvider,
    dataDirCache: DataDirCache | undefined,
  ) {
    this.conn = conn;
    this.now = options.now ?? Date.now;
    this.clock = options.clock ?? (() => performance.now());
    this.versionCheckMs = options.versionCheckMs ?? ENGINE_DEFAULTS.versionCheckMs;
    this.embedder = queryEmbedder.inner;
    this.queryEmbedder = queryEmbedder;
    this.analyticsCache = new AnalyticsCache(
      this.now,
      options.analytics,
      dataDirCache && {
        read: (key) => dataDirCache.read("analytics", key),
        write: (key, bytes) => dataDirCache.write("analytics", key, bytes),
      },
    );
    this.gatekeeper = new Gatekeeper(conn.db, { now: this.now, detection: options.detection ?? true });
    this.dataDirCache = dataDirCache;
    this.backgroundFits = options.backgroundFits ?? true;
  }

  /** Each project's view as last built (project-view.ts): reused while its snapshot and version are current. */
  private readonly views = new Map<string, ProjectView>();

  /**
   * The view of a project at its current graph version: built once per version and handed to every job until
   * the version changes (fresh to within `versionCheckMs` of other processes' writes, as `snapshot`).
   */
  async view(project: string): Promise<ProjectView> {
    return this.viewNow(project) ?? this.viewOf(project, await this.snapshot(project));
  }

  /** The view while the snapshot needs no version check, else undefined (a synchronous fast path for `view`). */
  viewNow(project: string): ProjectView | undefined {
    const pin = this.pinned(project);
    if (pin) {
      // A record may have patched the published snapshot in place: a view of its new version.
      if (pin.view.version !== pin.snapshot.version) pin.view = new ProjectView(this, project, pin.snapshot);
      return pin.view;
    }
    const s = this.cachedSnapshot(project);
    return s && this.viewOf(project, s);
  }

  private viewOf(project: string, s: GraphSnapshot): ProjectView {
    const held = this.views.get(project);
    if (held && held.snapshot === s && held.version === s.version) return held;
    const v = new ProjectView(this, project, s);
    this.views.set(project, v);
    return v;
  }

  /** The project's analytics (last completed; refreshed off the request path when stale). */
  async analytics(project: string): Promise<AnalyticsView> {
    return this.analyticsOf(await this.snapshot(project));
  }

  /**
   * The analytics of a snapshot (ProjectView.analytics): the cache's, or, for the snapshot published while a
   * staged write readies the next version, those held when the write began (the cache's slot holds the next's).
   */
  analyticsOf(s: GraphSnapshot): AnalyticsView {
    const pin = this.pinned(s.project);
    if (!pin || pin.snapshot !== s) return this.analyticsCache.get(s);
    // None of its shape held when the write began: computed now (as a first read would), kept in the pin only.
    pin.analytics ??= this.analyticsCache.apart(s);
    return pin.analytics;
  }

  /** The search index currently cached for a project, if one was built. */
  async cachedSearchIndex(project: string): Promise<SearchIndex | undefined> {
    const pin = this.pinned(project);
    if (pin) return pin.full?.catch(() => undefined);
    return this.searchIndexes.get(project)?.catch(() => undefined);
  }

  private projectTokenLists(project: string): TokenLists {
    const lists = this.tokenLists.get(project) ?? new TokenLists();
    this.tokenLists.set(project, lists);
    return lists;
  }

  /** The search index of the project's catalog, rebuilt only when tool or capability texts change. */
  async searchIndex(project: string, onProgress?: (done: number, total: number) => void): Promise<SearchIndex> {
    const pin = this.pinned(project);
    if (pin) return this.publishedIndex(pin, "full", onProgress);
    const s = await this.snapshot(project);
    const key = catalogKey(s, this.embedder.model);
    const cached = this.searchIndexes.get(project);
    if (cached) {
      const idx = await cached.catch(() => undefined);
      if (idx && idx.key === key) return idx;
    }
    const p = buildSearchIndex(this.db, s, this.embedder, onProgress, this.projectTokenLists(project));
    this.searchIndexes.set(project, p);
    p.then(
      (idx) => {
        if (this.searchIndexes.get(project) === p) this.builtIndexes.set(project, idx);
      },
      () => this.searchIndexes.delete(project),
    );
    return p;
  }

  /**
   * The index a search answers from: the full index of the current catalog, or — with whileEmbedding
   * "lexical", while that index is still being built (its embeddings computed) — the catalog's lexical index
   * (`degraded: "embedding"`), the build going on in the background.
   */
  /**
   * Whether answers on snapshot `s` rank with the embedding channel: always with whileEmbedding "wait" (they wait
   * for it), else once the full index of that catalog is built. A job that would embed its query only for the
   * embedding channel asks this first: while the catalog is embedded, the model is busy with it.
   */
  embeddingLive(project: string, s: GraphSnapshot): boolean {
    return this.whileEmbedding === "wait" || this.builtIndexes.get(project)?.key === catalogKey(s, this.embedder.model);
  }

  async servingSearchIndex(project: string): Promise<SearchIndex> {
    if (this.whileEmbedding === "wait") return this.searchIndex(project);
    const pin = this.pinned(project);
    if (pin) return this.publishedIndex(pin, "serving");
    const s = await this.snapshot(project);
    const key = catalogKey(s, this.embedder.model);
    const built = this.builtIndexes.get(project);
    if (built?.key === key) return built;
    const full = () => void this.searchIndex(project).catch(() => undefined);
    const lexical = this.lexicalIndexes.get(project);
    const idx = lexical && (await lexical.catch(() => undefined));
    if (idx?.key === key) {
      full();
      return idx;
    }
    const p = buildLexicalIndex(s, this.embedder.model, this.embedder.dimensions, this.projectTokenLists(project));
    this.lexicalIndexes.set(project, p);
    p.catch(() => this.lexicalIndexes.delete(project));
    // The full build (its texts, the embeddings' bookkeeping, the vector index) starts once the lexical index
    // is in: both run slices on the event loop, and the lexical one is what the waiting search needs.
    p.then(full, full);
    return p;
  }

  /** Per project, the version reads outside a staged write are served while it runs (published.ts). */
  private readonly published = new PublishedVersions();

  private pinned(project: string): Published | undefined {
    return this.published.pinned(project);
  }

  /** An index of the published snapshot of a staged write's pin (published.ts). */
  private publishedIndex(pin: Published, which: "serving" | "full", onProgress?: (d: number, t: number) => void) {
    const s = pin.snapshot;
    return publishedIndex(pin, which, catalogKey(s, this.embedder.model), this.builtIndexes.get(s.project), () =>
      which === "full"
        ? buildSearchIndex(this.db, s, this.embedder, onProgress)
        : buildLexicalIndex(s, this.embedder.model, this.embedder.dimensions),
    );
  }

  /**
   * Runs `write` — a catalog write and what readies the answers of the version it makes (the analytics in their
   * worker, the lexical index) — in a scope of its own: its reads see the new version and fill the engine's
   * slots, while every other read is served at once from the version published when it began (its snapshot,
   * view, analytics and indexes), never waiting for the write nor seeing it half readied; when it ends the new
   * version is published (published.ts). Writes are not serialised here: their callers queue them.
   */
  staged<T>(project: string, write: () => Promise<T>): Promise<T> {
    return this.published.staged(project, () => this.pinNow(project), write);
  }

  private async pinNow(project: string): Promise<Published> {
    const s = await this.snapshot(project);
    const key = catalogKey(s, this.embedder.model);
    const built = this.builtIndexes.get(project);
    const full = built?.key === key ? Promise.resolve(built) : this.searchIndexes.get(project);
    const serving = built?.key === key ? full : this.lexicalIndexes.get(project);
    const analytics = this.analyticsCache.peek(s);
    return { snapshot: s, view: this.viewOf(project, s), analytics, serving, full };
  }

  static async open(options: EngineOptions = {}): Promise<Engine> {
    applySimdEnvironment();
    // The embedder first: a bad spec or worker count fails before the database is opened (and locked).
    const spec = options.embeddings ?? process.env.TOOLGRAPH_EMBEDDINGS ?? "use-lite";
    // memory:// keeps nothing of its own: a local model's answers are kept in the user's cache directory.
    const memory = !resolveDatabaseUrl(options.database) && resolveHome(options.home) === "memory://";
    const embedder =
      typeof spec === "object" && "embed" in spec
        ? spec
        : embeddingProvider(spec, options.embeddingWorkers, memory ? userEmbeddingStore() : undefined);
    // An embedded data directory keeps query vectors for later processes (a repeated CLI query
    // then needs no model); its lock is not needed for that (whole files, renamed in place).
    const dataDirCache = dataDirCacheFor(options);
    const capacity = options.queryCacheSize ?? 1000;
    const store = dataDirCache && capacity > 0 ? queryVectorStore(dataDirCache) : undefined;
    const queryEmbedder = new CachedEmbeddingProvider(embedder, { capacity, store });
    const texts = (options.warmQueries ?? []).filter((t) => typeof t === "string" && t.trim() !== "");
    const warming = texts.length > 0 ? queryEmbedder.embed(texts).then(noop, noop) : undefined;
    let conn: Connection;
    try {
      conn = await openConnection(options);
    } catch (err) {
      await warming;
      await embedder.close?.();
      throw err;
    }
    await warming;
    return new Engine(conn, options, queryEmbedder, dataDirCache);
  }

  get db(): Kysely<Database> {
    return this.conn.db;
  }

  /**
   * The cached read model of a project while it needs no version check (within `versionCheckMs` of the last),
   * else undefined: a synchronous fast path for `snapshot`, which callers await only on undefined.
   */
  cachedSnapshot(project: string): GraphSnapshot | undefined {
    const pin = this.pinned(project);
    if (pin) return pin.snapshot;
    const cached = this.snapshots.get(project);
    return cached && this.clock() - cached.checkedAt < this.versionCheckMs ? cached.snapshot : undefined;
  }

  /** The read model of a project, fresh to within `versionCheckMs` of other processes' writes. */
  async snapshot(project: string): Promise<GraphSnapshot> {
    const pin = this.pinned(project);
    if (pin) return pin.snapshot;
    const cached = this.snapshots.get(project);
    const t = this.clock();
    if (cached && t - cached.checkedAt < this.versionCheckMs) return cached.snapshot;
    if (cached) {
      const v = await graphVersion(this.db, project);
      if (v === cached.snapshot.version) {
        cached.checkedAt = t;
        return cached.snapshot;
      }
    }
    return this.reload(project);
  }

  private reload(project: string): Promise<GraphSnapshot> {
    const generation = this.generations.get(project) ?? 0;
    const inFlight = this.loading.get(project);
    // A load started before the last invalidation may have read the rows before the write: start another.
    if (inFlight && inFlight.generation === generation) return inFlight.promise;
    const promise = loadGraphSnapshot(this.db, project)
      .then((s) => {
        if ((this.generations.get(project) ?? 0) !== generation) return s; // stale by now: answer, do not cache
        const prev = this.snapshots.get(project);
        this.snapshots.set(project, { snapshot: s, checkedAt: this.clock() });
        if (prev) this.onRebuilt(project, prev.snapshot, s);
        return s;
      })
      .finally(() => {
        if (this.loading.get(project)?.promise === promise) this.loading.delete(project);
      });
    this.loading.set(project, { promise, generation });
    return promise;
  }

  private rebuildListeners: ((project: string, prev: GraphSnapshot, next: GraphSnapshot) => void)[] = [];

  /** Called when a project's snapshot is replaced by a fresh load (not on in-place patches). */
  onSnapshotRebuilt(fn: (project: string, prev: GraphSnapshot, next: GraphSnapshot) => void): void {
    this.rebuildListeners.push(fn);
  }

  private onRebuilt(project: string, prev: GraphSnapshot, next: GraphSnapshot): void {
    for (const fn of this.rebuildListeners) fn(project, prev, next);
  }

  /** After a write by this engine: patch the cached snapshot in place, or drop it to reload. */
  afterRecord(project: string, executions: readonly ExecutionInput[], version: number): void {
    const cached = this.snapshots.get(project);
    if (!cached) return;
    if (cached.snapshot.version !== version - 1) {
      this.invalidate(project);
      return;
    }
    for (const e of executions) {
      if (!cached.snapshot.patchExecution(e, version)) {
        this.invalidate(project);
        return;
      }
    }
    cached.checkedAt = this.clock();
  }

  /** Forgets the cached read model of a project (after a catalog or edge import). */
  invalidate(project: string): void {
    this.snapshots.delete(project);
    this.generations.set(project, (this.generations.get(project) ?? 0) + 1);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.loading
      .values()
      .next()
      .value?.promise.catch(() => undefined);
    for (const p of this.searchIndexes.values()) await p.catch(() => undefined);
    await this.queryEmbedder.close?.().catch(() => undefined);
    await this.analyticsCache.dispose().catch(() => undefined);
    await this.conn.close();
  }
}
