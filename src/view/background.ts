/**
 * One-off background jobs per engine: `startOnce(engine, "fit-search-weights", project, job)` runs `job` on
 * the next turn of the event loop, at most once per (engine, name, project) — a failed job may run again on
 * the next call. Requests that need its result answer with defaults meanwhile; the job stores what it found.
 */
import type { Engine } from "./engine.ts";

export function startOnce(engine: Engine, name: string, project: string, job: () => Promise<unknown>): void {
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
