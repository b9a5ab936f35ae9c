/**
 * Exponential backoff for reconnects and retries.
 *
 * Formula: the delay before attempt n+1 after n consecutive failures (n ≥ 1) is
 * min(maxMs, minMs · 2^min(20, n − 1)); stepwise, the next delay after `d` is min(maxMs, 2·d).
 * Source: the usual capped binary exponential backoff; the gateway's defaults and why:
 * docs/decisions/gateway-churn.md, docs/decisions/gateway-durable-recording.md.
 * Invariants: pure; non-decreasing in n; never above maxMs; the exponent is capped so the product stays finite.
 */

/** The delay after `failures` consecutive failures (the first failure waits `minMs`). */
export function backoffDelay(failures: number, minMs: number, maxMs: number): number {
  return Math.min(maxMs, minMs * 2 ** Math.min(20, failures - 1));
}

/** The delay after one more failure, given the last one. */
export function nextBackoff(delayMs: number, maxMs: number): number {
  return Math.min(maxMs, delayMs * 2);
}
