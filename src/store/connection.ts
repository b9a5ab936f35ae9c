/**
 * Opening the database: one kysely dialect (PostgresDialect) for both backends.
 * - A PostgreSQL server through `pg` when a URL is given (`--database` or DATABASE_URL).
 * - Otherwise the embedded PGlite through `@electric-sql/pglite/node-postgres`, data directory
 *   `.toolgraph/` under the working directory, or TOOLGRAPH_HOME. `memory://` keeps it in memory.
 */
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { createPgConfig } from "@electric-sql/pglite/node-postgres";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { ToolgraphError } from "./errors.ts";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
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
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
    conn = { db, backend: "postgres", location: redact(url), close: () => db.destroy() };
  } else {
    const home = resolveHome(options.home);
    let lock: DataDirLock | undefined;
    if (home !== "memory://") lock = acquireDataDirLock(home);
    try {
      const pglite = new PGlite(home === "memory://" ? undefined : home);
      await pglite.waitReady;
      const pool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
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
