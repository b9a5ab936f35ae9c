/**
 * The PostgreSQL pool that survives the server: a lost or refused connection becomes `database-unreachable`, a
 * connect that hangs is cut after a backstop, and a statement is watched (statement-watch.ts).
 */
import type pg from "pg";
import { isConnectionError } from "../contract/database-errors.ts";
import { ToolgraphError } from "../contract/errors.ts";
import { type StatementWatch, watchTimer } from "./statement-watch.ts";

/** Defaults and why: docs/decisions/database-timeouts.md. */
export const CONNECTION_DEFAULTS = {
  poolSize: 10,
  connectTimeoutMs: 2000,
  embeddedConnectTimeoutMs: 10_000,
  statementTimeoutMs: 30_000,
  statementGraceMs: 2000,
  idleInTransactionTimeoutMs: 60_000,
  livenessCheckAfterMs: 1000,
  errorLogIntervalMs: 10_000,
} as const;

/** The one error every door sees for a lost or refused database connection. */
export function unreachable(err: unknown): ToolgraphError {
  if (err instanceof ToolgraphError) return err;
  const why = (err as Error)?.message || String((err as { code?: unknown })?.code ?? err);
  const e = new ToolgraphError(
    "database-unreachable",
    `the database is unreachable (${why}); nothing of this request was written unless the connection was lost while committing — writes are idempotent by id, retry later`,
  );
  e.cause = err;
  return e;
}

export function translate(err: unknown): unknown {
  return isConnectionError(err) ? unreachable(err) : err;
}

export function defaultErrorLog(): (err: Error) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err) => {
    const t = Date.now();
    if (t - last < CONNECTION_DEFAULTS.errorLogIntervalMs) {
      suppressed++;
      return;
    }
    last = t;
    process.stderr.write(
      `toolgraph: database connection lost (${err.message})${suppressed > 0 ? ` (+${suppressed} more)` : ""}; new connections are opened on demand\n`,
    );
    suppressed = 0;
  };
}

export interface ResilientPoolOptions {
  /** Bounds every statement's wait for an unresponsive server (PostgreSQL). Default: none (the embedded database). */
  watch?: StatementWatch | undefined;
  /**
   * How long `connect` waits for a connection (ms), judged by watchTimer, so a stalled event loop does not
   * fail a connection the server answered meanwhile. Default: no bound of its own.
   */
  connectTimeoutMs?: number | undefined;
  /** The pool is the embedded database's (the message of a connect that timed out says it was busy). Default false. */
  embedded?: boolean | undefined;
}

/** The pool's and each new client's own connect timeouts: a backstop, this many times the request's bound. */
export const CONNECT_BACKSTOP_FACTOR = 5;

/** Closes a client's socket without waiting for the server (pg.Client; PGlite's adapter has no socket to close). */
export function destroySocket(client: object): void {
  (client as { connection?: { stream?: { destroy?: () => void } } }).connection?.stream?.destroy?.();
}

/**
 * The pool as kysely sees it: `error` events of the pool and of checked-out clients are handled, and
 * connection failures (connect, query, BEGIN/COMMIT/ROLLBACK) reject with ToolgraphError("database-unreachable").
 * With a `watch`, a statement the server stops answering is abandoned: its connection is closed (the server
 * rolls back what it had not committed when it reads the end of the stream) and dropped from the pool; while
 * the server is taken as unresponsive, idle connections opened before are dropped instead of handed out, so a
 * request opens a new one and waits at most the connect timeout.
 */
export function resilientPool(
  pool: pg.Pool,
  onError: (err: Error) => void,
  options: ResilientPoolOptions = {},
): pg.Pool {
  const watch = options.watch;
  pool.on("error", (err) => onError(err));
  const guarded = new WeakSet<object>();
  const wrapped = new WeakMap<object, pg.PoolClient>();
  /** When this process first got each client from the pool: its connection was opened then. */
  const openedAt = new WeakMap<object, number>();
  const abandoned = new WeakSet<object>();
  const abandon = (client: pg.PoolClient) => {
    if (abandoned.has(client)) return;
    abandoned.add(client);
    destroySocket(client);
  };
  const wrap = (client: pg.PoolClient): pg.PoolClient => {
    // pg-pool listens for errors only while a client is idle; one of a checked-out client would be thrown.
    if (!guarded.has(client)) {
      guarded.add(client);
      client.on("error", (err) => onError(err));
    }
    let w = wrapped.get(client);
    if (!w) {
      const query = (...args: unknown[]) => {
        const r = (client.query as (...a: unknown[]) => unknown)(...args);
        if (!(r instanceof Promise)) return r;
        const watched = watch ? watch.track(r, () => abandon(client)) : r;
        return watched.catch((err: unknown) => Promise.reject(translate(err)));
      };
      // An abandoned client goes back with an error, so the pool closes it instead of keeping it idle.
      const release = (err?: Error | boolean) =>
        client.release(abandoned.has(client) ? (err ?? new Error("abandoned: the server stopped answering")) : err);
      w = new Proxy(client, {
        get(target, prop) {
          if (prop === "query") return query;
          if (prop === "release") return release;
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
      wrapped.set(client, w);
    }
    return w;
  };
  const timedOut = (ms: number): ToolgraphError =>
    options.embedded
      ? new ToolgraphError(
          "database-unreachable",
          `the embedded database stayed busy for ${ms} ms (its one connection was held by other work); nothing of this request was written, retry later`,
        )
      : unreachable(new Error(`timeout exceeded when trying to connect (${ms} ms)`));
  const connectOnce = (): Promise<pg.PoolClient> => {
    const pending = pool.connect();
    const ms = options.connectTimeoutMs;
    if (ms === undefined) return pending.catch((err: unknown) => Promise.reject(translate(err)));
    return new Promise<pg.PoolClient>((resolve, reject) => {
      let settled = false;
      const timer = watchTimer(ms, () => {
        if (settled) return;
        settled = true;
        // The pool still hands a client to this request later (or fails it at its backstop): give it back.
        pending.then(
          (c) => c.release(),
          () => {},
        );
        reject(timedOut(ms));
      });
      pending.then(
        (c) => {
          if (settled) return;
          settled = true;
          timer.clear();
          resolve(c);
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          timer.clear();
          reject(
            options.embedded && /^timeout exceeded/.test((err as Error)?.message ?? "") ? timedOut(ms) : translate(err),
          );
        },
      );
    });
  };
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "connect") {
        return async () => {
          // Bounded by the pool's size: each turn drops one idle connection opened before the server stopped answering.
          for (let turn = 0; ; turn++) {
            const client = await connectOnce();
            const fresh = !openedAt.has(client);
            if (fresh) openedAt.set(client, performance.now());
            const since = watch?.unresponsiveSince;
            if (since !== undefined) {
              // A connection opened now got the server's answer to its startup: the server answers again.
              if (fresh) watch!.markAlive();
              else if (openedAt.get(client)! <= since && turn < 1000) {
                abandon(client);
                client.release(new Error("dropped: opened before the server stopped answering"));
                continue;
              }
            }
            return wrap(client);
          }
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
