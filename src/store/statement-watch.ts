/**
 * Bounding the wait for a PostgreSQL server that stops answering without closing its connections (frozen by
 * SIGSTOP, a hung VM or storage, a network path that drops packets): nothing errors, every statement just
 * waits. Two bounds, both client-side (docs/decisions/database-timeouts.md):
 *
 * - Liveness check: once a statement has run `checkAfterMs`, the server is asked, on a fresh connection,
 *   to answer `SELECT 1` within `probeTimeoutMs` (`probe`). An answer (any answer, an error reply too) means
 *   the server is alive and the statement is merely slow: it goes on, bounded by the server's own
 *   statement_timeout. No answer means the server is unresponsive: every statement that was already
 *   running when the check began is abandoned (`abandon` closes its connection, so the server rolls its
 *   transaction back when it wakes) and rejects. Checks repeat every `checkAfterMs` while statements
 *   run longer than that. A frozen server is thus reported within about checkAfterMs + probeTimeoutMs,
 *   however long a legitimate statement may take on a live one.
 * - Deadline: a statement still unanswered `deadlineMs` after it was sent is abandoned (the backstop for
 *   one dead connection to a live server, where even the server's cancel cannot come back).
 *
 * A timer fires before the I/O that became ready in the same turn of the event loop, and after a stall of
 * the event loop the answer may not even have been read: each verdict is taken by `watchTimer`, so a busy
 * process does not turn a late answer into a false timeout.
 */

export interface StatementWatchOptions {
  /** Resolves true when the server answered within its own bound, false when it did not (never rejects). */
  probe: () => Promise<boolean>;
  /** Age of a running statement that starts a liveness check (ms); 0 = no checks. */
  checkAfterMs: number;
  /** A statement unanswered this long is abandoned (ms); 0 = no deadline. */
  deadlineMs: number;
}

export interface StatementWatch {
  /**
   * Settles as `statement` does, unless the server is found unresponsive or the deadline passes first:
   * then `abandon` is called once and the result rejects with an Error saying why.
   */
  track<T>(statement: Promise<T>, abandon: () => void): Promise<T>;
  /** When the last liveness check found the server unresponsive, and no answer came since; else undefined. */
  readonly unresponsiveSince: number | undefined;
  /** Something answered on a connection opened after the server was found unresponsive. */
  markAlive(): void;
}

import { UnansweredStatement } from "../contract/database-errors.ts";

export { UnansweredStatement };

export interface WatchTimer {
  clear(): void;
}

/**
 * Runs `fn` once `ms` of watching have passed. The verdict is taken in a setImmediate after the timer, once the
 * I/O ready by then has been handled; and when the timer itself fired late by more than half of `ms` (the
 * event loop was stalled by synchronous work, or the process starved of CPU, so the answer may not even have
 * been read), the wait gets `ms` more, once: a stall of this process is not blamed on the database.
 */
export function watchTimer(ms: number, fn: () => void): WatchTimer {
  let cleared = false;
  let handle: NodeJS.Timeout | undefined;
  const arm = (wait: number, extended: boolean) => {
    const due = performance.now() + wait;
    handle = setTimeout(() => {
      if (cleared) return;
      if (!extended && performance.now() - due > ms / 2) return arm(ms, true);
      setImmediate(() => {
        if (!cleared) fn();
      });
    }, wait);
    handle.unref();
  };
  arm(ms, false);
  return {
    clear() {
      cleared = true;
      if (handle) clearTimeout(handle);
    },
  };
}

interface Running {
  startedAt: number;
  fail: (why: Error) => void;
}

export function createStatementWatch(o: StatementWatchOptions): StatementWatch {
  const running = new Set<Running>();
  let checking = false;
  let checkTimer: WatchTimer | undefined;
  let unresponsiveSince: number | undefined;

  const oldest = (): number | undefined => {
    let t: number | undefined;
    for (const r of running) if (t === undefined || r.startedAt < t) t = r.startedAt;
    return t;
  };

  const schedule = () => {
    if (o.checkAfterMs <= 0 || checking || checkTimer) return;
    const t = oldest();
    if (t === undefined) return;
    checkTimer = watchTimer(Math.max(0, t + o.checkAfterMs - performance.now()), () => {
      checkTimer = undefined;
      void check();
    });
  };

  const check = async () => {
    const t = oldest();
    if (t === undefined || checking) return;
    if (performance.now() - t < o.checkAfterMs) return schedule();
    checking = true;
    const startedAt = performance.now();
    const alive = await o.probe().catch(() => false);
    checking = false;
    if (alive) {
      unresponsiveSince = undefined;
      // The next check of the statements still running comes checkAfterMs after this one.
      if (running.size > 0) {
        checkTimer = watchTimer(o.checkAfterMs, () => {
          checkTimer = undefined;
          void check();
        });
      }
      return;
    }
    unresponsiveSince ??= startedAt;
    const waited = Math.round(performance.now() - startedAt);
    for (const r of [...running]) {
      if (r.startedAt <= startedAt) {
        r.fail(
          new UnansweredStatement(
            `the server stopped answering: it ran this statement for ${Math.round(startedAt - r.startedAt)} ms, then a check on a new connection got no answer in ${waited} ms`,
          ),
        );
      }
    }
    schedule();
  };

  return {
    get unresponsiveSince() {
      return unresponsiveSince;
    },
    markAlive() {
      unresponsiveSince = undefined;
    },
    track<T>(statement: Promise<T>, abandon: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let settled = false;
        let deadline: WatchTimer | undefined;
        const entry: Running = {
          startedAt: performance.now(),
          fail: (why) => {
            if (settled) return;
            settled = true;
            running.delete(entry);
            deadline?.clear();
            abandon();
            reject(why);
          },
        };
        const done = () => {
          settled = true;
          running.delete(entry);
          deadline?.clear();
        };
        if (o.deadlineMs > 0)
          deadline = watchTimer(o.deadlineMs, () =>
            entry.fail(new UnansweredStatement(`no answer to this statement within ${o.deadlineMs} ms`)),
          );
        running.add(entry);
        schedule();
        statement.then(
          (v) => {
            if (settled) return;
            done();
            resolve(v);
          },
          (err: unknown) => {
            if (settled) return;
            done();
            reject(err);
          },
        );
      });
    },
  };
}
