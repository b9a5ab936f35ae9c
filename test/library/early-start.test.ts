/**
 * The open starts the embedded database before loading the engine (src/library/early-start.ts) only where it
 * would start exactly that database and can leave nothing behind; a start the open does not take is closed
 * (its data directory's lock released).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEarly } from "../../src/library/early-start.ts";
import { openToolgraph } from "../../src/library/toolgraph.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), "tg-early-"));
  dirs.push(d);
  return d;
};

describe("the open's early start", () => {
  it("starts nothing for a server, tiered WebAssembly, no migrations, or a directory without a database", () => {
    const none = join(fresh(), "none");
    expect(startEarly({ database: "postgres://u@127.0.0.1:1/x", home: "memory://" })).toBeUndefined();
    expect(startEarly({ home: "memory://", pgliteTiered: true })).toBeUndefined();
    expect(startEarly({ home: "memory://", migrate: false })).toBeUndefined();
    expect(startEarly({ home: none })).toBeUndefined();
    expect(existsSync(none)).toBe(false);
  });

  it("starts memory:// with no lock, and the open takes it", async () => {
    const started = startEarly({ home: "memory://" });
    expect(started).toBeDefined();
    const s = await started!;
    expect(s.home).toBe("memory://");
    expect(s.lock).toBeUndefined();
    const tg = await openToolgraph({ home: "memory://", embeddings: "hash:16", started });
    try {
      await tg.importCatalog({ tools: [{ id: "a.one", description: "open the file" }] });
      expect((await tg.stats()).tools).toBe(1);
    } finally {
      await tg.close();
    }
  }, 60_000);

  it("a directory's database started for an open that then fails is closed: its lock is released", async () => {
    const home = join(fresh(), "db");
    const first = await openToolgraph({ home, embeddings: "hash:16" });
    await first.importCatalog({ tools: [{ id: "a.one", description: "open the file" }] });
    await first.close();
    // A bad embedding spec fails after the early start took the directory's lock.
    await expect(openToolgraph({ home, embeddings: "nonsense:1" })).rejects.toThrow(/embedding/i);
    const again = await openToolgraph({ home, embeddings: "hash:16" });
    try {
      expect((await again.stats()).tools).toBe(1);
    } finally {
      await again.close();
    }
  }, 120_000);

  it("a new directory with a bad option is not created", async () => {
    const home = join(fresh(), "new");
    await expect(openToolgraph({ home, embeddings: "nonsense:1" })).rejects.toThrow(/embedding/i);
    expect(existsSync(home)).toBe(false);
  });
});
