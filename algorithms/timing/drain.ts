/**
 * Runs a generator of steps to its result at once: the one-shot form of every `…Steps` generator that pauses
 * between slices of work for a caller on an event loop. Same result, bit for bit, as stepping it with pauses
 * (the generators take no input between steps).
 */
export function drain<R>(steps: Generator<unknown, R, void>): R {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
