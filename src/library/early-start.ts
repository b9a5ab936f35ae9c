/**
 * The open's embedded database, started before the engine's modules load: PGlite starts on its own thread
 * (its WebAssembly compiled, PostgreSQL started from the template) while this thread loads the engine, the
 * driver and the analytics (~0.2 s of one core), instead of after them. The same start as a one-shot CLI
 * call's (store/pglite-early.ts); why and what it saves: docs/decisions/everyday-budget.md.
 *
 * Only where the open would start exactly this database and nothing can be left behind: `memory://`, or a data
 * directory that already holds a database (never one the open would create: a bad option found later must not
 * leave a directory). Not for a PostgreSQL server, servers' tiered WebAssembly, an open without migrations, or
 * PGlite on the main thread. The open takes the start; a start the open did not take is closed by its caller.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { resolveDatabaseUrl, resolveHome } from "../store/locations.ts";
import { type StartedEmbedded, startEmbedded } from "../store/pglite-early.ts";
import { embeddedThread } from "../store/pglite-worker.ts";
import type { ToolgraphOptions } from "./facade.ts";

/** The database the open of `options` would start, started now; undefined when it would start another (or none). */
export function startEarly(options: ToolgraphOptions): Promise<StartedEmbedded> | undefined {
  if (options.pgliteTiered || options.migrate === false || resolveDatabaseUrl(options.database)) return undefined;
  let home: string;
  try {
    if (embeddedThread() !== "worker") return undefined;
    home = resolveHome(options.home);
  } catch {
    return undefined; // a bad setting: the open reports it
  }
  if (home !== "memory://" && !existsSync(join(home, "PG_VERSION"))) return undefined;
  const started = startEmbedded(home);
  started.catch(() => {}); // awaited by the open, which reports it
  return started;
}
