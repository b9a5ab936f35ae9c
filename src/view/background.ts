/**
 * One-off background jobs per engine: `startOnce(engine, "fit-search-weights", project, job)` runs `job` on
 * the next turn of the event loop, at most once per (engine, name, project) — a failed job may run again on
 * the next call. Requests that need its result answer with defaults meanwhile; the job stores what it found.
 * An engine opened with `backgroundFits: false` (a one-shot CLI call) starts none.
 */
import type { Engine } from "./engine.ts";

export function startOnce(engine: Engine, name: string, project: string, job: () => Promise<unknown>): void {
  if (engine.backgroundFits === false) return;
  const set = engine.startedJobs;
  const key = `${name}\u0000${project}`;
  if (set.has(key)) return;
  set.add(key);
  setImmediate(() => {
    job().catch(() => set.delete(key));
  });
}

/** Resolves on the next turn of the event loop (long background loops call it to let requests in). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Work between two yields of a long loop on the event loop (ARCHITECTURE: no block over 50 ms). */
export const SLICE_MS = 8;

/**
 * A clock for long loops: `await slice()` inside the loop yields to the event loop once SLICE_MS of work has
 * run since the last yield, and is a no-op otherwise (the loop's result does not depend on where it yields).
 */
export function slicer(): () => Promise<void> {
  let t = performance.now();
  return async () => {
    if (performance.now() - t < SLICE_MS) return;
    await yieldToEventLoop();
    t = performance.now();
  };
}

/** Runs a generator of steps to its result, yielding to the event loop every SLICE_MS between steps. */
export async function drainInSlices<R>(steps: Generator<unknown, R, void>): Promise<R> {
  const slice = slicer();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await slice();
  }
}

/**
 * Runs jobs (generators of steps) one after another, in the order pushed: a job pushed while the queue is idle
 * starts on the caller's turn, and whatever does not fit in SLICE_MS of it — the rest of a long job, the jobs
 * pushed meanwhile — continues in later turns of the event loop, SLICE_MS at a time. A job that throws ends
 * there (its error goes to `onError`) and the next one runs. What a job computes does not depend on where it
 * pauses; only when it finishes does.
 */
export class SliceQueue {
  private readonly jobs: (Generator<unknown, void, void> | (() => void))[] = [];
  private running = false;

  constructor(private readonly onError: (err: unknown) => void = () => {}) {}

  /** Queues a job: a generator of steps, or a function run in one piece once the jobs before it are done. */
  push(job: Generator<unknown, void, void> | (() => void)): void {
    this.jobs.push(job);
    if (!this.running) this.run();
  }

  /**
   * Runs every queued job to its end now, on this turn (a session that ends must not leave a write for later).
   * The turn a slice already scheduled then finds nothing to do.
   */
  flush(): void {
    while (this.jobs.length > 0) {
      try {
        if (step(this.jobs[0]!)) this.jobs.shift();
      } catch (err) {
        this.jobs.shift();
        this.onError(err);
      }
    }
  }

  /** True when no job is queued or under way. */
  get idle(): boolean {
    return !this.running && this.jobs.length === 0;
  }

  private run(): void {
    this.running = true;
    const t = performance.now();
    while (this.jobs.length > 0) {
      let done: boolean;
      try {
        done = step(this.jobs[0]!);
      } catch (err) {
        done = true;
        this.onError(err);
      }
      if (done) this.jobs.shift();
      if (this.jobs.length > 0 && performance.now() - t >= SLICE_MS) {
        setImmediate(() => this.run());
        return;
      }
    }
    this.running = false;
  }
}

/** Runs one step of a job; true when the job is done. */
function step(job: Generator<unknown, void, void> | (() => void)): boolean {
  if (typeof job !== "function") return job.next().done === true;
  job();
  return true;
}
