/**
 * The PGlite template also kept unpacked, beside its archive (`pglite-<version>-<key>.d/`), so a new database
 * is a copy of a directory (the kernel copies: no gunzip, no archive in this process's memory) instead of an
 * archive unpacked by this process. Measured in docs/decisions/everyday-budget.md: the archive's path held the
 * 15 MB tar and zlib's buffers at once (≈ 35 MB more peak memory) and cost 130–170 ms of CPU; the copy 40–110
 * ms and no memory.
 *
 * - Made only from an archive that has just started a database (so it was whole), unpacked into a directory of
 *   this process (pid and random bytes in its name) with a manifest (every file's name and size), then renamed
 *   into place: a reader sees the whole directory or none. Two processes making it at once: the first rename
 *   wins and the other's copy is removed.
 * - Checked while copied: every file the manifest names must be there with its size, and the copy's sizes must
 *   match; anything else removes the unpacked template (the archive, checked as before, is used and makes it
 *   again). A database that does not start from a copy does the same.
 * - Best effort: a failure to make or read it only loses the gain.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { extractDataDir } from "./data-dir-tar.ts";

const MANIFEST = "toolgraph-template.json";

interface Manifest {
  dirs: string[];
  files: { name: string; size: number }[];
}

/** The unpacked template beside the archive `file` (`….tar.gz` → `….d`). */
export function templateDirOf(file: string): string {
  return `${file.replace(/\.tar\.gz$/, "")}.d`;
}

/** The directories and files under `root` (relative, `/`-separated), the manifest left out. */
async function listTree(root: string): Promise<Manifest> {
  const out: Manifest = { dirs: [], files: [] };
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      const name = relative(root, path).split(sep).join("/");
      if (e.isDirectory()) {
        out.dirs.push(name);
        await walk(path);
      } else if (e.isFile() && name !== MANIFEST) out.files.push({ name, size: (await stat(path)).size });
      else if (!e.isFile()) throw new Error(`unexpected entry ${name}`);
    }
  };
  await walk(root);
  return out;
}

/** Unpacks `tar` (an archive that just started a database) into `path`, whole or not at all; failures ignored. */
export async function writeTemplateDir(tar: Uint8Array, path: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(tmp, { recursive: true, mode: 0o700 });
    await extractDataDir(tar, tmp);
    await writeFile(join(tmp, MANIFEST), JSON.stringify(await listTree(tmp)));
    await rename(tmp, path);
  } catch {
    // another process renamed its copy first, or the cache cannot be written: only the gain is lost
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
}

/** Removes an unpacked template found wrong (the next open that starts from the archive makes it again). */
export async function removeTemplateDir(path: string): Promise<void> {
  const doomed = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.bad`;
  try {
    await rename(path, doomed); // out of every reader's way at once, then removed
    await rm(doomed, { recursive: true, force: true });
  } catch {
    // already gone
  }
}

function parseManifest(text: string): Manifest | undefined {
  try {
    const m = JSON.parse(text) as Manifest;
    const ok =
      Array.isArray(m.dirs) &&
      Array.isArray(m.files) &&
      m.dirs.every((d) => typeof d === "string") &&
      m.files.every((f) => typeof f?.name === "string" && Number.isSafeInteger(f.size) && f.size >= 0) &&
      m.files.some((f) => f.name === "PG_VERSION");
    const inside = (n: string) => n !== "" && !n.startsWith("/") && !n.split("/").includes("..");
    return ok && [...m.dirs, ...m.files.map((f) => f.name)].every(inside) ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Copies the unpacked template at `path` into `dir` (which exists). "missing": there is none; "bad": it is
 * damaged (what was copied stays for the caller to remove; the template itself is removed); "copied".
 */
export async function copyTemplateDir(path: string, dir: string): Promise<"missing" | "bad" | "copied"> {
  let text: string;
  try {
    text = await readFile(join(path, MANIFEST), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    await removeTemplateDir(path);
    return "bad";
  }
  const manifest = parseManifest(text);
  try {
    if (!manifest) throw new Error("bad manifest");
    for (const d of manifest.dirs) await mkdir(join(dir, d), { recursive: true, mode: 0o700 });
    // A few copies at a time: hundreds of small files, each copied by the kernel (a clone where it can).
    for (let i = 0; i < manifest.files.length; i += 64)
      await Promise.all(
        manifest.files.slice(i, i + 64).map(async (f) => {
          const to = join(dir, f.name);
          await copyFile(join(path, f.name), to, constants.COPYFILE_FICLONE);
          if ((await stat(to)).size !== f.size) throw new Error(`${f.name}: size differs`);
        }),
      );
    return "copied";
  } catch {
    await removeTemplateDir(path);
    return "bad";
  }
}
