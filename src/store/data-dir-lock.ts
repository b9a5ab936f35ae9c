/**
 * Exclusive lock on an embedded (PGlite) data directory.
 *
 * PGlite has no cross-process lock: a second process that opens the same directory gets no error and
 * its writes are silently lost (STACK.md). Why the lock is built this way: docs/decisions/data-dir-lock.md.
 *
 * The mutex is a listening socket whose name is derived from the directory's device and inode:
 * - Linux: an abstract-namespace Unix socket (`\0toolgraph-lock/<hash>`); Windows: a named pipe. The kernel
 *   lets one process bind a name, so two processes that start in the same instant cannot both hold it, and
 *   it is released when the process dies however it dies (kill -9 included): no stale mutex ever exists.
 *   The holder answers a connection with its identity, which names it in the refusal ("in use by process PID").
 * - Elsewhere (macOS, BSD) no such name exists: the lock file alone is the mutex, created complete (written
 *   to a private file, then hard-linked into place, which fails if the name exists); a stale one is taken
 *   over by renaming it away and checking that what moved is the stale file that was read.
 *
 * The lock file `<dir>/toolgraph.lock` holds the owner's identity: pid, the kernel's boot id and the process
 * start time (field 22 of /proc/<pid>/stat). A file is held only while a process with that pid is alive AND,
 * where /proc exists, has the same boot id and start time, so a file left by a killed process is stale even
 * when a new process got the same pid. With the socket held, a file naming another live owner (an older
 * version that took only the file, or a process in another network namespace) is still respected.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { ToolgraphError } from "../contract/errors.ts";

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

/** How long to wait for a holder to say who it is before naming it from the lock file (ms). */
const WHO_TIMEOUT_MS = 1_000;
/** How long to keep binding while holders come and go between a refused bind and "who are you?" (ms). */
const BIND_WINDOW_MS = 2_000;
/** Attempts of the file-only lock when its file vanishes or is stale. */
const ATTEMPTS = 5;

/** True when a process with this pid exists (ours to signal or not). */
export function pidAlive(pid: number): boolean {
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
  return `${[String(o.pid), o.bootId ?? "", o.startTime ?? ""].join("\n")}\n`;
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

/**
 * The socket name that stands for `dir`, from its device and inode (the same directory reached through a
 * symlink or another relative path maps to one name), or undefined where the platform has no name that the
 * kernel releases on death.
 */
export function lockSocketName(dir: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const st = statSync(dir, { bigint: true });
  const hash = createHash("sha256").update(`${st.dev}:${st.ino}`).digest("hex").slice(0, 40);
  if (platform === "linux") return `\0toolgraph-lock/${hash}`;
  if (platform === "win32") return `\\\\?\\pipe\\toolgraph-lock-${hash}`;
  return undefined;
}

function lockedError(dir: string, holder: LockOwner | undefined, me: LockOwner): ToolgraphError {
  const who = holder ? `process ${holder.pid}` : "another process";
  return new ToolgraphError(
    "database-locked",
    `the embedded database at ${dir} is in use by ${who}` +
      (holder?.pid === me.pid ? " (this process opened it already; close the other handle first)" : "") +
      ". Stop that process, send the command through its server (toolgraph serve), or use a PostgreSQL server with --database.",
    holder ? { dir, pid: holder.pid } : { dir },
  );
}

/** Binds `name`; resolves the listening server, or undefined when another process holds the name. */
function bind(name: string, identity: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.end(identity);
    });
    server.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE") resolve(undefined);
      else reject(err);
    });
    server.listen(name, () => {
      server.unref();
      server.removeAllListeners("error");
      server.on("error", () => {});
      resolve(server);
    });
  });
}

/** Asks the holder of `name` who it is: its identity, "gone" when nobody listens any more, or undefined. */
function askHolder(name: string): Promise<LockOwner | "gone" | undefined> {
  return new Promise((resolve) => {
    let text = "";
    const socket = net.connect(name);
    const done = (v: LockOwner | "gone" | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(undefined), WHO_TIMEOUT_MS);
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      text += d;
    });
    socket.on("end", () => done(parseOwner(text)));
    socket.on("error", (err: NodeJS.ErrnoException) =>
      // Refused: nobody listens. Reset: the holder closed its socket with our connection still queued.
      done(err.code === "ECONNREFUSED" || err.code === "ENOENT" || err.code === "ECONNRESET" ? "gone" : undefined),
    );
  });
}

/** Writes `content` to a new private file beside `path` and returns its name. */
function writePrivate(path: string, content: string): string {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}`;
  const fd = openSync(tmp, "wx");
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/** Creates `path` holding `content` only if no file of that name exists: complete from its first instant. */
function createExclusive(path: string, content: string): boolean {
  const tmp = writePrivate(path, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Replaces `path` with `content` in one step (a reader sees the old file or the new one, never a part). */
function replaceFile(path: string, content: string): void {
  renameSync(writePrivate(path, content), path);
}

/**
 * Moves a stale lock file away, only if it is still the one read (`staleText`): renames it to a private name,
 * then compares. When a live lock was moved (another process took the stale one over in between), it is put
 * back; returns whether the name is now free of that stale file.
 */
function removeStale(path: string, staleText: string): boolean {
  const aside = `${path}.stale.${process.pid}.${randomBytes(6).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw err;
  }
  const moved = readOrUndefined(aside);
  if (moved === staleText) {
    rmSync(aside, { force: true });
    return true;
  }
  try {
    linkSync(aside, path); // a live lock: put it back
  } catch {
    /* a third process holds the name now; the moved file's owner will find its lock gone on release */
  }
  rmSync(aside, { force: true });
  return false;
}

/**
 * Removes `path` once, at the returned function's call or at the process's exit, if it still holds `text` (a
 * file another process has put there since stays); then runs `after`.
 */
export function removeOwnFileOnce(path: string, text: string, after?: () => void): () => void {
  let done = false;
  const remove = (): void => {
    if (done) return;
    done = true;
    process.removeListener("exit", remove);
    try {
      if (readFileSync(path, "utf8") === text) rmSync(path, { force: true });
    } catch {
      /* already gone */
    }
    after?.();
  };
  process.once("exit", remove);
  return remove;
}

function holdFile(path: string, mine: string, server: net.Server | undefined): DataDirLock {
  // The file first, then the socket: a newcomer that gets the socket must not find our file alive.
  return { path, release: removeOwnFileOnce(path, mine, () => server?.close()) };
}

/**
 * Takes the exclusive lock on `dir` (created if missing), held until `release()` or the process's end.
 * Throws ToolgraphError("database-locked") naming the holder when another process (or another handle in this
 * process) holds it.
 */
export async function acquireDataDirLock(dir: string): Promise<DataDirLock> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "toolgraph.lock");
  const me = currentOwner();
  const mine = formatOwner(me);
  const name = lockSocketName(dir);

  if (name === undefined) return acquireByFile(dir, path, me, mine);

  // A holder that lets go while we ask is "gone": bind again. Under churn (many processes taking turns) this
  // repeats; after BIND_WINDOW_MS we stop and name the last holder seen.
  const deadline = Date.now() + BIND_WINDOW_MS;
  let lastHolder: LockOwner | undefined;
  do {
    const server = await bind(name, mine);
    if (server === undefined) {
      const holder = await askHolder(name);
      if (holder !== "gone") throw lockedError(dir, holder ?? fileOwner(path) ?? lastHolder, me);
      lastHolder = fileOwner(path) ?? lastHolder;
      continue;
    }
    // We hold the mutex: only a process that does not use it (an older version, another network namespace)
    // can hold the file now.
    const text = readOrUndefined(path);
    const owner = text === undefined ? undefined : parseOwner(text);
    if (owner && ownerAlive(owner) && !(owner.pid === me.pid && text === mine)) {
      server.close();
      throw lockedError(dir, owner, me);
    }
    replaceFile(path, mine);
    return holdFile(path, mine, server);
  } while (Date.now() < deadline);
  throw lockedError(dir, lastHolder, me);
}

function fileOwner(path: string): LockOwner | undefined {
  const text = readOrUndefined(path);
  const owner = text === undefined ? undefined : parseOwner(text);
  return owner && ownerAlive(owner) ? owner : undefined;
}

/** The lock file alone, for platforms without a kernel-released socket name. */
function acquireByFile(dir: string, path: string, me: LockOwner, mine: string): DataDirLock {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusive(path, mine)) return holdFile(path, mine, undefined);
    const text = readOrUndefined(path);
    if (text === undefined) continue; // vanished between link and read: retry
    const holder = parseOwner(text);
    if (holder && ownerAlive(holder)) throw lockedError(dir, holder, me);
    removeStale(path, text);
  }
  throw new ToolgraphError("database-locked", `could not take the lock ${path} after ${ATTEMPTS} attempts`, { dir });
}

/** For tests: the file-only lock, as used where the platform has no socket name. */
export function acquireDataDirLockByFile(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "toolgraph.lock");
  const me = currentOwner();
  return acquireByFile(dir, path, me, formatOwner(me));
}
