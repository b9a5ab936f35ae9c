/**
 * One answer of an operation through the result cache and the recommendation log (toolgraph.ts's `run`):
 * answered from the cache when the same request was answered at the same graph state, and logged (its
 * `recommendationId` is added to the returned copy; the session is not part of the key).
 */
import { ensureCalibrationLoaded } from "../jobs/fit-calibration.ts";
import type { ProjectView } from "../view/project-view.ts";
import type { Facade } from "./facade.ts";

export async function cachedAnswer<T>(
  f: Facade,
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
  const fresh = f.results.capacity === 0 || (req as { workflow?: { id?: string } }).workflow?.id !== undefined;
  let result: T;
  if (fresh) result = await compute();
  else {
    const a = view.analytics();
    const { session: _session, ...keyed } = (req ?? {}) as { session?: unknown };
    const key = `${op}\u0000${project}\u0000${s.version}.${s.patchCount}\u0000${a.analytics.computedAt}.${a.analytics.version}.${a.analytics.patchCount}\u0000${JSON.stringify(keyed)}`;
    result = await f.results.get(key, compute);
  }
  // The answer object is this call's own (the result cache keeps a serialized copy and answers a hit with a
  // new object), so the id is added in place.
  return f.recommendations.answer(op, project, req, s.version, result, performance.now() - started, true);
}
