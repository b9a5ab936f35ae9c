/**
 * The data directory's cache (src/store/data-dir-cache.ts): values round-trip byte for byte under their key,
 * a file holding another key is a miss, a kind keeps at most maxEntries files (the oldest written go first),
 * a write that cannot happen is dropped without an error, and only an existing embedded data directory has a
 * cache (not memory://, not PostgreSQL, not a directory not created yet).
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataDirCache, dataDirCacheFor } from "../../src/store/data-dir-cache.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "tg-ddc-"));
  dirs.push(d);
  return d;
}

describe("DataDirCache", () => {
  it("returns what was written under the same key, byte for byte, and misses other keys and kinds", () => {
    const c = new DataDirCache(dir());
    const bytes = Uint8Array.from([0, 1, 2, 255, 128]);
    c.write("query-vectors", "model\u0000abc", bytes);
    expect([...(c.read("query-vectors", "model\u0000abc") ?? [])]).toEqual([0, 1, 2, 255, 128]);
    expect(c.read("query-vectors", "model\u0000abd")).toBeUndefined();
    expect(c.read("guard-prior", "model\u0000abc")).toBeUndefined();
    c.write("query-vectors", "model\u0000abc", Uint8Array.from([7]));
    expect([...(c.read("query-vectors", "model\u0000abc") ?? [])]).toEqual([7]);
  });

  it("treats a file that holds another key (or is cut short) as a miss", () => {
    const d = dir();
    const c = new DataDirCache(d);
    c.write("k", "one", Uint8Array.from([1, 2, 3]));
    const folder = join(d, "toolgraph-cache", "k");
    const [name] = readdirSync(folder);
    const file = join(folder, name!);
    const original = readFileSync(file);
    // Same length, one byte of the stored key changed: a collision or another layout, never a hit.
    const other = Buffer.from(original);
    other[4] = "t".charCodeAt(0);
    writeFileSync(file, other);
    expect(c.read("k", "one")).toBeUndefined();
    writeFileSync(file, original.subarray(0, 5));
    expect(c.read("k", "one")).toBeUndefined();
    writeFileSync(file, original);
    expect([...(c.read("k", "one") ?? [])]).toEqual([1, 2, 3]);
  });

  it("keeps at most maxEntries per kind: past it, the oldest written go down to 90 % of the bound", () => {
    const d = dir();
    const c = new DataDirCache(d, { maxEntries: 3 });
    const folder = join(d, "toolgraph-cache", "k");
    for (let i = 0; i < 5; i++) {
      c.write("k", `key-${i}`, Uint8Array.from([i]));
      // written one second apart, oldest first (a file system's clock may be coarser than the loop)
      utimesSync(join(folder, nameOf(`key-${i}`)), 1_000 + i, 1_000 + i);
    }
    expect(readdirSync(folder)).toHaveLength(3);
    expect(c.read("k", "key-0")).toBeUndefined();
    expect(c.read("k", "key-1")).toBeUndefined();
    expect([2, 3, 4].map((i) => c.read("k", `key-${i}`)?.[0])).toEqual([2, 3, 4]);
    // The 4th write trimmed to floor(0.9 × 3) = 2 (key-2, key-3), the 5th fitted under the bound again.
    // Another instance (another process) counts the directory first: its write makes 4, trimmed to 2.
    const again = new DataDirCache(d, { maxEntries: 3 });
    again.write("k", "key-5", Uint8Array.from([5]));
    expect(readdirSync(folder)).toHaveLength(2);
    expect([4, 5].map((i) => again.read("k", `key-${i}`)?.[0])).toEqual([4, 5]);
  });

  it("drops a write it cannot make, without an error", () => {
    const d = dir();
    mkdirSync(join(d, "toolgraph-cache"));
    chmodSync(join(d, "toolgraph-cache"), 0o500);
    const c = new DataDirCache(d);
    try {
      expect(() => c.write("k", "key", Uint8Array.from([1]))).not.toThrow();
      if (process.getuid?.() !== 0) expect(c.read("k", "key")).toBeUndefined();
    } finally {
      chmodSync(join(d, "toolgraph-cache"), 0o700);
    }
  });

  it("rejects a kind that is not a plain folder name", () => {
    const c = new DataDirCache(dir());
    expect(() => c.read("../x", "k")).toThrow(/bad kind/);
  });
});

describe("dataDirCacheFor", () => {
  it("exists for an embedded data directory only, and never creates the directory itself", () => {
    const d = dir();
    expect(dataDirCacheFor({ home: "memory://" })).toBeUndefined();
    expect(dataDirCacheFor({ home: d, database: "postgres://u@127.0.0.1:1/x" })).toBeUndefined();
    expect(dataDirCacheFor({ home: d })?.root).toBe(join(d, "toolgraph-cache"));
    const missing = join(d, "not-yet");
    const c = dataDirCacheFor({ home: missing })!;
    c.write("k", "key", Uint8Array.from([1]));
    expect(existsSync(missing)).toBe(false);
    expect(c.read("k", "key")).toBeUndefined();
    mkdirSync(missing);
    c.write("k", "key", Uint8Array.from([1]));
    expect(c.read("k", "key")?.[0]).toBe(1);
  });
});

/** The file name of a key (its sha256, 40 hex digits), as the cache names it. */
function nameOf(key: string): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 40);
}
