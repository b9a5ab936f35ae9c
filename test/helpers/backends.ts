/**
 * The two real backends every store test runs against: the embedded PGlite and the PostgreSQL server.
 *
 * The server URL comes from TOOLGRAPH_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
 * Each test file gets its own schema on the server (search_path), so files run in parallel without
 * seeing each other. An unreachable server FAILS the suite; set TOOLGRAPH_TEST_SKIP_SERVER=1 to skip it
 * deliberately on a machine without one (CI never sets it).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Connection, type ConnectionOptions, openConnection } from "../../src/store/connection.ts";

export const SERVER_URL = process.env.TOOLGRAPH_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const SKIP_SERVER = process.env.TOOLGRAPH_TEST_SKIP_SERVER === "1";

export interface Backend {
  name: "pglite" | "postgres";
  /** Connection options for this backend (creates the server schema on first use). */
  options(): Promise<ConnectionOptions>;
  open(opts?: { migrate?: boolean }): Promise<Connection>;
  /** Drops what the backend created (the server schema). */
  dispose(): Promise<void>;
}

export function pgliteBackend(): Backend {
  return {
    name: "pglite",
    options: async () => ({ home: "memory://", database: "" }),
    open: (opts) => openConnection({ home: "memory://", database: "", migrate: opts?.migrate ?? true }),
    dispose: async () => {},
  };
}

export function serverBackend(): Backend {
  const schema = `tg_test_${randomBytes(6).toString("hex")}`;
  const url = new URL(SERVER_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  let ready = false;
  const options = async (): Promise<ConnectionOptions> => {
    if (!ready) {
      const admin = new pg.Client({ connectionString: SERVER_URL, connectionTimeoutMillis: 5000 });
      try {
        await admin.connect();
      } catch (err) {
        throw new Error(
          `PostgreSQL server unreachable at ${SERVER_URL} (${(err as Error).message}). Start it with ` +
            "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or set TOOLGRAPH_TEST_SKIP_SERVER=1 to skip it on purpose.",
        );
      }
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await admin.end();
      ready = true;
    }
    return { database: url.toString(), poolSize: 4 };
  };
  return {
    name: "postgres",
    options,
    open: async (opts) => openConnection({ ...(await options()), migrate: opts?.migrate ?? true }),
    dispose: async () => {
      const admin = new pg.Client({ connectionString: SERVER_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** The backends a store test must run on. */
export function backends(): Backend[] {
  return SKIP_SERVER ? [pgliteBackend()] : [pgliteBackend(), serverBackend()];
}

let counter = 0;
/** A fresh project key: every row is scoped by project, so tests sharing a database stay apart. */
export function freshProject(prefix = "p"): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString("hex")}`;
}

/**
 * Opens one migrated connection on `backend` for the enclosing describe block (beforeAll) and closes it and
 * drops the backend's schema afterwards (afterAll); `use` receives the connection once it is open.
 */
export function connectionPerSuite(backend: Backend, use: (conn: Connection) => void): void {
  let conn: Connection | undefined;
  beforeAll(async () => {
    conn = await backend.open();
    use(conn);
  });
  afterAll(async () => {
    await conn?.close();
    await backend.dispose();
  });
}
