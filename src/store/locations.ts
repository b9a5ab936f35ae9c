/**
 * Where the database is, from options and the environment, without loading a driver: the CLI asks this
 * before it decides to open the database itself or to go through a running server.
 */
import { resolve } from "node:path";

/** The PostgreSQL URL to use (`--database`, else DATABASE_URL), or undefined for the embedded database. */
export function resolveDatabaseUrl(opt?: string): string | undefined {
  const url = opt ?? process.env.DATABASE_URL;
  return url && url.length > 0 ? url : undefined;
}

/** The embedded data directory (absolute), or `memory://`: `--home`, else TOOLGRAPH_HOME, else `./.toolgraph`. */
export function resolveHome(opt?: string): string {
  const home = opt ?? process.env.TOOLGRAPH_HOME;
  if (home === "memory://") return home;
  return resolve(home && home.length > 0 ? home : ".toolgraph");
}
