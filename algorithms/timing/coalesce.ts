/**
 * Coalescing of change notifications: when the run that answers a burst of them may start.
 *
 * Formula: delay = max(debounceMs, lastStartMs + minIntervalMs − nowMs): the first notification of a burst waits
 * `debounceMs` (the later ones of the burst join the same run), and two runs start at least `minIntervalMs`
 * apart however fast the notifications come.
 * Source: debounce with a rate limit (the gateway's re-list after tools/list_changed:
 * docs/decisions/gateway-churn.md).
 * Invariants: pure (the clock is given); the delay is never below debounceMs; with no earlier run
 * (lastStartMs = −∞) it is exactly debounceMs.
 */
export function coalescedDelay(nowMs: number, lastStartMs: number, debounceMs: number, minIntervalMs: number): number {
  return Math.max(debounceMs, lastStartMs + minIntervalMs - nowMs);
}
