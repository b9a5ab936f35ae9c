/**
 * The embedded database started before the library's modules load: a one-shot CLI call takes the data
 * directory's lock and starts PGlite's worker thread (which loads and starts PostgreSQL on its own core), then
 * imports the library (kysely, zod, the algorithms: ~0.3 s of one core) while the database starts; the open
 * then takes this database instead of starting one (ConnectionOptions.started). Why and what it saves:
 * docs/decisions/everyday-budget.md.
 *
 * This module loads only the lock and the worker's client (no driver, no kysely). A start that the open does
 * not take (it failed first, or opened another location) must be closed by its caller: `close()` stops the
 * worker and releases the lock.
 */
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { type EmbeddedDatabase, openEmbedded } from "./pglite-worker.ts";

export interface StartedEmbedded {
  /** The data directory (absolute), as resolveHome gives it. */
  readonly home: string;
  /** The data directory's lock (none for `memory://`, which is this process's own). */
  readonly lock: DataDirLock | undefined;
  readonly embedded: EmbeddedDatabase;
  /** Stops the database and releases the lock (a start nobody took). */
  close(): Promise<void>;
}

/**
 * Locks `home` and starts its embedded database as `openConnection` would for a one-shot process (a migrated
 * template for a new directory, baseline-compiled WebAssembly). Rejects as the open would (locked, unreadable).
 */
export async function startEmbedded(home: string, env: NodeJS.ProcessEnv = process.env): Promise<StartedEmbedded> {
  const lock = home === "memory://" ? undefined : await acquireDataDirLock(home);
  let embedded: EmbeddedDatabase;
  try {
    embedded = await openEmbedded(home, env, { migrated: true, tiered: false });
  } catch (err) {
    lock?.release();
    throw err;
  }
  return {
    home,
    lock,
    embedded,
    close: async () => {
      await embedded.close().catch(() => {});
      lock?.release();
    },
  };
}
