/**
 * Liveness and readiness, kept apart from the HTTP server so other doors (the gateway, a warm-up at
 * start) can call and extend them.
 *
 * - Liveness (`/health`): the process answers; no database, no model — cheap enough for a tight probe.
 * - Readiness (`/ready`): the database answers AND the warm-up finished: the embedding model is loaded
 *   and the project's search index (tool embeddings) and analytics are built, so the first real request
 *   does not pay for them. `start()` begins the warm-up in the background; `addCheck` adds a named check
 *   (e.g. upstream servers of the gateway). A warm-up step that failed because the database was
 *   unreachable (503: down at start, or lost meanwhile) runs again once the database answers a report, so
 *   a server started without its database becomes ready by itself.
 */
import type { RecommenderApi } from "../contract/api.ts";
import { errorOutcome } from "../contract/error-mapping.ts";
import { Toolgraph } from "../library/toolgraph.ts";

export interface CheckResult {
  name: string;
  ok: boolean;
  /** pending while the warm-up runs. */
  state: "ok" | "pending" | "failed";
  ms?: number | undefined;
  error?: string | undefined;
}

export interface ReadinessReport {
  ready: boolean;
  checks: CheckResult[];
}

export type Check = () => Promise<Omit<CheckResult, "name">>;

export interface Readiness {
  /** Starts the warm-up (idempotent); resolves when it is done (never rejects). */
  start(): Promise<void>;
  /** Runs every check now. */
  report(): Promise<ReadinessReport>;
  /** Adds a named check to the report. */
  addCheck(name: string, check: Check): void;
}

export function liveness(startedAt: number, now: number): { ok: true; uptimeS: number } {
  return { ok: true, uptimeS: Math.round((now - startedAt) / 1000) };
}

export function createReadiness(api: RecommenderApi, opts: { project?: string | undefined } = {}): Readiness {
  const checks: [string, Check][] = [];
  const warm = new Map<string, CheckResult>();
  /** Warm-up steps that failed on an unavailable database (worth running again once it answers). */
  const retryable = new Set<string>();
  let started = false;
  let warming: Promise<void> | undefined;

  const step = async (name: string, run: () => Promise<unknown>) => {
    warm.set(name, { name, ok: false, state: "pending" });
    retryable.delete(name);
    const t0 = performance.now();
    try {
      await run();
      warm.set(name, { name, ok: true, state: "ok", ms: Math.round(performance.now() - t0) });
    } catch (err) {
      if (errorOutcome(err).status === 503) retryable.add(name);
      warm.set(name, {
        name,
        ok: false,
        state: "failed",
        ms: Math.round(performance.now() - t0),
        error: (err as Error)?.message ?? String(err),
      });
    }
  };

  /** Runs the warm-up steps not yet done, one run at a time; resolves when it ends. */
  const warmUp = (): Promise<void> => {
    warming ??= (async () => {
      if (!(api instanceof Toolgraph)) return;
      const project = opts.project ?? api.project;
      // The model loads on the first embedding; the index embeds the tool texts; analytics run Louvain, PageRank ….
      const steps: [string, () => Promise<unknown>][] = [
        ["model", () => api.warmUp("model")],
        ["index", () => api.warmUp("index", { project })],
        ["analytics", () => api.warmUp("analytics", { project })],
      ];
      for (const [name, run] of steps) if (warm.get(name)?.state !== "ok") await step(name, run);
    })().finally(() => {
      warming = undefined;
    });
    return warming;
  };

  checks.push([
    "database",
    async () => {
      const t0 = performance.now();
      try {
        await api.stats(opts.project === undefined ? {} : { project: opts.project });
        return { ok: true, state: "ok", ms: Math.round(performance.now() - t0) };
      } catch (err) {
        return { ok: false, state: "failed", error: (err as Error)?.message ?? String(err) };
      }
    },
  ]);

  return {
    start() {
      started = true;
      return warmUp();
    },
    async report() {
      const out: CheckResult[] = [];
      for (const [name, check] of checks) out.push({ name, ...(await check()) });
      // The database answers again: the steps it failed run again (in the background; pending meanwhile).
      if (started && !warming && retryable.size > 0 && out.find((c) => c.name === "database")?.ok) void warmUp();
      if (api instanceof Toolgraph) {
        for (const name of ["model", "index", "analytics"])
          out.push(warm.get(name) ?? { name, ok: false, state: "pending" });
      }
      return { ready: out.every((c) => c.ok), checks: out };
    },
    addCheck(name, check) {
      checks.push([name, check]);
    },
  };
}
