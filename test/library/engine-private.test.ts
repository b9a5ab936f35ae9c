/**
 * The facade keeps its engine private: `engine` is not a property of a Toolgraph (own or inherited, string or
 * symbol), the package does not export a way to it, and no door of src/ reaches for it — the doors use the
 * facade's public methods (database, cacheStats, analyticsStatus, onRefit, graph, prepareSearch, warmUp,
 * answerWhileEmbedding), checked here on a real database.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as pkg from "../../src/index.ts";
import { openToolgraph, type Toolgraph } from "../../src/library/toolgraph.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const T0 = Date.parse("2026-01-01T00:00:00Z");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mts|mjs)$/.test(e) ? [p] : [];
  });
}

/** Every key on the object and its prototype chain (strings and symbols' descriptions). */
function keysOf(o: object): string[] {
  const out: string[] = [];
  for (let p: object | null = o; p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    for (const k of Reflect.ownKeys(p)) out.push(typeof k === "symbol" ? (k.description ?? "") : k);
  return out;
}

describe("the facade's engine is private", () => {
  let tg: Toolgraph;
  beforeAll(async () => {
    tg = await openToolgraph({ home: "memory://", project: "priv", embeddings: "hash:16" });
    await tg.importCatalog({
      tools: [
        { id: "a.one", name: "one", description: "open the file" },
        { id: "a.two", name: "two", description: "write the file" },
      ],
    });
    await tg.importTraces(
      [0, 1, 2].map((i) => ({
        id: `r${i}`,
        startedAt: new Date(T0 + i * 60_000).toISOString(),
        success: true,
        steps: [{ tool: "a.one" }, { tool: "a.two" }],
      })),
    );
  });
  afterAll(async () => {
    await tg?.close();
  });

  it("is not reachable on the public object", () => {
    expect("engine" in tg).toBe(false);
    expect((tg as unknown as Record<string, unknown>).engine).toBeUndefined();
    expect(keysOf(tg).filter((k) => /engine/i.test(k))).toEqual([]);
    expect(JSON.stringify(Object.keys(tg))).not.toMatch(/engine/i);
  });

  it("the package exports no way to it", () => {
    expect(Object.keys(pkg).filter((k) => /engine/i.test(k))).toEqual([]);
  });

  it("no file of src/ but the facade names engineOf (the tests' and benches' way in)", () => {
    const naming = files(join(ROOT, "src"))
      .filter((f) => readFileSync(f, "utf8").includes("engineOf"))
      .map((f) => relative(ROOT, f));
    expect(naming).toEqual(["src/library/toolgraph.ts"]);
  });

  it("the doors' methods answer from the engine", async () => {
    const db = tg.database();
    expect(db.backend).toBe("pglite");
    expect(db.location).toBe("memory://");
    expect(db.unreachableAtOpen).toBeUndefined();

    const before = tg.cacheStats();
    await tg.search({ intent: "open the file" });
    await tg.search({ intent: "open the file" });
    const after = tg.cacheStats();
    // The second identical search is a result-cache hit; the first embedded its query once.
    expect(after.results.hits - before.results.hits).toBe(1);
    expect(after.queryEmbeddings.misses - before.queryEmbeddings.misses).toBe(1);

    await tg.settle();
    const a = await tg.analyticsStatus();
    expect(a.fresh).toBe(true);
    expect(Object.keys(a.timingsMs).length).toBeGreaterThan(0);
    expect(a.refreshes.worker + a.refreshes.inThread).toBeGreaterThanOrEqual(0);

    const g = await tg.graph();
    expect(g.project).toBe("priv");
    expect(g.nodes.map((n) => n.id).sort()).toEqual(["a.one", "a.two"]);
    expect(g.nodes.find((n) => n.id === "a.one")!.executions).toBe(3);

    const progress: [number, number][] = [];
    await tg.prepareSearch({ onProgress: (d, t) => progress.push([d, t]) });
    await tg.prepareSearch({ project: "nothing-here" });
    for (const step of ["model", "index", "analytics"] as const) await tg.warmUp(step);
  });

  it("onRefit keeps a listener set before", async () => {
    const heard: string[] = [];
    tg.onRefit((r) => heard.push(`first ${r.kind}`));
    tg.onRefit((r) => heard.push(`second ${r.kind}`));
    await tg.calibrate();
    expect(heard).toEqual(["first calibration"]);
  });
});
