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
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { ToolgraphError } from "../contract/errors.ts";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { resolveDatabaseUrl, resolveHome } from "./locations.ts";
import { migrateToLatest } from "./migrate.ts";
import type { StartedEmbedded } from "./pglite-early.ts";
import { type EmbeddedDatabase, openEmbedded } from "./pglite-worker.ts";
import { preparingPool } from "./prepared.ts";
import type { Database } from "./schema.ts";

export { isConnectionError } from "../contract/database-errors.ts";

import { isConnectionError } from "../contract/database-errors.ts";
import {
  CONNECT_BACKSTOP_FACTOR,
  CONNECTION_DEFAULTS,
  defaultErrorLog,
  destroySocket,
  resilientPool,
  translate,
  unreachable,
} from "./resilient-pool.ts";
import { createStatementWatch, type WatchTimer, watchTimer } from "./statement-watch.ts";

export {
  CONNECT_BACKSTOP_FACTOR,
  CONNECTION_DEFAULTS,
  defaultErrorLog,
  destroySocket,
  type ResilientPoolOptions,
  resilientPool,
  translate,
  unreachable,
} from "./resilient-pool.ts";

export { resolveDatabaseUrl, resolveHome };

export interface ConnectionOptions {
  /** PostgreSQL URL. Default: process.env.DATABASE_URL; when neither is set, the embedded database. */
  database?: string | undefined;
  /** Embedded data directory. Default: TOOLGRAPH_HOME, else `.toolgraph` under the working directory. Use `memory://` for an in-memory database. */
  home?: string | undefined;
  /** Run migrations on open. Default: true. */
  migrate?: boolean | undefined;
  /**
   * The embedded database's WebAssembly is tiered up by V8 (faster queries after a few thousand, slower start):
   * for servers. Default false (src/store/pglite-template.ts).
   */
  pgliteTiered?: boolean | undefined;
  /**
   * The embedded database of `home`, started before the library loaded (pglite-early.ts: a one-shot CLI call);
   * the open takes it (its rejection is the open's), or closes it when it opens something else. Default none.
   */
  started?: Promise<StartedEmbedded> | undefined;
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
   * statement still unanswered `statementGraceMs` later. Not applied to the embedded database (its one
   * session, on its own thread: src/store/pglite-worker.ts, has no server to enforce it). Default TOOLGRAPH_DB_STATEMENT_TIMEOUT_MS, else 30 000.
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
  /** The embedded database's handle (its worker thread), for tests that stop it. */
  readonly embedded?: EmbeddedDatabase | undefined;
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
    let early: StartedEmbedded | undefined;
    if (options.started) {
      const s = await options.started;
      if (s.home === home && !options.pgliteTiered && (options.migrate ?? true)) early = s;
      else await s.close();
    }
    let lock: DataDirLock | undefined = early?.lock;
    if (home !== "memory://" && !early) lock = await acquireDataDirLock(home);
    try {
      // A new database starts from a cached migrated template instead of initdb (src/store/pglite-template.ts),
      // on a worker thread unless TOOLGRAPH_PGLITE_THREAD=main (src/store/pglite-worker.ts).
      const pglite =
        early?.embedded ??
        (await openEmbedded(home, process.env, {
          migrated: options.migrate ?? true,
          tiered: options.pgliteTiered,
        }));
      // One connection (PGlite is one session); a request waits for it at most connectTimeoutMs.
      const pool = new pg.Pool({
        ...pglite.poolConfig(),
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
        embedded: pglite,
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
