/**
 * Whole-graph analytics of a snapshot: PageRank (weighted, damping 0.85, max-normalised to [0,1]),
 * Louvain communities (seeded), spectral clusters of the tool–capability hypergraph (capability
 * dependencies included) and hypergraph PageRank of tools and capabilities.
 *
 * Lifecycle (issue: never recompute on the write path): analytics are computed for a snapshot state
 * (version + in-place patch count) and cached. A read uses the last completed analytics; when the graph
 * has moved since, it returns them flagged stale and schedules one refresh off the request path
 * (setImmediate, one at a time, at most once per `minRefreshIntervalMs`, default 5 s: under a stream of
 * writes the analytics lag by at most that much instead of recomputing after every write). A graph of another
 * shape (tools or capabilities added or gone) gets the last analytics carried over by id (analytics-remap.ts),
 * stale, and a refresh at once; only the very first read of a project (or any read without the worker)
 * computes synchronously.
 * The background refresh runs in a worker thread (analytics-worker.ts; ≈ 1 s of spectral clustering at 10k
 * tools would otherwise hold the event loop and every request behind it): the snapshot's CSR and the
 * tool–capability memberships are copied to the worker, which runs the same computeAnalyticsFrom. A worker that
 * fails is replaced; when none can start (three failures in a row, or `offThread: false`), the refresh runs on
 * the event loop as before.
 */
import { hypergraphPagerank } from "../../algorithms/centrality/hypergraph-pagerank.ts";
import { normalizeToUnit, pagerankDetailed } from "../../algorithms/centrality/pagerank.ts";
import { louvainDetailed } from "../../algorithms/community/louvain.ts";
import type { Csr } from "../../algorithms/graph/csr.ts";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { spectralClustering } from "../../algorithms/spectral/spectral-clustering.ts";
import type { ToolCapabilityInput } from "../../algorithms/spectral/tool-capability-graph.ts";
import { type AnalyticsShape, remapAnalytics } from "./analytics-remap.ts";
import { type AnalyticsStore, analyticsKey, readAnalytics, writeAnalytics } from "./analytics-store.ts";
import { AnalyticsWorker } from "./analytics-worker-client.ts";
import { drainInSlices, yieldToEventLoop } from "./background.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";

export interface AnalyticsOptions {
  /** Seed of Louvain and spectral clustering. Default 1. */
  seed?: number;
  /** Debounce: a stale read schedules a refresh at most once per this many ms. Default 5000. */
  minRefreshIntervalMs?: number;
  /** Weight of tool→tool edges in the hypergraph (spectral, hypergraph PageRank). Default 0.5. */
  toolEdgeFactor?: number;
  /** Background refreshes in a worker thread. Default true. */
  offThread?: boolean;
}

/** What the analytics are computed from: plain data, so it can be sent to a worker thread. */
export interface AnalyticsJob {
  version: number;
  patchCount: number;
  csr: Csr;
  input: ToolCapabilityInput;
}

/** Workers started in a row that failed before the refreshes fall back to the event loop for good. */
const WORKER_ATTEMPTS = 3;

export const ANALYTICS_DEFAULTS = { seed: 1, toolEdgeFactor: 0.5, minRefreshIntervalMs: 5000 } as const;

export interface Analytics {
  /** Snapshot state the analytics were computed on. */
  version: number;
  patchCount: number;
  computedAt: number;
  /** PageRank, raw (sums to 1) and max-normalised to [0,1]. */
  pagerankRaw: Float64Array;
  pagerank: Float64Array;
  /** Louvain community per tool. */
  community: Int32Array;
  communityCount: number;
  modularity: number;
  /** Spectral cluster per tool and per capability. */
  toolCluster: Int32Array;
  capabilityCluster: Int32Array;
  spectralK: number;
  spectralKSource: string;
  /** Hypergraph PageRank per tool and capability (share one distribution). */
  hyperTools: Float64Array;
  hyperCapabilities: Float64Array;
  timingsMs: { pagerank: number; louvain: number; spectral: number; hypergraphPagerank: number; total: number };
}

export interface AnalyticsView {
  analytics: Analytics;
  /** False when the graph moved since they were computed (a refresh is under way). */
  fresh: boolean;
  ageMs: number;
}

export function toolCapabilityInput(s: GraphSnapshot): ToolCapabilityInput {
  const memberships = s.capabilities.map((c) =>
    [...new Set(s.capabilityMembers(c).map((t) => s.index.get(t)))].filter((x): x is number => x !== undefined),
  );
  const capabilityDeps = s.capabilities.flatMap((c, from) =>
    c.dependsOn.flatMap((d) => {
      const to = s.capabilityIndex.get(d.to);
      return to === undefined ? [] : [{ from, to, weight: d.weight }];
    }),
  );
  return { nTools: s.n, memberships, capabilityDeps, toolGraph: s.csr };
}

export function analyticsJob(s: GraphSnapshot): AnalyticsJob {
  return { version: s.version, patchCount: s.patchCount, csr: s.csr, input: toolCapabilityInput(s) };
}

export function computeAnalytics(s: GraphSnapshot, now: number, options: AnalyticsOptions = {}): Analytics {
  return computeAnalyticsFrom(analyticsJob(s), now, options);
}

export function computeAnalyticsFrom(job: AnalyticsJob, now: number, options: AnalyticsOptions = {}): Analytics {
  const seed = options.seed ?? ANALYTICS_DEFAULTS.seed;
  const t0 = performance.now();
  const pr = pagerankDetailed(job.csr);
  const t1 = performance.now();
  const lv = louvainDetailed(job.csr, { rng: mulberry32(seed) });
  const t2 = performance.now();
  const input = job.input;
  const toolEdgeFactor = options.toolEdgeFactor ?? ANALYTICS_DEFAULTS.toolEdgeFactor;
  const sp = spectralClustering(input, { rng: mulberry32(seed), toolEdgeFactor });
  const t3 = performance.now();
  const hp = hypergraphPagerank(input, { toolEdgeFactor });
  const t4 = performance.now();
  return {
    version: job.version,
    patchCount: job.patchCount,
    computedAt: now,
    pagerankRaw: pr.scores,
    pagerank: normalizeToUnit(pr.scores),
    community: lv.communities,
    communityCount: lv.count,
    modularity: lv.modularity,
    toolCluster: sp.toolClusters,
    capabilityCluster: sp.capabilityClusters,
    spectralK: sp.k,
    spectralKSource: sp.kSource,
    hyperTools: hp.tools,
    hyperCapabilities: hp.capabilities,
    timingsMs: { pagerank: t1 - t0, louvain: t2 - t1, spectral: t3 - t2, hypergraphPagerank: t4 - t3, total: t4 - t0 },
  };
}

interface Slot {
  snapshot: GraphSnapshot;
  analytics: Analytics;
  refreshing: boolean;
  /** performance.now() when computed (monotonic; drives the debounce). */
  at: number;
  /** The refresh of carried-over analytics (carriedOver), which `fresh` waits for rather than starting another. */
  pending?: Promise<Analytics>;
}

/** Per-engine cache of analytics by project. */
export class AnalyticsCache {
  private readonly slots = new Map<string, Slot>();
  private readonly options: AnalyticsOptions;
  private readonly now: () => number;
  /** Analytics kept for later processes (analytics-store.ts): the first computation of a project reads them. */
  private readonly store: AnalyticsStore | undefined;

  constructor(now: () => number, options: AnalyticsOptions = {}, store?: AnalyticsStore) {
    this.now = now;
    this.options = options;
    this.store = store;
  }

  /**
   * With true (an engine that answers at once: whileEmbedding "lexical"), a project's first read does not compute
   * its analytics on the event loop (seconds at 2,000 tools): it answers with none yet — PageRank 0, community and
   * clusters -1, stale — while the worker computes them (beforeFirst). False: the first read computes them.
   */
  answerBeforeFirst = false;

  /** The first analytics of a snapshot: stored by an earlier process for the same graph, else computed (and stored). */
  private first(s: GraphSnapshot, t: number): Analytics {
    if (!this.store) return computeAnalytics(s, t, this.options);
    const job = analyticsJob(s);
    const key = this.storeKey(job);
    const stored = readAnalytics(this.store, key, job, t);
    if (stored) return stored;
    const analytics = computeAnalyticsFrom(job, t, this.options);
    writeAnalytics(this.store, key, analytics);
    return analytics;
  }

  private storeKey(job: AnalyticsJob): string {
    return analyticsKey(
      job,
      this.options.seed ?? ANALYTICS_DEFAULTS.seed,
      this.options.toolEdgeFactor ?? ANALYTICS_DEFAULTS.toolEdgeFactor,
    );
  }

  /** A first read answered before the first analytics (answerBeforeFirst): stored ones, else none carried over. */
  private beforeFirst(s: GraphSnapshot, t: number): AnalyticsView {
    const job = this.store ? analyticsJob(s) : undefined;
    const stored = job && this.store ? readAnalytics(this.store, this.storeKey(job), job, t) : undefined;
    if (stored) {
      this.slots.set(s.project, { snapshot: s, analytics: stored, refreshing: false, at: performance.now() });
      return { analytics: stored, fresh: true, ageMs: 0 };
    }
    const none: AnalyticsShape = { tools: [], index: new Map(), capabilities: [], capabilityIndex: new Map() };
    const empty: Analytics = {
      version: -1,
      patchCount: 0,
      computedAt: t,
      pagerankRaw: new Float64Array(0),
      pagerank: new Float64Array(0),
      community: new Int32Array(0),
      communityCount: 0,
      modularity: 0,
      toolCluster: new Int32Array(0),
      capabilityCluster: new Int32Array(0),
      spectralK: 0,
      spectralKSource: "not computed yet",
      hyperTools: new Float64Array(0),
      hyperCapabilities: new Float64Array(0),
      timingsMs: { pagerank: 0, louvain: 0, spectral: 0, hypergraphPagerank: 0, total: 0 },
    };
    return this.carriedOver({ snapshot: none, analytics: empty, at: performance.now() }, s, t);
  }

  get(s: GraphSnapshot): AnalyticsView {
    const slot = this.slots.get(s.project);
    const t = this.now();
    // Analytics of another shape (tools or capabilities added) cannot serve this graph even while stale.
    if (
      !slot ||
      slot.analytics.pagerank.length !== s.n ||
      slot.analytics.hyperCapabilities.length !== s.capabilities.length
    ) {
      if (!slot && this.answerBeforeFirst && this.offThread()) return this.beforeFirst(s, t);
      if (slot && this.offThread()) {
        // A snapshot older than the slot's (a view held across a catalog change) reads a carried-over copy and
        // leaves the slot to the newer graph.
        if (slot.snapshot.version > s.version) {
          const analytics = remapAnalytics(slot.analytics, slot.snapshot, s);
          return { analytics, fresh: false, ageMs: t - analytics.computedAt };
        }
        return this.carriedOver(slot, s, t);
      }
      const analytics = this.first(s, t);
      // A snapshot older than the slot's (a view held across a catalog change) does not take the slot back.
      if (!slot || slot.snapshot.version <= s.version)
        this.slots.set(s.project, { snapshot: s, analytics, refreshing: false, at: performance.now() });
      return { analytics, fresh: true, ageMs: 0 };
    }
    const fresh =
      slot.snapshot === s && slot.analytics.version === s.version && slot.analytics.patchCount === s.patchCount;
    const interval = this.options.minRefreshIntervalMs ?? ANALYTICS_DEFAULTS.minRefreshIntervalMs;
    if (!fresh && !slot.refreshing) {
      slot.refreshing = true;
      const wait = Math.max(0, slot.at + interval - performance.now());
      const schedule = wait > 0 ? (fn: () => void) => setTimeout(fn, wait).unref() : setImmediate;
      schedule(() => {
        this.computeInBackground(s).then(
          (analytics) => {
            // Unless the slot was replaced meanwhile (`fresh`: a newer graph's, maybe of another shape).
            if (this.slots.get(s.project) === slot)
              this.slots.set(s.project, { snapshot: s, analytics, refreshing: false, at: performance.now() });
            else slot.refreshing = false;
          },
          () => {
            slot.refreshing = false;
          },
        );
      });
    }
    return { analytics: slot.analytics, fresh, ageMs: t - slot.analytics.computedAt };
  }

  /** The last analytics laid out on a graph of another shape, stale, with their refresh in the worker started. */
  private carriedOver(
    slot: { readonly snapshot: AnalyticsShape; readonly analytics: Analytics; readonly at: number },
    s: GraphSnapshot,
    t: number,
  ): AnalyticsView {
    const analytics = remapAnalytics(slot.analytics, slot.snapshot, s);
    const next: Slot = { snapshot: s, analytics, refreshing: true, at: slot.at };
    next.pending = new Promise<void>((r) => setImmediate(r)).then(() => this.computeInBackground(s));
    next.pending.then(
      (a) => {
        // A newer graph's analytics that took the slot meanwhile stay.
        const current = this.slots.get(s.project);
        if (!current || current.snapshot.version <= s.version)
          this.slots.set(s.project, { snapshot: s, analytics: a, refreshing: false, at: performance.now() });
      },
      () => {
        next.refreshing = false;
        next.pending = undefined;
      },
    );
    this.slots.set(s.project, next);
    return { analytics, fresh: false, ageMs: t - analytics.computedAt };
  }

  /** The cached analytics if they are of this snapshot's shape (fresh or stale), without scheduling a refresh. */
  peek(s: GraphSnapshot): AnalyticsView | undefined {
    const slot = this.slots.get(s.project);
    if (
      !slot ||
      slot.analytics.pagerank.length !== s.n ||
      slot.analytics.hyperCapabilities.length !== s.capabilities.length
    )
      return undefined;
    const a = slot.analytics;
    const fresh = slot.snapshot === s && a.version === s.version && a.patchCount === s.patchCount;
    return { analytics: a, fresh, ageMs: this.now() - a.computedAt };
  }

  /**
   * The analytics of `s` leaving the cache as it is (a snapshot published while the cache readies the next
   * version's: Engine.staged): the cached ones when of its shape, else its first analytics computed now.
   */
  apart(s: GraphSnapshot): AnalyticsView {
    return this.peek(s) ?? { analytics: this.first(s, this.now()), fresh: true, ageMs: 0 };
  }

  /**
   * Analytics of this very snapshot, computed now if the cached ones are of an older graph (off the event loop
   * when the worker runs): what `Toolgraph.settle` waits for. Requests meanwhile keep the stale-while-refresh path.
   */
  async fresh(s: GraphSnapshot): Promise<AnalyticsView> {
    // No analytics of this graph's shape yet: computed in the worker too, not by `get`'s synchronous first
    // computation (seconds at 2,000 tools, on the event loop, right after a first import).
    const slot = this.slots.get(s.project);
    if (slot?.snapshot === s && slot.pending) {
      const analytics = await slot.pending.catch(() => this.computeInBackground(s));
      return { analytics, fresh: true, ageMs: 0 };
    }
    if (
      slot &&
      slot.analytics.pagerank.length === s.n &&
      slot.analytics.hyperCapabilities.length === s.capabilities.length
    ) {
      const view = this.get(s);
      if (view.fresh) return view;
    }
    const analytics = await this.computeInBackground(s);
    const now = this.slots.get(s.project);
    if (!now || now.snapshot.version <= s.version)
      this.slots.set(s.project, { snapshot: s, analytics, refreshing: false, at: performance.now() });
    return { analytics, fresh: true, ageMs: 0 };
  }

  /**
   * The refresh of a stale read: in the worker thread when one runs, else here. A worker that failed (could not
   * load, crashed, exited) is replaced and the refresh tried again in the new one; only after
   * `WORKER_ATTEMPTS` failures in a row do this and later refreshes run here, on the event loop.
   */
  private async computeInBackground(s: GraphSnapshot): Promise<Analytics> {
    // The graph's CSR in steps (tens of ms at 50k edges), then the job's other inputs in a turn of their own.
    await drainInSlices(s.csrSteps());
    await yieldToEventLoop();
    const job = analyticsJob(s);
    for (let worker = this.offThread(); worker; worker = this.offThread()) {
      try {
        const analytics = await worker.compute(job, this.now(), {
          seed: this.options.seed,
          toolEdgeFactor: this.options.toolEdgeFactor,
        });
        this.refreshes.worker++;
        this.workerFailures = 0;
        return analytics;
      } catch {
        worker.stop().catch(() => {});
        if (this.worker === worker) this.worker = ++this.workerFailures >= WORKER_ATTEMPTS ? null : undefined;
      }
    }
    const analytics = computeAnalyticsFrom(job, this.now(), this.options);
    this.refreshes.inThread++;
    return analytics;
  }

  private worker: AnalyticsWorker | null | undefined;
  /** Worker failures in a row (computeInBackground). */
  private workerFailures = 0;

  /** Background refreshes completed in the worker thread and on the event loop. */
  readonly refreshes = { worker: 0, inThread: 0 };

  private offThread(): AnalyticsWorker | null {
    if (this.options.offThread === false) return null;
    if (this.worker === undefined) this.worker = AnalyticsWorker.start();
    return this.worker;
  }

  /** Stops the worker thread (Engine.close). */
  async dispose(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.stop();
  }

  /** Computes synchronously now (CLI one-shots, benches, tests). */
  refresh(s: GraphSnapshot): Analytics {
    const analytics = computeAnalytics(s, this.now(), this.options);
    this.slots.set(s.project, { snapshot: s, analytics, refreshing: false, at: performance.now() });
    return analytics;
  }
}
