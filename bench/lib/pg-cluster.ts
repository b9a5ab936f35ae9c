/**
 * A throwaway PostgreSQL cluster for fault-injection tests and benches: `initdb` + `pg_ctl` under a temporary
 * directory, on a free loopback port, never the shared server at 5432. Started as the `postgres` OS user when
 * running as root (PostgreSQL refuses to run as root). Every command is run asynchronously, so an HTTP server
 * in the same process keeps answering while the cluster restarts. `freeze`/`thaw` stop and resume its processes
 * (SIGSTOP/SIGCONT: a server that keeps its connections open and answers nothing).
 */
import { execFile } from "node:child_process";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface PgCluster {
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  /** Fast shutdown (active connections are terminated). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** pg_terminate_backend on every client connection but this one; returns how many were terminated. */
  terminateConnections(): Promise<number>;
  /**
   * Freezes the server: SIGSTOP of the postmaster, then of every process it started (backends, checkpointer,
   * …). Connections are still accepted by the kernel, nothing is answered. Returns how many were stopped.
   */
  freeze(): Promise<number>;
  /** SIGCONT of what `freeze` stopped. */
  thaw(): Promise<void>;
  /** Runs one SQL statement on a fresh connection (for checks after the load). */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<R[]>;
  /** Stops the cluster (immediate) and removes its directory. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

function as(cmd: string, args: string[]): [string, string[]] {
  return asRoot ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
}

async function sh(cmd: string, args: string[]): Promise<string> {
  const [c, a] = as(cmd, args);
  try {
    const { stdout } = await run(c, a, { timeout: 60_000 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(" ")} failed: ${e.stderr || e.message}`);
  }
}

/** initdb + start. Takes ~1–4 s on a loaded 2-core machine. */
export async function startCluster(): Promise<PgCluster> {
  const dir = await mkdtemp(join(tmpdir(), "tg-pgcluster-"));
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = join(dir, "data");
  const port = await freePort();
  await sh("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50`;
  const ctl = (args: string[]) => sh("pg_ctl", ["-D", data, "-l", join(dir, "log"), ...args]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let frozen: number[] = [];
  const cluster: PgCluster = {
    url,
    port,
    dir,
    start: async () => {
      await ctl(["-o", opts, "-w", "start"]);
    },
    stop: async () => {
      await ctl(["-m", "fast", "-w", "stop"]);
    },
    restart: async () => {
      await ctl(["-o", opts, "-m", "fast", "-w", "restart"]);
    },
    freeze: async () => {
      const postmaster = Number((await readFile(join(data, "postmaster.pid"), "utf8")).split("\n")[0]);
      // The postmaster first: it then starts no new process while its children are listed and stopped.
      process.kill(postmaster, "SIGSTOP");
      frozen = [postmaster];
      const { stdout } = await run("ps", ["-o", "pid=", "--ppid", String(postmaster)]);
      for (const pid of stdout
        .split("\n")
        .map((l) => Number(l.trim()))
        .filter((n) => n > 0)) {
        try {
          process.kill(pid, "SIGSTOP");
          frozen.push(pid);
        } catch {
          // exited meanwhile
        }
      }
      return frozen.length;
    },
    thaw: async () => {
      for (const pid of frozen.reverse()) {
        try {
          process.kill(pid, "SIGCONT");
        } catch {
          // exited meanwhile
        }
      }
      frozen = [];
    },
    query: async <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        return (await c.query<R>(sql, values)).rows;
      } finally {
        await c.end();
      }
    },
    terminateConnections: async () => {
      const rows = await cluster.query<{ n: string }>(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
      );
      return Number(rows[0]?.n ?? 0);
    },
    dispose: async () => {
      await cluster.thaw();
      await ctl(["-m", "immediate", "-w", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
