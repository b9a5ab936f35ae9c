/**
 * A new embedded database starts from the cached PGlite template (src/store/pglite-template.ts): a new
 * in-memory database and a new data directory both open and migrate, an existing directory keeps its data, a
 * damaged template is replaced, and two processes that make the template at once both open.
 */
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openConnection } from "../../src/store/connection.ts";
import { MEMORY_SHM, MEMORY_SHM_MIN_FREE, memoryDirRoot } from "../../src/store/data-dir-tar.ts";
import { MIGRATION_NAMES } from "../../src/store/migrate.ts";
import { migrationFileNames, migrationsKey } from "../../src/store/migration-key.ts";
import {
  isDataDirTar,
  PGLITE_SHARED_BUFFERS,
  templateCacheDir,
  templatePath,
} from "../../src/store/pglite-template.ts";
import { templateDirOf } from "../../src/store/pglite-template-dir.ts";
import { fire, startRacer } from "./racers/spawn.ts";

let dir: string;
let cache: string;
const saved = { cache: process.env.TOOLGRAPH_CACHE_DIR, db: process.env.DATABASE_URL };
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tg-template-"));
  cache = join(dir, "cache");
  process.env.TOOLGRAPH_CACHE_DIR = cache;
  delete process.env.DATABASE_URL;
});
afterAll(() => {
  if (saved.cache === undefined) delete process.env.TOOLGRAPH_CACHE_DIR;
  else process.env.TOOLGRAPH_CACHE_DIR = saved.cache;
  if (saved.db !== undefined) process.env.DATABASE_URL = saved.db;
  rmSync(dir, { recursive: true, force: true });
});

async function migrations(home: string): Promise<number> {
  const conn = await openConnection({ home });
  try {
    const r = await sql<{ n: string }>`SELECT count(*) AS n FROM toolgraph_migrations`.execute(conn.db);
    return Number(r.rows[0]!.n);
  } finally {
    await conn.close();
  }
}

function templateIsWhole(): boolean {
  try {
    return isDataDirTar(gunzipSync(readFileSync(templatePath()!)));
  } catch {
    return false;
  }
}

describe("the PGlite template", () => {
  it("lives in TOOLGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/toolgraph, and is named by PGlite's version", () => {
    expect(templateCacheDir({ TOOLGRAPH_CACHE_DIR: "/c" })).toBe("/c");
    expect(templateCacheDir({ XDG_CACHE_HOME: "/x" })).toBe(join("/x", "toolgraph"));
    expect(templatePath()).toMatch(/pglite-\d+\.\d+\.\d+[^/]*-[0-9a-f]{16}\.tar\.gz$/);
  });

  it("is keyed by the migrations: a new migration, or a renamed one, names another template", () => {
    // The files found are the migrations that migrate.ts runs.
    expect(migrationFileNames()).toEqual([...MIGRATION_NAMES].sort());
    expect(migrationsKey(MIGRATION_NAMES)).toBe(migrationsKey());
    expect(templatePath(process.env, migrationsKey(MIGRATION_NAMES))).toBe(templatePath());
    const last = MIGRATION_NAMES[MIGRATION_NAMES.length - 1]!;
    const added = [...MIGRATION_NAMES, "2099-01-01-999-next"];
    const renamed = [...MIGRATION_NAMES.filter((n) => n !== last), "2099-01-01-998-renamed"];
    const paths = new Set([templatePath(), templatePath(process.env, migrationsKey(added))]);
    paths.add(templatePath(process.env, migrationsKey(renamed)));
    expect(paths.size).toBe(3);
  });

  it("a new memory:// database makes the template, the next one starts from it; both migrate", {
    timeout: 120_000,
  }, async () => {
    expect(existsSync(templatePath()!)).toBe(false);
    const first = await migrations("memory://");
    expect(first).toBeGreaterThan(0);
    expect(templateIsWhole()).toBe(true);
    const made = readFileSync(templatePath()!);
    expect(await migrations("memory://")).toBe(first);
    expect(readFileSync(templatePath()!).equals(made)).toBe(true); // used, not rewritten
    // The template holds the migrated schema: its archive has the migrations' table.
    expect(await migrations("memory://")).toBe(MIGRATION_NAMES.length);
    // Kept unpacked too, with its manifest: the next new databases are copies of that directory.
    expect(existsSync(join(templateDirOf(templatePath()!), "PG_VERSION"))).toBe(true);
    expect(existsSync(join(templateDirOf(templatePath()!), "toolgraph-template.json"))).toBe(true);
  });

  for (const [what, damage] of [
    ["a file truncated", (d: string) => writeFileSync(join(d, "PG_VERSION"), "")],
    ["a file missing", (d: string) => rmSync(join(d, "global", "pg_control"))],
    ["its manifest garbled", (d: string) => writeFileSync(join(d, "toolgraph-template.json"), "{")],
  ] as const) {
    it(`the unpacked template with ${what}: new databases still open, and it is made again whole`, {
      timeout: 120_000,
    }, async () => {
      const unpacked = templateDirOf(templatePath()!);
      if (!existsSync(unpacked)) await migrations("memory://");
      const listed = () => {
        const m = JSON.parse(readFileSync(join(unpacked, "toolgraph-template.json"), "utf8"));
        return (m.files as { name: string; size: number }[]).map((f) => `${f.name} ${f.size}`).sort();
      };
      const whole = listed();
      damage(unpacked);
      expect(await migrations("memory://")).toBe(MIGRATION_NAMES.length);
      expect(listed()).toEqual(whole);
      damage(unpacked);
      const home = join(dir, `home-${randomBytes(3).toString("hex")}`);
      expect(await migrations(home)).toBe(MIGRATION_NAMES.length);
      expect(listed()).toEqual(whole);
      expect(readdirSync(templateCacheDir()).filter((f) => /\.(tmp|bad)$/.test(f))).toEqual([]);
    });
  }

  it("every embedded database runs with the small buffer pool", { timeout: 120_000 }, async () => {
    for (const home of ["memory://", join(dir, "home-buffers")]) {
      const conn = await openConnection({ home });
      try {
        const r = await sql<{ shared_buffers: string }>`SHOW shared_buffers`.execute(conn.db);
        expect(r.rows[0]!.shared_buffers).toBe(PGLITE_SHARED_BUFFERS);
      } finally {
        await conn.close();
      }
    }
    expect(PGLITE_SHARED_BUFFERS).toBe("8MB");
  });

  it("a memory:// database lives in a temporary directory that its close removes", { timeout: 120_000 }, async () => {
    const root = memoryDirRoot();
    const mine = () => readdirSync(root).filter((d) => d.startsWith(`toolgraph-memory-${process.pid}-`));
    const before = mine();
    const conn = await openConnection({ home: "memory://" });
    const during = mine().filter((d) => !before.includes(d));
    expect(during).toHaveLength(1);
    expect(existsSync(join(root, during[0]!, "PG_VERSION"))).toBe(true);
    await sql`CREATE TABLE scratch (x int)`.execute(conn.db);
    await conn.close();
    expect(mine()).toEqual(before);
    // A new memory:// database is empty of what the last one wrote.
    const again = await openConnection({ home: "memory://" });
    const r = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_tables WHERE tablename = 'scratch'`.execute(
      again.db,
    );
    await again.close();
    expect(Number(r.rows[0]!.n)).toBe(0);
  });

  it("a memory:// directory goes in the RAM file system when it has room, else in the temporary directory", () => {
    let room = false;
    try {
      const fs = statfsSync(MEMORY_SHM);
      room = fs.bavail * fs.bsize >= MEMORY_SHM_MIN_FREE;
    } catch {
      // none here
    }
    expect(memoryDirRoot()).toBe(room ? MEMORY_SHM : tmpdir());
    expect(MEMORY_SHM_MIN_FREE).toBe(1024 ** 3);
  });

  it("a directory left by a process that is gone is removed by the next memory:// open", {
    timeout: 120_000,
  }, async () => {
    // A pid above the kernel's limit (2^22) is never a live process. Either place a memory:// directory can be in.
    const roots = [...new Set([MEMORY_SHM, tmpdir()])].filter((r) => existsSync(r));
    const stale = roots.map((r) => join(r, "toolgraph-memory-4194305-leftover"));
    for (const s of stale) {
      mkdirSync(s, { recursive: true });
      writeFileSync(join(s, "PG_VERSION"), "17\n");
    }
    const conn = await openConnection({ home: "memory://" });
    await conn.close();
    expect(stale.filter((s) => existsSync(s))).toEqual([]);
  });

  it("a new data directory starts from the template, migrates, and keeps its data when reopened", {
    timeout: 120_000,
  }, async () => {
    const home = join(dir, "home");
    const n = await migrations(home);
    expect(n).toBeGreaterThan(0);
    expect(existsSync(join(home, "PG_VERSION"))).toBe(true);
    const conn = await openConnection({ home });
    await sql`CREATE TABLE kept (x int)`.execute(conn.db);
    await sql`INSERT INTO kept VALUES (42)`.execute(conn.db);
    await conn.close();
    const again = await openConnection({ home });
    const r = await sql<{ x: number }>`SELECT x FROM kept`.execute(again.db);
    await again.close();
    expect(r.rows).toEqual([{ x: 42 }]);
    expect(readdirSync(home)).not.toContain("toolgraph.lock"); // released on close
  });

  for (const [what, bytes] of [
    ["random bytes", () => randomBytes(4096)],
    ["a gzip of random bytes", () => gzipSync(randomBytes(4096))],
    ["a truncated template", () => readFileSync(templatePath()!).subarray(0, 100_000)],
  ] as const) {
    it(`${what} in place of the template: the open falls back to initdb and replaces it`, {
      timeout: 120_000,
    }, async () => {
      rmSync(templateDirOf(templatePath()!), { recursive: true, force: true }); // else it is copied, not the archive
      writeFileSync(templatePath()!, bytes());
      expect(templateIsWhole()).toBe(false);
      expect(await migrations("memory://")).toBeGreaterThan(0);
      expect(templateIsWhole()).toBe(true);
    });
  }

  it("a damaged template and a new data directory: the directory still opens and migrates", {
    timeout: 120_000,
  }, async () => {
    rmSync(templateDirOf(templatePath()!), { recursive: true, force: true });
    writeFileSync(templatePath()!, gzipSync(randomBytes(4096)));
    expect(await migrations(join(dir, "home2"))).toBeGreaterThan(0);
    expect(templateIsWhole()).toBe(true);
  });

  it("two processes that make the template at once both open, and leave one whole template", {
    timeout: 240_000,
  }, async () => {
    rmSync(cache, { recursive: true, force: true });
    const go = join(dir, "go");
    const racers = [0, 1].map(() => startRacer("template-racer.ts", { go }));
    await fire(racers, go);
    expect(await Promise.all(racers.map((r) => r.exit))).toEqual([0, 0]);
    const counts = racers.map((r) => /migrations (\d+)/.exec(r.stdout)?.[1]);
    expect(counts[0]).toBeDefined();
    expect(counts).toEqual([counts[0], counts[0]]);
    expect(templateIsWhole()).toBe(true);
    expect(readdirSync(cache).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
