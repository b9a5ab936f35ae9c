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
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { ToolgraphError } from "./errors.ts";
import { migrateToLatest } from "./migrate.ts";
import { preparingPool } from "./prepared.ts";
import type { Database } from "./schema.ts";

export interface ConnectionOptions {
  /** PostgreSQL URL. Default: process.env.DATABASE_URL; when neither is set, the embedded database. */
  database?: string | undefined;
  /** Embedded data directory. Default: TOOLGRAPH_HOME, else `.toolgraph` under the working directory. Use `memory://` for an in-memory database. */
  home?: string | undefined;
  /** Run migrations on open. Default: true. */
  migrate?: boolean | undefined;
  /** Pool size for a PostgreSQL server. Default: 10. */
  poolSize?: number | undefined;
  /** How long a request waits for a new server connection before it fails as unreachable (ms). Default 5000. */
  connectTimeoutMs?: number | undefined;
  /** Where a connection lost outside any request is reported. Default: one stderr line per 10 s at most. */
  onConnectionError?: ((err: Error) => void) | undefined;
}

export const CONNECTION_DEFAULTS = { poolSize: 10, connectTimeoutMs: 5000, errorLogIntervalMs: 10_000 } as const;

/** SQLSTATEs that mean the server went away or is not accepting work (not a bad statement). */
const UNREACHABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown (pg_terminate_backend, fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up / shutting down)
  "57P05", // idle_session_timeout
  "53300", // too_many_connections
]);
const UNREACHABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);
const UNREACHABLE_MESSAGES = [
  /^Connection terminated/,
  /not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed/,
  /^Connection ended/,
  /server closed the connection unexpectedly/,
];

/** True when `err` means the database server is unreachable or dropped the connection (not a bad query). */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof ToolgraphError) return err.code === "database-unreachable";
  if (err === null || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (UNREACHABLE_SQLSTATES.has(code) || UNREACHABLE_ERRNOS.has(code) || /^08/.test(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  if (typeof message === "string" && UNREACHABLE_MESSAGES.some((re) => re.test(message))) return true;
  // AggregateError (several addresses refused) and wrapped causes.
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0 && inner.every((e) => isConnectionError(e))) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isConnectionError(cause);
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
    process.stderr.write(`toolgraph: database connection lost (${err.message})${suppressed > 0 ? ` (+${suppressed} more)` : ""}; new connections are opened on demand\n`);
    suppressed = 0;
  };
}

/**
 * The pool as kysely sees it: `error` events of the pool and of checked-out clients are handled, and
 * connection failures (connect, query, BEGIN/COMMIT/ROLLBACK) reject with ToolgraphError("database-unreachable").
 */
export function resilientPool(pool: pg.Pool, onError: (err: Error) => void): pg.Pool {
  pool.on("error", (err) => onError(err));
  const guarded = new WeakSet<object>();
  const wrapped = new WeakMap<object, pg.PoolClient>();
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
        return r instanceof Promise ? r.catch((err: unknown) => Promise.reject(translate(err))) : r;
      };
      w = new Proxy(client, {
        get(target, prop) {
          if (prop === "query") return query;
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
      wrapped.set(client, w);
    }
    return w;
  };
  return new Proxy(pool, {
    get(target, prop) {
      if (prop === "connect") {
        return async () => {
          try {
            return wrap(await target.connect());
          } catch (err) {
            throw translate(err);
          }
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

export interface Connection {
  readonly db: Kysely<Database>;
  readonly backend: "postgres" | "pglite";
  /** Where the data lives: the server URL without password, or the data directory. */
  readonly location: string;
  close(): Promise<void>;
}

// bigint (int8) comes back as a string from both backends; counts are parsed at the store edge.

export function resolveDatabaseUrl(opt?: string): string | undefined {
  const url = opt ?? process.env.DATABASE_URL;
  return url && url.length > 0 ? url : undefined;
}

export function resolveHome(opt?: string): string {
  const home = opt ?? process.env.TOOLGRAPH_HOME;
  if (home === "memory://") return home;
  return resolve(home && home.length > 0 ? home : ".toolgraph");
}

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

export async function openConnection(options: ConnectionOptions = {}): Promise<Connection> {
  const url = resolveDatabaseUrl(options.database);
  let conn: Connection;
  if (url) {
    checkDatabaseUrl(url);
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? CONNECTION_DEFAULTS.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECTION_DEFAULTS.connectTimeoutMs,
      keepAlive: true,
    });
    const onError = options.onConnectionError ?? defaultErrorLog();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(resilientPool(pool, onError)) }) });
    conn = { db, backend: "postgres", location: redact(url), close: () => db.destroy() };
  } else {
    const home = resolveHome(options.home);
    let lock: DataDirLock | undefined;
    if (home !== "memory://") lock = await acquireDataDirLock(home);
    try {
      const pglite = new PGlite(home === "memory://" ? undefined : home);
      await pglite.waitReady;
      const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
      const onError = options.onConnectionError ?? defaultErrorLog();
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(resilientPool(pool, onError)) }) });
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
      await conn.close();
      throw err;
    }
  }
  return conn;
}
