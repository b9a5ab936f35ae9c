/**
 * A command loads only what it needs (docs/decisions/fresh-machine.md): `--version` and `--help` load no
 * database driver, no query builder, no graph library, no model and no server; a command that does not
 * embed (stats, dag) loads no embedding model. Each case runs the real executable (src/cli/toolgraph.mjs)
 * with a module hook that writes every module the process resolves to a file.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, freshTarget, type Target } from "./harness.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "src/cli/toolgraph.mjs");

/** Registers a resolve hook that appends each resolved URL to $TG_MODULE_TRACE. */
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

/** The modules `toolgraph ARGS` resolves, and its exit code. */
function loadedModules(args: string[]): Promise<{ code: number; modules: string[]; err: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tg-trace-"));
  dirs.push(dir);
  const trace = join(dir, "modules.txt");
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", TRACE_HOOK, BIN, ...args],
      { encoding: "utf8", env: { ...process.env, TG_MODULE_TRACE: trace, TOOLGRAPH_EMBEDDINGS: "use-lite" } },
      (error, _out, err) => {
        let modules: string[] = [];
        try {
          modules = [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))];
        } catch {}
        done({ code: error ? Number(error.code ?? -1) : 0, modules, err });
      },
    );
  });
}

/** Packages and source folders the start-up of --version and --help must not touch. */
const HEAVY_PACKAGES = [
  "kysely",
  "pg",
  "@electric-sql/pglite",
  "@energetic-ai/embeddings",
  "@energetic-ai/core",
  "graphology",
  "ml-matrix",
  "zod",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/core",
];
const HEAVY_SOURCES = [
  "src/store/",
  "src/jobs/",
  "src/view/",
  "src/gate/",
  "src/server/",
  "src/gateway/",
  "src/mcp/",
  "src/embeddings/",
  "src/library/toolgraph.ts",
];

function heavy(modules: string[]): string[] {
  return modules.filter(
    (url) =>
      HEAVY_PACKAGES.some((p) => url.includes(`/node_modules/${p}/`)) ||
      HEAVY_SOURCES.some((s) => url.startsWith(`file://${ROOT}/${s}`)),
  );
}

describe("what a command loads", () => {
  for (const args of [["--version"], ["--help"], ["search", "--help"], ["gateway", "--help"]]) {
    it(`toolgraph ${args.join(" ")} loads no database, model, graph library or server`, async () => {
      const r = await loadedModules(args);
      expect(r.code, r.err).toBe(0);
      expect(r.modules.some((u) => u.startsWith(`file://${ROOT}/src/cli/main.ts`))).toBe(true);
      expect(heavy(r.modules)).toEqual([]);
    });
  }
});

describe("commands that do not embed", () => {
  let target: Target;
  beforeAll(async () => {
    target = await freshTarget();
    const catalog = {
      tools: [
        { id: "a.one", description: "first" },
        { id: "a.two", description: "second" },
      ],
    };
    expect((await cli(target, JSON.stringify(catalog)).run("import", "catalog", "-")).code).toBe(0);
  });
  afterAll(() => target?.dispose());

  for (const args of [["stats"], ["dag", "a.one", "a.two"]]) {
    it(`toolgraph ${args[0]} does not load the embedding model`, async () => {
      const r = await loadedModules([...args, ...target.argv]);
      expect(r.code, r.err).toBe(0);
      // The trace sees what a command loads: here the database.
      expect(r.modules.some((u) => u.includes("/node_modules/kysely/"))).toBe(true);
      expect(r.modules.some((u) => u.startsWith(`file://${ROOT}/src/store/connection.ts`))).toBe(true);
      expect(
        r.modules.filter((u) => u.includes("/node_modules/@energetic-ai/") || u.includes("/node_modules/@tensorflow/")),
      ).toEqual([]);
    });
  }
});
