/**
 * The PGlite template's archive (a tar of a data directory) and where a `memory://` database lives.
 *
 * - `isDataDirTar` checks a whole archive before anything reads it: every header's checksum, sizes, and a
 *   PG_VERSION entry.
 * - `extractDataDir` writes it into a directory with Node's own file calls (plain files and directories only;
 *   a name that would leave the directory, or any other entry type, fails it), instead of PGlite's loader,
 *   which copies the archive through the WebAssembly file system.
 * - A `memory://` database is such a directory, removed when the database closes or the process exits (and,
 *   after a crash, by the next `memory://` open of any process, for directories whose process is gone). PGlite
 *   then reads it through the OS page cache instead of holding every file of the directory in its own memory.
 *   It goes in the RAM file system /dev/shm when that has MEMORY_SHM_MIN_FREE bytes free (a kernel copy of the
 *   template and its removal there cost about half the system time of the disk's: 0.16 s less a library open),
 *   else in the OS temporary directory (a container's 64 MB /dev/shm is too small). Measured in
 *   docs/decisions/everyday-budget.md.
 */
import { accessSync, constants, existsSync, readdirSync, rmSync, statfsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, normalize, sep } from "node:path";

interface Entry {
  name: string;
  type: "file" | "dir" | "other";
  mode: number;
  body: Uint8Array;
}

const text = (b: Uint8Array) => Buffer.from(b).toString("utf8").replace(/\0.*$/s, "");
const octal = (b: Uint8Array) =>
  Number.parseInt(Buffer.from(b).toString("latin1").replace(/\0.*$/s, "").trim() || "0", 8);

/** The archive's entries, or undefined when a header's checksum or size is wrong or the end is missing. */
function entries(tar: Uint8Array): Entry[] | undefined {
  const out: Entry[] = [];
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return out;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
    if (octal(header.subarray(148, 156)) !== sum) return undefined;
    const size = octal(header.subarray(124, 136));
    if (!Number.isSafeInteger(size) || size < 0 || at + 512 + size > tar.length) return undefined;
    const ustar = text(header.subarray(257, 262)) === "ustar";
    const prefix = ustar ? text(header.subarray(345, 500)) : "";
    const name = prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100));
    const flag = String.fromCharCode(header[156]!);
    const type = flag === "0" || flag === "\0" ? "file" : flag === "5" ? "dir" : "other";
    out.push({
      name,
      type,
      mode: octal(header.subarray(100, 108)) & 0o777,
      body: tar.subarray(at + 512, at + 512 + size),
    });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** True when `tar` is a whole tar archive (every header's checksum holds) that holds PG_VERSION. */
export function isDataDirTar(tar: Uint8Array): boolean {
  return entries(tar)?.some((e) => /(^|\/)PG_VERSION$/.test(e.name)) ?? false;
}

/** Writes the data directory archive `tar` into `dir` (which exists); rejects on anything but files and directories. */
export async function extractDataDir(tar: Uint8Array, dir: string): Promise<void> {
  const list = entries(tar);
  if (!list) throw new Error("not a whole tar archive");
  const inside = (name: string) => {
    const rel = normalize(name).replace(/^[/\\]+/, "");
    if (rel === "" || rel === "." || rel.startsWith(`..${sep}`) || rel === "..") throw new Error(`bad entry ${name}`);
    return join(dir, rel);
  };
  const files: Entry[] = [];
  const made = new Set<string>();
  const mkdirOnce = async (path: string) => {
    if (made.has(path)) return;
    await mkdir(path, { recursive: true, mode: 0o700 });
    made.add(path);
  };
  for (const e of list) {
    if (e.type === "other") throw new Error(`unsupported entry ${e.name}`);
    if (e.type === "dir") await mkdirOnce(inside(e.name));
    else files.push(e);
  }
  // A few writes at a time: hundreds of small files, none of them blocking the event loop.
  for (let i = 0; i < files.length; i += 64)
    await Promise.all(
      files.slice(i, i + 64).map(async (e) => {
        const path = inside(e.name);
        await mkdirOnce(dirname(path));
        await writeFile(path, e.body, { mode: e.mode || 0o600 });
      }),
    );
}

const MEMORY_PREFIX = "toolgraph-memory-";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A `memory://` database's directory and how to remove it (after its database closed). */
export interface MemoryDataDir {
  readonly dir: string;
  remove(): Promise<void>;
}

/** The RAM file system a `memory://` database's directory goes in when it has room (Linux; elsewhere absent). */
export const MEMORY_SHM = "/dev/shm";
/** Free bytes /dev/shm must have to take a `memory://` database (1 GiB; a container's is often 64 MB). */
export const MEMORY_SHM_MIN_FREE = 1024 ** 3;

/** Where a new `memory://` directory goes now: /dev/shm when it is writable with room, else the OS temporary directory. */
export function memoryDirRoot(): string {
  try {
    accessSync(MEMORY_SHM, constants.W_OK);
    const fs = statfsSync(MEMORY_SHM);
    if (fs.bavail * fs.bsize >= MEMORY_SHM_MIN_FREE) return MEMORY_SHM;
  } catch {
    // no /dev/shm here
  }
  return tmpdir();
}

/** A new directory for a `memory://` database; the directories of processes that are gone are removed first. */
export async function memoryDataDir(): Promise<MemoryDataDir> {
  const root = memoryDirRoot();
  for (const parent of new Set([MEMORY_SHM, tmpdir()]))
    try {
      for (const name of readdirSync(parent)) {
        const pid = Number(new RegExp(`^${MEMORY_PREFIX}(\\d+)-`).exec(name)?.[1]);
        if (pid && pid !== process.pid && !alive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
      }
    } catch {
      // no such directory, or another process is removing the same one
    }
  const prefix = `${MEMORY_PREFIX}${process.pid}-`;
  const dir = await mkdtemp(join(root, prefix)).catch(() => mkdtemp(join(tmpdir(), prefix)));
  // Removed at this thread's exit if still there; the hook is dropped when the directory is removed.
  const onExit = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", onExit);
  return {
    dir,
    async remove() {
      process.removeListener("exit", onExit);
      if (existsSync(dir)) await rm(dir, { recursive: true, force: true });
    },
  };
}
