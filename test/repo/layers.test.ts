/**
 * The direction of flow, checked from the code's own imports: doors → the operation table → jobs → gate →
 * view → store → the shared vocabulary (contract, formats, embeddings, ops) → algorithms. A file may import
 * its own layer or a lower one, never a higher one, and no runtime import cycle exists (type-only imports
 * are erased at run time and are left out). Also: no src/ file over 500 lines.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return files(p);
    return /\.(ts|mts)$/.test(e) && !e.endsWith(".d.ts") ? [p] : [];
  });
}

/** Runtime imports of a file (static, re-exports and dynamic), relative ones only, as repo paths. */
function runtimeImports(file: string, text: string): string[] {
  const out: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const re =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+["'](\.[^"']+)["']|(?:^|\n)\s*import\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;
  for (let m = re.exec(code); m !== null; m = re.exec(code)) {
    if (m[2]) continue; // import type / export type
    const spec = m[3] ?? m[4] ?? m[5];
    if (!spec) continue;
    // `import { type A, type B } from` is type-only too.
    if (
      m[1] &&
      /^\s*(import|export)\s*\{([^}]*)\}/.test(m[0].trim()) &&
      m[0]
        .match(/\{([^}]*)\}/)![1]!
        .split(",")
        .every((x) => x.trim() === "" || x.trim().startsWith("type "))
    )
      continue;
    out.push(relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, ".ts"))));
  }
  return out;
}

const LAYERS: [RegExp, number, string][] = [
  [/^src\/(cli|server|mcp|gateway|library|adapters|demo)\/|^src\/index\.ts$/, 7, "door"],
  [/^src\/contract\/(operations|loaded-operations)\.ts$/, 6, "operation table"],
  [/^src\/jobs\//, 5, "job"],
  [/^src\/gate\//, 4, "gate"],
  [/^src\/view\//, 3, "view"],
  [/^src\/store\//, 2, "store"],
  [/^src\/(contract|formats|embeddings|ops)\/|^src\/version\.ts$/, 1, "vocabulary"],
  [/^algorithms\//, 0, "algorithms"],
];
const layerOf = (p: string) => LAYERS.find(([re]) => re.test(p));

/**
 * Imports that still go upward, each with why; this list may only shrink (the test fails on a new one, and on
 * an entry that no longer occurs).
 */
const KNOWN_UPWARD = new Set<string>([
  // The engine constructs the Gatekeeper it hands to every job (the gate persists through the store only).
  "src/view/engine.ts → src/gate/gatekeeper.ts",
]);

const SRC = [...files(join(ROOT, "src")), ...files(join(ROOT, "algorithms"))].filter(
  (f) => !f.includes("/src/server/ui/"),
);
const GRAPH = new Map(
  SRC.map((f) => [
    relative(ROOT, f),
    runtimeImports(f, readFileSync(f, "utf8")).filter((t) => t.startsWith("src/") || t.startsWith("algorithms/")),
  ]),
);

describe("layers", () => {
  it("every file of src/ and algorithms/ belongs to a layer", () => {
    expect([...GRAPH.keys()].filter((f) => !layerOf(f))).toEqual([]);
  });

  it("no import goes from a lower layer to a higher one", () => {
    const upward: string[] = [];
    for (const [from, tos] of GRAPH) {
      const a = layerOf(from);
      for (const to of tos) {
        const b = layerOf(to);
        if (a && b && b[1] > a[1]) upward.push(`${from} → ${to}`);
      }
    }
    expect(upward.filter((u) => !KNOWN_UPWARD.has(u))).toEqual([]);
    expect([...KNOWN_UPWARD].filter((u) => !upward.includes(u))).toEqual([]);
  });

  it("no runtime import cycle", () => {
    // Tarjan's strongly connected components; a component of more than one file is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string) => {
      idx.set(v, index);
      low.set(v, index++);
      stack.push(v);
      on.add(v);
      for (const w of GRAPH.get(v) ?? []) {
        if (!GRAPH.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1 || (GRAPH.get(v) ?? []).includes(v)) cycles.push(comp.sort());
      }
    };
    for (const v of GRAPH.keys()) if (!idx.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });

  it("the import reader sees what a file imports at run time", () => {
    const f = join(ROOT, "src/x/y.ts");
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'import { type C, type D } from "./c.ts";',
      'export { e } from "./e.ts";',
      'const f = () => import("./f.ts");',
      '// import { g } from "./g.ts";',
    ].join("\n");
    expect(runtimeImports(f, text)).toEqual(["src/x/a.ts", "src/x/e.ts", "src/x/f.ts"]);
  });
});

/** Every import of a file (type-only ones too), relative ones only, as repo paths. */
function allImports(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const re = /\bfrom\s+["'](\.[^"']+)["']|\bimport\s*\(?\s*["'](\.[^"']+)["']/g;
  const out: string[] = [];
  for (let m = re.exec(code); m !== null; m = re.exec(code))
    out.push(relative(ROOT, resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, ".ts"))));
  return out;
}

describe("jobs read a view", () => {
  it("no file in src/jobs imports the engine, not even its type: a job gets the project's view", () => {
    const jobs = files(join(ROOT, "src/jobs"));
    expect(jobs.length).toBeGreaterThan(10);
    const offending = jobs.flatMap((f) =>
      allImports(f, readFileSync(f, "utf8"))
        .filter((t) => t === "src/view/engine.ts")
        .map((t) => `${relative(ROOT, f)} → ${t}`),
    );
    expect(offending).toEqual([]);
  });

  it("the import reader sees type-only imports too", () => {
    const f = join(ROOT, "src/jobs/x.ts");
    const text = 'import type { Engine } from "../view/engine.ts";\nconst m = await import("../view/engine.ts");';
    expect(allImports(f, text)).toEqual(["src/view/engine.ts", "src/view/engine.ts"]);
  });
});

describe("file size", () => {
  it("no src/ file over 500 lines", () => {
    const long = SRC.filter((f) => relative(ROOT, f).startsWith("src/"))
      .map((f) => [relative(ROOT, f), readFileSync(f, "utf8").split("\n").length] as const)
      .filter(([, n]) => n > 500);
    expect(long).toEqual([]);
  });
});

/**
 * Door files are thin: routing and transport only, at most 150 lines each (what is not routing belongs to a
 * lower layer: contract, store, algorithms). The library facade is a door too.
 */
const THIN_DOORS = /^src\/(server|mcp|adapters|demo|gateway|cli|library)\//;
const DOOR_MAX_LINES = 150;
/** Lines as `wc -l` counts them (a final newline ends the last line, it does not start another). */
const lineCount = (text: string) => (text === "" ? 0 : text.replace(/\n$/, "").split("\n").length);

describe("thin doors", () => {
  it(`no file of src/{server,mcp,adapters,demo,gateway,cli,library} over ${DOOR_MAX_LINES} lines`, () => {
    const doors = SRC.map((f) => relative(ROOT, f)).filter((f) => THIN_DOORS.test(f));
    expect(doors.length).toBeGreaterThan(50);
    const long = doors
      .map((f) => [f, lineCount(readFileSync(join(ROOT, f), "utf8"))] as const)
      .filter(([, n]) => n > DOOR_MAX_LINES);
    expect(long).toEqual([]);
  });

  it("the line counter counts as wc -l does", () => {
    expect([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb"), lineCount("a\n\nb\n")]).toEqual([
      0, 1, 1, 2, 3,
    ]);
  });
});
