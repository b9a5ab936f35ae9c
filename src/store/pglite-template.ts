/**
 * A new embedded database starts from a template instead of running initdb: a dump of a freshly initialised
 * PGlite data directory, made once per PGlite version and kept in a cache directory. initdb is most of the
 * library's open (measured in docs/decisions/everyday-budget.md: 5.15 s CPU and 714 MiB for a fresh
 * in-memory database, 1.81 s and 404 MiB from the template).
 *
 * - Where: TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph; the file name
 *   carries PGlite's version, so an upgrade makes a new template and never loads an old one.
 * - The template is the initdb output only (no migrations): the open migrates it as it migrates any database.
 * - Written atomically (a temporary file of this process, then rename), so processes that create it at once
 *   each write a whole file and the last rename wins; readers never see a partial one.
 * - Checked before PGlite sees it: gzip's CRC and length, then every tar header's checksum and a PG_VERSION
 *   entry (PGlite reports a corrupt archive from a stream whose error no caller can catch, so a bad file
 *   must never reach it). A bad or unreadable template is replaced by a new one; when none can be written
 *   or loaded the database is created by initdb as before. Nothing is printed.
 * - Only a data directory without PG_VERSION is new; an existing one opens as before.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { gunzip as gunzipCb } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";

const gunzip = promisify(gunzipCb);

/** The cache directory: TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph. */
export function templateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLGRAPH_CACHE_DIR) return env.TOOLGRAPH_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), ".cache"), "toolgraph");
}

let pgliteVersion: string | null | undefined;
/** PGlite's package version (its package.json is not exported: found beside its entry point), or null. */
function installedPgliteVersion(): string | null {
  if (pgliteVersion !== undefined) return pgliteVersion;
  try {
    let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    for (let i = 0; i < 4 && pgliteVersion === undefined; i++, dir = dirname(dir)) {
      const file = join(dir, "package.json");
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "@electric-sql/pglite" && typeof pkg.version === "string") pgliteVersion = pkg.version;
    }
  } catch {
    // no version, no template
  }
  pgliteVersion ??= null;
  return pgliteVersion;
}

/** The template's path for the installed PGlite, or undefined when its version cannot be known. */
export function templatePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const version = installedPgliteVersion();
  return version ? join(templateCacheDir(env), `pglite-${version}-initdb.tar.gz`) : undefined;
}

/** True when `tar` is a whole tar archive (every header's checksum holds) that holds PG_VERSION. */
export function isDataDirTar(tar: Uint8Array): boolean {
  let hasVersion = false;
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return hasVersion;
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
    const stored = Number.parseInt(Buffer.from(header.subarray(148, 156)).toString("latin1").trim(), 8);
    if (stored !== sum) return false;
    const name = Buffer.from(header.subarray(0, 100)).toString("utf8").replace(/\0.*$/s, "");
    if (/(^|\/)PG_VERSION$/.test(name)) hasVersion = true;
    const size = Number.parseInt(Buffer.from(header.subarray(124, 136)).toString("latin1").trim() || "0", 8);
    if (!Number.isSafeInteger(size) || size < 0) return false;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return false;
}

/** The template's tar, checked; undefined when it is missing, unreadable or damaged. */
async function readTemplate(file: string): Promise<Uint8Array<ArrayBuffer> | undefined> {
  try {
    const tar = new Uint8Array(await gunzip(await readFile(file)));
    return isDataDirTar(tar) ? tar : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the template whole or not at all; a failure (read-only cache, full disk) is ignored. */
async function writeTemplate(file: string, gz: Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, gz);
    await rename(tmp, file);
  } catch {
    await unlink(tmp).catch(() => {});
  }
}

/** PGlite started from `tar` (in memory, or in the directory `dataDir`); undefined when it does not start. */
async function startFrom(dataDir: string | undefined, tar: Uint8Array<ArrayBuffer>): Promise<PGlite | undefined> {
  const before = dataDir && existsSync(dataDir) ? new Set(readdirSync(dataDir)) : new Set<string>();
  let pglite: PGlite | undefined;
  try {
    const loadDataDir = new Blob([tar], { type: "application/x-tar" });
    pglite = new PGlite(dataDir === undefined ? { loadDataDir } : { dataDir, loadDataDir });
    await pglite.waitReady;
    await pglite.query("SELECT 1");
    return pglite;
  } catch {
    await pglite?.close().catch(() => {});
    // What the failed start wrote goes, so initdb finds the directory as it was (the lock file stays).
    if (dataDir && existsSync(dataDir))
      for (const entry of readdirSync(dataDir))
        if (!before.has(entry)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    return undefined;
  }
}

/**
 * The embedded database for `home` (`memory://` or a data directory): an existing directory opens as it is;
 * a new database starts from the cached template, which is made (by an in-memory initdb) when missing or bad.
 */
export async function openPGlite(home: string, env: NodeJS.ProcessEnv = process.env): Promise<PGlite> {
  const dataDir = home === "memory://" ? undefined : home;
  const plain = async () => {
    const pglite = new PGlite(dataDir);
    await pglite.waitReady;
    return pglite;
  };
  if (dataDir && existsSync(join(dataDir, "PG_VERSION"))) return plain();
  const file = templatePath(env);
  if (!file) return plain();
  const cached = await readTemplate(file);
  if (cached) {
    const pglite = await startFrom(dataDir, cached);
    if (pglite) return pglite;
  }
  // No usable template: initdb in memory once, keep its dump, and use it (in memory) or load it (directory).
  const fresh = new PGlite();
  await fresh.waitReady;
  let tar: Uint8Array<ArrayBuffer> | undefined;
  try {
    const gz = new Uint8Array(await (await fresh.dumpDataDir("gzip")).arrayBuffer());
    tar = new Uint8Array(await gunzip(gz));
    if (isDataDirTar(tar)) await writeTemplate(file, gz);
    else tar = undefined;
  } catch {
    tar = undefined;
  }
  if (!dataDir) return fresh;
  await fresh.close();
  return (tar && (await startFrom(dataDir, tar))) ?? plain();
}
