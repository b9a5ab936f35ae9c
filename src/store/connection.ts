/**
 * Opening the database: one kysely dialect (PostgresDialect) for both backends.
 * - A PostgreSQL server through `pg` when a URL is given (`--database` or DATABASE_URL).
 * - Otherwise the embedded PGlite through `@electric-sql/pglite/node-postgres`, data directory
 *   `.toolgraph/` under the working directory, or TOOLGRAPH_HOME. `memory://` keeps it in memory.
 *
 * A lost connection never kills the process (README "Reliability"): the pool's and every checked-out
 * client's `error` events are handled (an unhandled `error` event on an EventEmitter is thrown), a client
 * whose connection died is dropped by the pool on release (pg-pool drops clients that are not queryable),
 * and every error that means "the server is not there" (refused, reset, terminated by the administrator,
 * shutting down / starting up, SQLSTATE class 08, pool connect timeout) is rethrown as
 * ToolgraphError("database-unreachable") at this one place, which every door maps (HTTP 503 + Retry-After,
 * CLI exit 4, MCP isError). A transaction cut mid-way is rolled back by PostgreSQL (the backend died before
 * COMMIT) and reported with that code; only a lost COMMIT acknowledgement leaves the outcome unknown, which
 * the message says (writes are idempotent by id, so retrying is safe). New clients are created on demand,
 * so the process recovers by itself once the server answers again.
 */
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { ToolgraphError } from "../contract/errors.ts";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { resolveDatabaseUrl, resolveHome } from "./locations.ts";
import { migrateToLatest } from "./migrate.ts";
import { openPGlite } from "./pglite-template.ts";
import { preparingPool } from "./prepared.ts";
import type { Database } from "./schema.ts";

export { isConnectionError } from "../contract/database-errors.ts";

import { isConnectionError } from "../contract/database-errors.ts";
import { createStatementWatch, type StatementWatch, type WatchTimer, watchTimer } from "./statement-watch.ts";

export { resolveDatabaseUrl, resolveHome };

export interface ConnectionOptions {
  /** PostgreSQL URL. Default: process.env.DATABASE_URL; when neither is set, the embedded database. */
  database?: string | undefined;
  /** Embedded data directory. Default: TOOLGRAPH_HOME, else `.toolgraph` under the working directory. Use `memory://` for an in-memory database. */
  home?: string | undefined;
  /** Run migrations on open. Default: true. */
  migrate?: boolean | undefined;
  /** Pool size for a PostgreSQL server. Default: 10. */
  poolSize?: number | undefined;
  /**
   * How long a request waits for a connection before it fails as unreachable (ms): a new server connection
   * (TCP, startup, authentication) or a free one of the pool; for the embedded database, its one
   * connection, busy with other requests' work. Also the bound of a liveness check. Default
   * TOOLGRAPH_DB_CONNECT_TIMEOUT_MS, else 2000 (PostgreSQL) or 10 000 (embedded).
   */
  connectTimeoutMs?: number | undefined;
  /**
   * PostgreSQL's `statement_timeout` on every pooled connection (ms; 0 = none); the client abandons a
   * statement still unanswered `statementGraceMs` later. Not applied to the embedded database, whose
   * statements run on this process's thread. Default TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS, else 30 000.
   */
  statementTimeoutMs?: number | undefined;
  /** PostgreSQL's `idle_in_transaction_session_timeout` on every pooled connection (ms; 0 = none). Default 60 000. */
  idleInTransactionTimeoutMs?: number | undefined;
  /**
   * A statement running this long makes the client check, on a new connection, that the server still
   * answers within connectTimeoutMs; when it does not, the running statements fail as unreachable
   * (src/store/statement-watch.ts). 0 = no checks. PostgreSQL only. Default 1000.
   */
  livenessCheckAfterMs?: number | undefined;
  /**
   * Open even when the PostgreSQL server cannot be reached: the migrations then run on the first statement
   * that reaches it, and until then every statement fails as unreachable (`serve` and `mcp` start and
   * report not ready). Default false: the open fails with database-unreachable.
   */
  openWhenUnreachable?: boolean | undefined;
  /** Where a connection lost outside any request is reported. Default: one stderr line per 10 s at most. */
  onConnectionError?: ((err: Error) => void) | undefined;
}

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

/** Environment variables that set a timeout when the option is not given. */
const TIMEOUT_ENV = {
  connectTimeoutMs: "TOOLGRAPH_DB_CONNECT_TIMEOUT_MS",
  statementTimeoutMs: "TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS",
} as const;

export interface ResolvedTimeouts {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
  livenessCheckAfterMs: number;
}

/**
 * The timeouts in force for a backend: each option, else its environment variable, else the backend's default;
 * a bad value names its source.
 */
export function resolveTimeouts(
  options: ConnectionOptions = {},
  env: NodeJS.ProcessEnv = process.env,
  backend: "postgres" | "pglite" = "postgres",
): ResolvedTimeouts {
  const pick = (field: keyof ResolvedTimeouts, min: number): number => {
    const given = options[field];
    const name = field in TIMEOUT_ENV ? TIMEOUT_ENV[field as keyof typeof TIMEOUT_ENV] : undefined;
    const raw = given ?? (name && env[name] !== undefined && env[name] !== "" ? env[name] : undefined);
    if (raw === undefined)
      return field === "connectTimeoutMs" && backend === "pglite"
        ? CONNECTION_DEFAULTS.embeddedConnectTimeoutMs
        : CONNECTION_DEFAULTS[field];
    const v = typeof raw === "number" ? raw : /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
    if (!Number.isSafeInteger(v) || v < min) {
      const source = given !== undefined ? field : name!;
      throw new ToolgraphError(
        "invalid-input",
        `${source} must be an integer number of milliseconds ≥ ${min}${min === 0 ? " (0 = none)" : ""}, got ${JSON.stringify(raw)}`,
        { field: source },
      );
    }
    return v;
  };
  return {
    connectTimeoutMs: pick("connectTimeoutMs", 1),
    statementTimeoutMs: pick("statementTimeoutMs", 0),
    idleInTransactionTimeoutMs: pick("idleInTransactionTimeoutMs", 0),
    livenessCheckAfterMs: pick("livenessCheckAfterMs", 0),
  };
}

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

function translate(err: unknown): unknown {
  return isConnectionError(err) ? unreachable(err) : err;
}

function defaultErrorLog(): (err: Error) => void {
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
function destroySocket(client: object): void {
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

/**
 * One liveness check of a PostgreSQL server: a new connection and `SELECT 1`, within `timeoutMs`. True when
 * the server answered, an error reply included (too many connections, starting up: it is there).
 */
export async function probeServer(url: string, timeoutMs: number): Promise<boolean> {
  // No connect timeout of the client's own: its plain timer would fire before the answer after a stall.
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  let timer: WatchTimer | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = watchTimer(timeoutMs, () => resolve("late"));
  });
  const work = (async () => {
    await client.connect();
    await client.query("SELECT 1");
    return "answered" as const;
  })().catch((err: unknown) => {
    const code = (err as { code?: unknown })?.code;
    return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^08/.test(code)
      ? ("answered" as const)
      : ("silent" as const);
  });
  const verdict = await Promise.race([work, late]);
  timer?.clear();
  if (verdict === "answered") void client.end().catch(() => {});
  else destroySocket(client);
  return verdict === "answered";
}

export interface Connection {
  readonly db: Kysely<Database>;
  readonly backend: "postgres" | "pglite";
  /** Where the data lives: the server URL without password, or the data directory. */
  readonly location: string;
  /** Set when the server could not be reached at open (openWhenUnreachable): what failed. */
  readonly unreachableAtOpen?: Error | undefined;
  close(): Promise<void>;
}

// bigint (int8) comes back as a string from both backends; counts are parsed at the store edge.

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** Refuses a database URL that is not postgres:// or postgresql:// (pg would try it and fail obscurely). */
export function checkDatabaseUrl(url: string): void {
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol.replace(/:$/, "");
  } catch {
    scheme = undefined;
  }
  if (scheme === "postgres" || scheme === "postgresql") return;
  throw new ToolgraphError(
    "invalid-input",
    `database URL ${JSON.stringify(redact(url))} is not a PostgreSQL URL${scheme ? ` (scheme "${scheme}")` : ""}: toolgraph stores its data in PostgreSQL, give postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or leave --database and DATABASE_URL empty for the embedded database`,
    { field: "database", scheme },
  );
}

/** A migration that failed because the server went away is the unreachable error, not a bad migration. */
function migrationError(err: unknown): unknown {
  if (err instanceof ToolgraphError && err.code === "migration-failed" && isConnectionError(err.cause))
    return unreachable(err.cause);
  return translate(err);
}

/** Migrations that wait for the server (openWhenUnreachable): run once, by the first statement that reaches it. */
function migrationGate(run: () => Promise<unknown>) {
  let armed = false;
  let running: Promise<void> | undefined;
  return {
    arm() {
      armed = true;
    },
    async pass(): Promise<void> {
      if (!armed) return;
      running ??= run().then(
        () => {
          armed = false;
          running = undefined;
        },
        (err: unknown) => {
          running = undefined;
          throw migrationError(err);
        },
      );
      await running;
    },
  };
}

export async function openConnection(options: ConnectionOptions = {}): Promise<Connection> {
  const url = resolveDatabaseUrl(options.database);
  const timeouts = resolveTimeouts(options, process.env, url ? "postgres" : "pglite");
  let conn: Connection;
  let gate: ReturnType<typeof migrationGate> | undefined;
  if (url) {
    checkDatabaseUrl(url);
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? CONNECTION_DEFAULTS.poolSize,
      // A backstop only (plain timers, which fire before pending I/O after a stall): the request's own bound
      // is connectTimeoutMs, judged by resilientPool with watchTimer.
      connectionTimeoutMillis: timeouts.connectTimeoutMs * CONNECT_BACKSTOP_FACTOR,
      keepAlive: true,
      // Sent with the startup packet: the server enforces them on every pooled connection.
      ...(timeouts.statementTimeoutMs > 0 ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
      ...(timeouts.idleInTransactionTimeoutMs > 0
        ? { idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs }
        : {}),
    });
    const onError = options.onConnectionError ?? defaultErrorLog();
    const watch = createStatementWatch({
      probe: () => probeServer(url, timeouts.connectTimeoutMs),
      checkAfterMs: timeouts.livenessCheckAfterMs,
      deadlineMs:
        timeouts.statementTimeoutMs > 0 ? timeouts.statementTimeoutMs + CONNECTION_DEFAULTS.statementGraceMs : 0,
    });
    const base = resilientPool(pool, onError, { watch, connectTimeoutMs: timeouts.connectTimeoutMs });
    // The migrations' own view of the pool (not gated by them); it shares the pool and is never destroyed itself.
    const migrationDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(base) }) });
    const g = migrationGate(() => migrateToLatest(migrationDb));
    gate = g;
    const gated = new Proxy(base, {
      get(target, prop) {
        if (prop === "connect") {
          return async () => {
            await g.pass();
            return target.connect();
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(gated) }) });
    conn = { db, backend: "postgres", location: redact(url), close: () => db.destroy() };
  } else {
    const home = resolveHome(options.home);
    let lock: DataDirLock | undefined;
    if (home !== "memory://") lock = await acquireDataDirLock(home);
    try {
      // A new database starts from a cached template instead of initdb (src/store/pglite-template.ts).
      const pglite = await openPGlite(home);
      // One connection (the adapter's poolSize); a request waits for it at most connectTimeoutMs.
      const pool = new pg.Pool({
        ...(createPgConfig(pglite) as unknown as pg.PoolConfig),
        connectionTimeoutMillis: timeouts.connectTimeoutMs * CONNECT_BACKSTOP_FACTOR,
      });
      const onError = options.onConnectionError ?? defaultErrorLog();
      const db = new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: preparingPool(
            resilientPool(pool, onError, { embedded: true, connectTimeoutMs: timeouts.connectTimeoutMs }),
          ),
        }),
      });
      let closed = false;
      conn = {
        db,
        backend: "pglite",
        location: home,
        close: async () => {
          if (closed) return;
          closed = true;
          await db.destroy();
          await pglite.close();
          lock?.release();
        },
      };
    } catch (err) {
      lock?.release();
      throw err;
    }
  }
  if (options.migrate ?? true) {
    try {
      await migrateToLatest(conn.db);
    } catch (err) {
      const e = migrationError(err);
      if (!(gate && options.openWhenUnreachable && isConnectionError(e))) {
        await conn.close();
        throw e;
      }
      gate.arm();
      return { ...conn, unreachableAtOpen: e as Error };
    }
  }
  return conn;
}
