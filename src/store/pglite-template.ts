/**
 * Opening the embedded database (PGlite) cheaply. Measured in docs/decisions/everyday-budget.md.
 *
 * A new database starts from a template instead of running initdb and the migrations: a dump of a data
 * directory that was initialised and migrated once per PGlite version and migration set, kept in a cache
 * directory.
 * - Where: TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph; the file name
 *   carries PGlite's version and a hash of the migration files (`migrationsKey`), so an upgrade or a new
 *   migration makes a new template and never loads an old one. The open still checks the migrations (one
 *   select when there is nothing to do), so a template that missed one is caught up, never wrong.
 * - Slim: 1 MB WAL segments, at most a few kept (min_wal_size 2 MB, max_wal_size 64 MB), and only the
 *   `postgres` database (template0 and template1 dropped: nothing here creates a database): 2.5 MB gzipped
 *   and 15 MB written out, instead of 4.5 and 39.
 * - Kept unpacked too (`….d/` beside the archive, pglite-template-dir.ts): a new database is a copy of that
 *   directory (copied by the kernel), the archive read only when it is missing or damaged, then unpacked with
 *   Node's file calls (src/store/data-dir-tar.ts). Either goes into a new data directory, or, for `memory://`,
 *   into a temporary directory that the database's close removes. PGlite then reads it through the OS page
 *   cache; loading the archive into PGlite's own in-memory file system (still the fallback when no temporary
 *   directory can be made) cost 0.35 s and 85 MB more, and unpacking it here 35 MB more than the copy.
 * - Written atomically (a temporary file of this process, then rename), so processes that create it at once
 *   each write a whole file and the last rename wins; readers never see a partial one.
 * - Checked before PGlite sees it: gzip's CRC and length, then every tar header's checksum and a PG_VERSION
 *   entry (PGlite reports a corrupt archive from a stream whose error no caller can catch, so a bad file
 *   must never reach it). A bad or unreadable template is replaced by a new one; when none can be written
 *   or loaded the database is created by initdb as before. Nothing is printed.
 * - Only a data directory without PG_VERSION is new; an existing one opens as before.
 *
 * Every open (new or existing) runs with shared_buffers = 8 MB instead of initdb's 128 MB: PostgreSQL
 * touches all of its buffer pool at start (about 120 MB of resident memory and 0.2 s), and under PGlite
 * every page it would cache is already in the OS page cache (memory:// is a temporary directory too). 16 MB
 * then 8 MB: each halving saved its share of peak memory (8 MB less for 16 → 8) at the same CPU, for the
 * library's open, a CLI search and the 600-trace demo's import alike (docs/decisions/everyday-budget.md).
 * PGlite's WebAssembly is compiled by V8's baseline compiler only (Liftoff, `--liftoff-only` set while
 * this one module compiles, then unset): tiering its 9 MB up to the optimising compiler cost more CPU and
 * 50 MB than the faster code saved over the first few thousand queries, which is a CLI call's or a short
 * script's whole life. A server asks for the tiered code (`tiered`). The compiled module is kept for the process.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { gunzip as gunzipCb } from "node:zlib";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import type { PoolConfig } from "pg";
import { extractDataDir, isDataDirTar, memoryDataDir } from "./data-dir-tar.ts";
import { migrationsKey } from "./migration-key.ts";
import { copyTemplateDir, removeTemplateDir, templateDirOf, writeTemplateDir } from "./pglite-template-dir.ts";
import { userCacheDir } from "./user-cache.ts";

export { isDataDirTar };

const gunzip = promisify(gunzipCb);

/** PostgreSQL's buffer pool under PGlite (see the header). */
export const PGLITE_SHARED_BUFFERS = "8MB";
/** The start parameters of every open: PGlite's own, with the smaller buffer pool. */
const START_PARAMS = [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
/** The WAL bounds of the template (kept in its postgresql.auto.conf too); they need its 1 MB segments. */
const TEMPLATE_WAL = ["-c", "min_wal_size=2MB", "-c", "max_wal_size=64MB"];
/** The template's initdb and settings (see the header); the WAL bounds need its 1 MB segments. */
const TEMPLATE_INITDB = ["--wal-segsize=1"];
const TEMPLATE_SETUP = [
  "ALTER SYSTEM SET min_wal_size = '2MB'",
  "ALTER SYSTEM SET max_wal_size = '64MB'",
  "ALTER DATABASE template0 IS_TEMPLATE false ALLOW_CONNECTIONS false",
  "DROP DATABASE template0",
  "ALTER DATABASE template1 IS_TEMPLATE false",
  "DROP DATABASE template1",
];
/** Changes with what the template holds beyond the migrations, so an old layout is never loaded. */
const TEMPLATE_LAYOUT = "slim-1";

/** The cache directory (user-cache.ts): TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, else ~/.cache/toolgraph. */
export const templateCacheDir = userCacheDir;

let pgliteDir: string | null | undefined;
let pgliteVersion: string | null | undefined;
/** PGlite's package version (its package.json is not exported: found beside its entry point), or null. */
function installedPgliteVersion(): string | null {
  if (pgliteVersion !== undefined) return pgliteVersion;
  try {
    let dir = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
    pgliteDir = dir;
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

/**
 * The template's path for the installed PGlite and a migration set (`migrations`: migrationsKey's hash, default
 * this code's), or undefined when PGlite's version is unknown.
 */
export function templatePath(
  env: NodeJS.ProcessEnv = process.env,
  migrations: string = migrationsKey(),
): string | undefined {
  const version = installedPgliteVersion();
  if (!version) return undefined;
  const key = createHash("sha256").update(`${TEMPLATE_LAYOUT}\0${migrations}`).digest("hex").slice(0, 16);
  return join(templateCacheDir(env), `pglite-${version}-${key}.tar.gz`);
}

let wasmModule: Promise<WebAssembly.Module | undefined> | undefined;
/**
 * PGlite's WebAssembly, compiled once per process by the baseline compiler only (see the header); undefined
 * (PGlite then compiles it itself) when the file cannot be found or the flags cannot be set. Left alone when
 * the process was started with its own WebAssembly tiering flags.
 */
function pgliteWasm(): Promise<WebAssembly.Module | undefined> {
  wasmModule ??= (async () => {
    installedPgliteVersion();
    if (!pgliteDir) return undefined;
    const bytes = await readFile(join(pgliteDir, "pglite.wasm"));
    const given = `${process.execArgv.join(" ")} ${process.env.NODE_OPTIONS ?? ""}`;
    const own = !/liftoff|wasm-tier|wasm-dynamic-tiering/.test(given);
    if (own) setFlagsFromString("--liftoff-only");
    try {
      return await WebAssembly.compile(bytes);
    } finally {
      if (own) setFlagsFromString("--no-liftoff-only");
    }
  })().catch(() => undefined);
  return wasmModule;
}

/** Which compiled module a PGlite runs: the baseline-only one of this process, or none (PGlite compiles, tiering up). */
type Wasm = Promise<WebAssembly.Module | undefined>;
const TIERED: Wasm = Promise.resolve(undefined);

/** A PGlite with the start parameters of every open and the compiled module `wasm`. */
async function newPGlite(options: PGliteOptions, wasm: Wasm, extraParams: string[] = []): Promise<PGlite> {
  const pgliteWasmModule = await wasm;
  const pglite = new PGlite({
    ...options,
    startParams: [...START_PARAMS, ...extraParams],
    ...(pgliteWasmModule ? { pgliteWasmModule } : {}),
  });
  await pglite.waitReady;
  return pglite;
}

/** The template's tar, checked; undefined when it is missing, unreadable or damaged. */
async function readTemplate(file: string): Promise<Uint8Array | undefined> {
  try {
    const tar = await gunzip(await readFile(file));
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

/** PGlite started from `tar` in PGlite's in-memory file system (when no directory can hold it); undefined when it does not start. */
async function startInMemory(tar: Uint8Array, wasm: Wasm): Promise<PGlite | undefined> {
  let pglite: PGlite | undefined;
  try {
    const loadDataDir = new Blob([tar as Uint8Array<ArrayBuffer>], { type: "application/x-tar" });
    pglite = await newPGlite({ loadDataDir }, wasm);
    await pglite.query("SELECT 1");
    return pglite;
  } catch {
    await pglite?.close().catch(() => {});
    return undefined;
  }
}

/** How a new directory gets its files: unpacked from the archive, or copied from the unpacked template. */
type Fill = (dir: string) => Promise<boolean>;

/** PGlite started in `dir` after `fill` wrote into it; undefined (and what it wrote removed) when it does not start. */
async function startInDir(dir: string, fill: Fill, wasm: Wasm): Promise<PGlite | undefined> {
  const before = existsSync(dir) ? new Set(readdirSync(dir)) : new Set<string>();
  let pglite: PGlite | undefined;
  try {
    if (!(await fill(dir))) throw new Error("no template");
    pglite = await newPGlite({ dataDir: dir }, wasm);
    await pglite.query("SELECT 1");
    return pglite;
  } catch {
    await pglite?.close().catch(() => {});
    // What the failed start wrote goes, so initdb finds the directory as it was (the lock file stays).
    if (existsSync(dir))
      for (const entry of readdirSync(dir))
        if (!before.has(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
    return undefined;
  }
}

/**
 * A `memory://` database filled by `fill`: in a temporary directory removed on close, else (with `tar`) in
 * PGlite's own memory.
 */
async function startMemory(fill: Fill, wasm: Wasm, tar?: Uint8Array): Promise<PGlite | undefined> {
  const mem = await memoryDataDir().catch(() => undefined);
  const pglite = mem === undefined ? undefined : await startInDir(mem.dir, fill, wasm);
  if (!pglite) {
    await mem?.remove().catch(() => {});
    return tar && startInMemory(tar, wasm);
  }
  const close = pglite.close.bind(pglite);
  pglite.close = async () => {
    try {
      await close();
    } finally {
      await mem!.remove().catch(() => {});
    }
  };
  return pglite;
}

/** A new database (`dataDir`, or memory:// when undefined) from the unpacked template; undefined when it cannot. */
async function startFromTemplateDir(
  path: string,
  dataDir: string | undefined,
  wasm: Wasm,
): Promise<PGlite | undefined> {
  if (!existsSync(path)) return undefined;
  const fill: Fill = async (dir) => (await copyTemplateDir(path, dir)) === "copied";
  const pglite = dataDir ? await startInDir(dataDir, fill, wasm) : await startMemory(fill, wasm);
  if (!pglite) await removeTemplateDir(path); // damaged, or copied but PostgreSQL refused it: made again below
  return pglite;
}

/**
 * Runs the migrations on a bare PGlite (the template's), through the same kysely migrator as every open. Its
 * modules load only here: a database started from a template never needs them on this thread.
 */
async function migrateBare(pglite: PGlite): Promise<void> {
  const [{ createPgConfig }, { Kysely, PostgresDialect }, { default: pg }, { migrateToLatest }] = await Promise.all([
    import("@electric-sql/pglite/node-postgres"),
    import("kysely"),
    import("pg"),
    import("./migrate.ts"),
  ]);
  const pool = new pg.Pool(createPgConfig(pglite) as unknown as PoolConfig);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/** A new template: initdb in memory, slimmed and migrated; its dump (gzip) and the running database. */
async function makeTemplate(wasm: Wasm): Promise<{ pglite: PGlite; gz?: Uint8Array; tar?: Uint8Array }> {
  const pglite = await newPGlite({ initDbStartParams: TEMPLATE_INITDB }, wasm, TEMPLATE_WAL);
  try {
    for (const statement of TEMPLATE_SETUP) await pglite.exec(statement);
    await migrateBare(pglite);
    await pglite.exec("CHECKPOINT");
    const gz = new Uint8Array(await (await pglite.dumpDataDir("gzip")).arrayBuffer());
    const tar = await gunzip(gz);
    return isDataDirTar(tar) ? { pglite, gz, tar } : { pglite };
  } catch {
    return { pglite };
  }
}

export interface OpenPGliteOptions {
  /**
   * A new database starts migrated, from the cached template (default true). False: an empty database by
   * initdb, as the migrations' own tests need it.
   */
  migrated?: boolean | undefined;
  /**
   * Let V8 tier PGlite's WebAssembly up to its optimising compiler (default false: baseline only, see the
   * header). Worth it in a long-running process: steady-state queries ran 1.6× faster tiered (a catalog join,
   * the last 500 of 3000), and the tiered process overtook the baseline one after about 4000 such queries.
   */
  tiered?: boolean | undefined;
}

/**
 * The embedded database for `home` (`memory://` or a data directory): an existing directory opens as it is;
 * a new database starts from the cached migrated template, which is made when missing or bad.
 */
export async function openPGlite(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
  options: OpenPGliteOptions = {},
): Promise<PGlite> {
  const dataDir = home === "memory://" ? undefined : home;
  // Compiled on V8's threads while the template is read and written out.
  const wasm = options.tiered ? TIERED : pgliteWasm();
  const plain = () => newPGlite(dataDir === undefined ? {} : { dataDir }, wasm);
  if (dataDir && existsSync(join(dataDir, "PG_VERSION"))) return plain();
  const file = options.migrated === false ? undefined : templatePath(env);
  if (!file) return plain();
  const unpacked = templateDirOf(file);
  const copied = await startFromTemplateDir(unpacked, dataDir, wasm);
  if (copied) return copied;
  let tar = await readTemplate(file);
  if (!tar) {
    // No usable template: make one in memory and keep its dump; a memory:// database is that one.
    const made = await makeTemplate(wasm);
    if (made.gz) await writeTemplate(file, made.gz);
    if (made.tar) await writeTemplateDir(made.tar, unpacked);
    if (!dataDir) return made.pglite;
    await made.pglite.close();
    tar = made.tar;
  }
  if (!tar) return plain();
  const archive = tar;
  const fill: Fill = async (dir) => {
    await extractDataDir(archive, dir);
    return true;
  };
  const started = dataDir ? await startInDir(dataDir, fill, wasm) : await startMemory(fill, wasm, archive);
  // The archive started a database: it is whole, and the next open copies it unpacked.
  if (started && !existsSync(unpacked)) await writeTemplateDir(archive, unpacked);
  return started || plain();
}
