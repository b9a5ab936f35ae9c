/**
 * The embedded database started before the library loads (src/store/pglite-early.ts, a one-shot CLI call):
 * the open takes it (one database, one lock, released at close), closes a start for another directory, and
 * fails as it would itself when the start failed (the directory locked by another open).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openToolgraph } from "../../src/library/toolgraph.ts";
import { startEmbedded } from "../../src/store/pglite-early.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), "tg-early-"));
  dirs.push(d);
  return d;
}
const options = { embeddings: "hash:64", recommendationLog: { enabled: false } } as const;
const CATALOG = { tools: [{ id: "git.push", description: "Push local commits to the remote repository" }] };

describe("startEmbedded", () => {
  it("is taken by the open of its directory, and its lock is released by the close", async () => {
    const home = dir();
    const started = startEmbedded(home);
    const tg = await openToolgraph({ ...options, home, started });
    await tg.importCatalog(CATALOG);
    expect((await tg.stats()).tools).toBe(1);
    await tg.close();
    const again = await openToolgraph({ ...options, home });
    expect((await again.stats()).tools).toBe(1);
    await again.close();
  });

  it("is closed (lock released) when the open names another directory", async () => {
    const [a, b] = [dir(), dir()];
    const tg = await openToolgraph({ ...options, home: b, started: startEmbedded(a) });
    await tg.importCatalog(CATALOG);
    await tg.close();
    const other = await openToolgraph({ ...options, home: a });
    expect((await other.stats()).tools).toBe(0);
    await other.close();
  });

  it("fails the open as the open would fail when the directory is held", async () => {
    const home = dir();
    const holder = await openToolgraph({ ...options, home });
    const started = startEmbedded(home);
    started.catch(() => {});
    const err = await openToolgraph({ ...options, home, started }).catch((e: Error) => e);
    const direct = await openToolgraph({ ...options, home }).catch((e: Error) => e);
    await holder.close();
    expect(err).toBeInstanceOf(Error);
    expect((err as { code?: string }).code).toBe((direct as { code?: string }).code);
    expect((err as Error).message).toMatch(/in use/);
  });
});
