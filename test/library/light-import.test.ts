/**
 * Importing the library loads none of what only an open uses (docs/decisions/everyday-budget.md): no engine,
 * database driver, embedded database, migrations or graph analytics, so the open can start the embedded
 * database on its thread before it loads them. Then an open of `memory://` loads them and answers. Each case
 * runs a real process (the sources through tsx) with a module hook that writes every module it resolves.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Registers a resolve hook that appends each resolved URL to $TG_MODULE_TRACE (after tsx's, given first). */
const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(`
import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(\`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.TG_MODULE_TRACE, r.url + "\\\\n");
  return r;
}\`));
`)}`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The modules a script resolves (run from the repository root), and what it printed. */
function loadedModules(script: string): Promise<{ modules: string[]; out: string; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tg-light-"));
  dirs.push(dir);
  const trace = join(dir, "modules.txt");
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "--import", TRACE_HOOK, "--input-type=module", "-e", script],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, TG_MODULE_TRACE: trace, TOOLGRAPH_EMBEDDINGS: "hash:16" } },
      (error, out, err) => {
        if (error) return fail(new Error(`${error.message}\n${err}`));
        done({ modules: [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))], out, err });
      },
    );
  });
}

/** What only an open needs: the driver, the embedded database, the analytics, and our modules that use them. */
const OPEN_ONLY = [
  "/node_modules/pg/",
  "/node_modules/@electric-sql/pglite/",
  "/node_modules/graphology",
  "/node_modules/ml-matrix/",
  "/src/view/engine.ts",
  "/src/view/analytics.ts",
  "/src/store/connection.ts",
  "/src/store/migrate.ts",
  "/migrations/",
  "/src/library/runtime.ts",
];

describe("importing the library", () => {
  it("loads no engine, driver, embedded database, migrations or analytics", async () => {
    const { modules } = await loadedModules(`await import("./src/index.ts");`);
    expect(modules.some((m) => m.endsWith("/src/library/toolgraph.ts"))).toBe(true);
    expect(modules.filter((m) => OPEN_ONLY.some((p) => m.includes(p)))).toEqual([]);
  }, 60_000);

  it("an open loads them and answers", async () => {
    const { modules, out } = await loadedModules(`
      const { openToolgraph } = await import("./src/index.ts");
      const tg = await openToolgraph({ home: "memory://", project: "p" });
      await tg.importCatalog({ tools: [{ id: "git.push", description: "Push commits" }] });
      const found = await tg.search({ intent: "push commits", limit: 1 });
      console.log(JSON.stringify({ top: found.results[0]?.tool, location: tg.database().location }));
      await tg.close();`);
    expect(JSON.parse(out.trim())).toEqual({ top: "git.push", location: "memory://" });
    for (const p of ["/src/view/engine.ts", "/src/store/connection.ts", "/src/library/runtime.ts"])
      expect(modules.some((m) => m.includes(p))).toBe(true);
  }, 120_000);
});
