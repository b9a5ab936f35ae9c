/**
 * The bench measures the package as a user gets it: a bench file imports the package's public API
 * (src/index.ts and the subpath exports declared in package.json), `algorithms/`, and other bench files —
 * not the internals of src/ and not the tests' helpers. Imports that still reach further are listed below
 * with the file that makes them; the list may only shrink (the test fails on a new one, and on an entry that
 * no longer occurs). Type-only imports count too: they tie the bench to an internal shape.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return e === "node_modules" || e === "data" ? [] : files(p);
    return /\.(ts|mts|mjs|js)$/.test(e) && !e.endsWith(".d.ts") ? [p] : [];
  });
}

/** Every relative import of a file (static, type-only, re-export, dynamic), as repo paths. */
function importsOf(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const re = /\bfrom\s+["'](\.[^"']+)["']|\bimport\s*\(?\s*["'](\.[^"']+)["']/g;
  const out: string[] = [];
  for (let m = re.exec(code); m !== null; m = re.exec(code))
    out.push(relative(ROOT, resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, ".ts"))));
  return out;
}

/** src/index.ts and the source of every subpath export of package.json (its types "./dist/src/x.d.ts" → "src/x.ts"). */
function publicEntries(): Set<string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  const out = new Set<string>(["src/index.ts"]);
  for (const target of Object.values(pkg.exports)) {
    const types = typeof target === "string" ? undefined : target.types;
    if (types?.startsWith("./dist/src/")) out.add(types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts"));
  }
  return out;
}

/**
 * Imports of internals that remain, as "bench file → imported file"; may only shrink. Each says why it stays
 * (docs/decisions/layout.md, "Not done yet"): mostly a bench whose subject is the internal itself (the cost of a
 * scoring core apart from its job, of the store's writers on their own connection), which goes when that core
 * lives in algorithms/ or has a library-only read. `src/library/toolgraph.ts` is `engineOf(tg)`: the engine
 * those internals take.
 */
const KNOWN = new Set<string>([
  // Each job against its scoring core on the same read model: the job function alone (runSuggest, runBuildDag),
  // the pattern triggers, and the facade without the log its control. Search, memory recall and next step go
  // through tg.searchModel() / tg.nextStepModel().
  "bench/job-overhead.ts → src/jobs/dag.ts",
  "bench/job-overhead.ts → src/jobs/next.ts",
  "bench/job-overhead.ts → src/library/toolgraph.ts",
  "bench/job-overhead.ts → src/view/patterns.ts",
  // The gate alone (prepare, gate), the query embedder's cache stats and analyticsCache.refresh in this thread.
  // The next-step, DAG and memory-recall cores: tg.nextStepModel(), tg.dagModel(), tg.searchModel().recall.
  "bench/latency.ts → src/library/toolgraph.ts",
  // The store's pruning and insert costs on their own connection (store/recommendations.ts).
  "bench/log-retention.ts → src/store/connection.ts",
  "bench/log-retention.ts → src/store/recommendations.ts",
  // scorePatterns's event-loop gaps on a hand-built GraphSnapshot at the pattern limit (the slicing is its subject).
  "bench/pattern-worst-case.ts → src/view/graph-snapshot.ts",
  "bench/pattern-worst-case.ts → src/view/patterns.ts",
  // A second facade on one engine with the log off (the request-path control), and the log's batch inserts.
  "bench/recommendation-log.ts → src/library/toolgraph.ts",
  "bench/recommendation-log.ts → src/store/connection.ts",
  "bench/recommendation-log.ts → src/store/recommendations.ts",
]);

const PUBLIC = publicEntries();
const REACHING = files(join(ROOT, "bench")).flatMap((f) => {
  const from = relative(ROOT, f);
  return [
    ...new Set(
      importsOf(f, readFileSync(f, "utf8")).filter(
        (t) => t.startsWith("test/") || (t.startsWith("src/") && !PUBLIC.has(t)),
      ),
    ),
  ].map((t) => `${from} → ${t}`);
});

describe("bench imports", () => {
  it("the public entries are the package's index and its declared subpath exports", () => {
    expect(PUBLIC.has("src/index.ts")).toBe(true);
    expect(PUBLIC.has("src/adapters/anthropic.ts")).toBe(true);
    for (const sub of ["demo", "embeddings", "formats", "gateway"])
      expect(PUBLIC.has(`src/${sub}/index.ts`)).toBe(true);
  });

  it("no bench file imports src/ internals or test/ helpers beyond the listed ones", () => {
    expect(REACHING.filter((x) => !KNOWN.has(x)).sort()).toEqual([]);
  });

  it("every listed one still occurs (the list only shrinks)", () => {
    expect([...KNOWN].filter((x) => !REACHING.includes(x))).toEqual([]);
  });

  it("the import reader sees every kind of import", () => {
    const f = join(ROOT, "bench/x.ts");
    const text = [
      'import { a } from "../src/index.ts";',
      'import type { B } from "../src/view/engine.ts";',
      'export { c } from "./lib/c.ts";',
      'const d = await import("../test/helpers/d.ts");',
      '// import { e } from "../src/e.ts";',
    ].join("\n");
    expect(importsOf(f, text)).toEqual(["src/index.ts", "src/view/engine.ts", "bench/lib/c.ts", "test/helpers/d.ts"]);
  });
});
