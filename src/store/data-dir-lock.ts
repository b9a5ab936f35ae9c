/**
 * Exclusive lock on an embedded (PGlite) data directory.
 *
 * PGlite has no cross-process lock: a second process that opens the same directory gets no error
 * and its writes are silently lost (STACK.md). We create `<dir>/toolgraph.lock` with O_EXCL holding
 * our pid. A second process fails at once naming the holder's pid; a lock whose pid is no longer
 * alive (a crashed process) is stale and is taken over.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ToolgraphError } from "./errors.ts";

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function acquireDataDirLock(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "toolgraph.lock");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return { path, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let holder = Number.NaN;
      try {
        holder = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      } catch {
        /* vanished between open and read: retry */
        continue;
      }
      if (Number.isInteger(holder) && holder > 0 && pidAlive(holder)) {
        throw new ToolgraphError(
          "database-locked",
          `the embedded database at ${dir} is in use by process ${holder}` +
            (holder === process.pid ? " (this process opened it already; close the other handle first)" : "") +
            `. Stop that process, send the command through its server (toolgraph serve), or use a PostgreSQL server with --database.`,
          { dir, pid: holder },
        );
      }
      // Stale lock from a dead process: take it over.
      rmSync(path, { force: true });
    }
  }
  throw new ToolgraphError("database-locked", `could not take the lock ${path} after 3 attempts`, { dir });
}
