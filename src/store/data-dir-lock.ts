/**
 * Exclusive lock on an embedded (PGlite) data directory.
 *
 * PGlite has no cross-process lock: a second process that opens the same directory gets no error
 * and its writes are silently lost (STACK.md). We create `<dir>/toolgraph.lock` with O_EXCL holding
 * our identity: pid, the kernel's boot id and the process start time (field 22 of /proc/<pid>/stat,
 * clock ticks since boot). A lock is held only while a process with that pid is alive AND, where /proc
 * exists, has the same boot id and start time. So a lock left by a killed process is stale even when a
 * new process got the same pid (a container whose process is always PID 1): the new one started later.
 * Without /proc (macOS) only the pid is compared, as is a lock file written by an older version.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ToolgraphError } from "./errors.ts";

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** Who holds a lock: pid, and where /proc exists, boot id and start time. */
export interface LockOwner {
  pid: number;
  bootId?: string | undefined;
  startTime?: string | undefined;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The kernel's boot id (changes on every boot), or undefined without /proc. */
export function bootId(): string | undefined {
  return readOrUndefined("/proc/sys/kernel/random/boot_id")?.trim() || undefined;
}

/** A process's start time in clock ticks since boot (/proc/<pid>/stat field 22), or undefined. */
export function processStartTime(pid: number): string | undefined {
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // Field 2 (comm) is parenthesised and may contain spaces or ")": the fields after the LAST ")" start at 3.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return rest[22 - 3];
}

export function currentOwner(): LockOwner {
  return { pid: process.pid, bootId: bootId(), startTime: processStartTime(process.pid) };
}

export function formatOwner(o: LockOwner): string {
  return [String(o.pid), o.bootId ?? "", o.startTime ?? ""].join("\n") + "\n";
}

export function parseOwner(text: string): LockOwner | undefined {
  const [pid, boot, start] = text.split("\n").map((s) => s.trim());
  const n = Number.parseInt(pid ?? "", 10);
  if (!Number.isInteger(n) || n <= 0) return undefined;
  return { pid: n, bootId: boot || undefined, startTime: start || undefined };
}

/** True when the process that wrote `owner` is still running (not merely a process with its pid). */
export function ownerAlive(owner: LockOwner): boolean {
  if (!pidAlive(owner.pid)) return false;
  if (owner.bootId !== undefined) {
    const boot = bootId();
    if (boot !== undefined && boot !== owner.bootId) return false;
  }
  if (owner.startTime !== undefined) {
    const start = processStartTime(owner.pid);
    if (start !== undefined && start !== owner.startTime) return false;
  }
  return true;
}

export function acquireDataDirLock(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "toolgraph.lock");
  const me = currentOwner();
  const mine = formatOwner(me);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, mine);
      closeSync(fd);
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        process.removeListener("exit", release);
        try {
          if (readFileSync(path, "utf8") === mine) rmSync(path, { force: true });
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return { path, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const text = readOrUndefined(path);
      if (text === undefined) continue; // vanished between open and read: retry
      const holder = parseOwner(text);
      if (holder && ownerAlive(holder)) {
        throw new ToolgraphError(
          "database-locked",
          `the embedded database at ${dir} is in use by process ${holder.pid}` +
            (holder.pid === me.pid ? " (this process opened it already; close the other handle first)" : "") +
            `. Stop that process, send the command through its server (toolgraph serve), or use a PostgreSQL server with --database.`,
          { dir, pid: holder.pid },
        );
      }
      // Stale lock (its process is gone, or its pid now belongs to another process): take it over.
      rmSync(path, { force: true });
    }
  }
  throw new ToolgraphError("database-locked", `could not take the lock ${path} after 3 attempts`, { dir });
}
