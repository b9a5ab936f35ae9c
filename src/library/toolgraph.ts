/**
 * The library API: `openToolgraph(options)` returns a Toolgraph bound to one project (overridable per
 * call). The CLI, the HTTP server and the MCP server all call these same methods: one per operation of the
 * table (contract/operations.ts, run by `run` below) and the library's own, each one line of a method table
 * (writes.ts, recording.ts, learning.ts, status.ts, readiness.ts) bound here to the private engine. The
 * tables and the engine load with the open (runtime.ts), after it has started the embedded database
 * (early-start.ts): importing this module loads no engine, driver or analytics (docs/decisions/everyday-budget.md).
 */
import type { RecommenderApi, Scoped } from "../contract/api.ts";
import { OPERATION_LIST, type Operation, type OperationMethods } from "../contract/operations.ts";
import { parseInput } from "../formats/parse.ts";
import type { JobContext } from "../jobs/job.ts";
import { RecommendationLog, type RecommendationLogOptions, retentionFromEnv } from "../jobs/recommendation-log.ts";
import type { Engine } from "../view/engine.ts";
import { startEarly } from "./early-start.ts";
import type { Bound, Facade, ToolgraphOptions } from "./facade.ts";
import { LIBRARY_METHOD_NAMES } from "./method-names.ts";
import { ResultCache } from "./result-cache.ts";

export type {
  AnalyticsStatus,
  CacheStats,
  DatabaseInfo,
  EmbeddingInfo,
  ProjectScoped,
  StatsResult,
  ToolgraphOptions,
} from "./facade.ts";

/**
 * Validates a request with its schema, once: the public methods below call it and the doors (CLI, HTTP,
 * MCP, gateway) do not validate again, so a bad field reads the same (`steps[0].tool: …`) on every door.
 */
export const parseRequest = parseInput;

let runtime: typeof import("./runtime.ts") | undefined; // the engine and the method tables, loaded by an open
type LibraryMethods = typeof import("./runtime.ts").LIBRARY_METHODS;

/**
 * One method per operation of the table (contract/operations.ts): `tg.search(req)`, `tg.plan(req)`, …; and the
 * library's own: imports and recording, fits, stats and status, readiness (see the method tables above).
 */
export interface Toolgraph extends OperationMethods, Bound<LibraryMethods> {}

let facadeOf: (tg: Toolgraph) => Facade;

/**
 * The engine behind a Toolgraph, for this package's tests and benches only: it is not exported by the package
 * (src/index.ts), and `engine` is not a property of the public object.
 */
export function engineOf(tg: Toolgraph): Engine {
  return facadeOf(tg).engine;
}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above.
export class Toolgraph implements RecommenderApi {
  /** Private: a door asks the methods (database, cacheStats, graph, prepareSearch, …), never the engine. */
  readonly #facade: Facade;
  static {
    facadeOf = (tg) => tg.#facade;
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
    this.project = project;
    this.results = new ResultCache(resultCacheSize);
    this.recommendations = new RecommendationLog(engine.db, recommendationLog);
    this.#facade = { engine, project, results: this.results, recommendations: this.recommendations };
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
    const engine = this.#facade.engine;
    const view = engine.viewNow(p) ?? (await engine.view(p));
    const ctx: JobContext = { view, project: p, log: this.recommendations };
    const answerKey = job.answerKey;
    return answerKey === undefined
      ? (job.run(ctx, r) as Promise<object>)
      : runtime!.cachedAnswer(this.#facade, answerKey, view, r, () => job.run(ctx, r) as Promise<object>);
  }

  async close(): Promise<void> {
    await this.recommendations.close();
    await this.#facade.engine.close();
  }
}

const define = (name: string, value: (this: Toolgraph, ...args: never[]) => unknown) =>
  Object.defineProperty(Toolgraph.prototype, name, { value, writable: true, configurable: true });
for (const operation of OPERATION_LIST)
  define(operation.name, function (this: Toolgraph, req: object & Scoped) {
    return this.run(operation, req);
  });
for (const name of LIBRARY_METHOD_NAMES)
  define(name, function (this: Toolgraph, ...args: unknown[]) {
    return (runtime!.LIBRARY_METHODS[name] as (f: Facade, ...a: unknown[]) => unknown)(facadeOf(this), ...args);
  });

export async function openToolgraph(options: ToolgraphOptions = {}): Promise<Toolgraph> {
  retentionFromEnv(); // a bad bound in the environment is refused before the database is opened
  // The embedded database starts on its thread while the engine's modules load (undefined: the open starts it).
  const started = options.started ?? startEarly(options);
  let engine: Engine;
  try {
    runtime ??= await import("./runtime.ts");
    engine = await runtime.Engine.open({ ...options, started });
  } catch (err) {
    if (started !== options.started)
      await started?.then(
        (s) => s.close(),
        () => {},
      );
    throw err;
  }
  const { project = "default", resultCacheSize = 1000, recommendationLog } = options;
  return new Toolgraph(engine, project, resultCacheSize, recommendationLog);
}
