// Part of `npm run build`, after tsc: bundles the package's entry points (the library, each subpath export and
// the command's main) into dist/bundle/ with esbuild, so importing `toolgraph` reads a few dozen files instead of
// ~600 (our modules, kysely's, zod's, the MCP SDKs'). Why and what it saves: docs/decisions/everyday-budget.md.
//
// - The entries are package.json's exports: "./x": { types: "./dist/src/…/y.d.ts", import: "./dist/bundle/x.js" }
//   bundles src/…/y.ts as x.js.
// - One build with code splitting: a module two entries share (ToolgraphError, the embedding providers, the
//   Toolgraph class) is in one chunk that both import, so `instanceof` holds across `toolgraph` and
//   `toolgraph/embeddings`; a dynamic import (the engine, each operation's job) stays a chunk loaded on use.
// - `import.meta.url` in a bundled module of ours is replaced by the URL its tsc output has (dist/src/…/x.js),
//   so what is found beside a module is found as before: the worker entries (tsc's, unbundled), migrations/, the
//   console's page, script and style sheet, PGlite's and the model's packages.
// - Inside: our modules, kysely, zod and the MCP SDKs, with every package these import. Outside (imported from
//   node_modules as before), the other packages our modules import: PGlite and the model (files found beside
//   their modules), pg, the analytics (loaded with the engine), the AI SDKs (optional peers).
// - Source maps beside each file, naming the TypeScript sources and lines (without their text: 2.7 MB instead
//   of 9.5 MB with it); licence comments kept. Not minified: importing the minified bundle cost the same CPU.
// Run from the package root: `node src/build-bundle.mjs`.
import { readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

const root = resolve(".");
const outdir = resolve(root, "dist/bundle");
/** Bundled packages, with every package they import; every other package our modules import stays an import. */
export const INSIDE = [
  "kysely",
  "zod",
  "@modelcontextprotocol/sdk",
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/client",
  "@modelcontextprotocol/core",
];

/** package.json's exports → esbuild's entry points: { x: "src/…/y.ts" }. */
function entries() {
  const { exports } = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));
  const out = {};
  for (const target of Object.values(exports)) {
    const m = typeof target === "object" && target.import?.match(/^\.\/dist\/bundle\/([\w-]+)\.js$/);
    if (!m) continue;
    const types = target.types.match(/^\.\/dist\/(src\/.+)\.d\.ts$/);
    if (!types) throw new Error(`package.json exports ${target.import}: no ./dist/src/….d.ts types beside it`);
    out[m[1]] = `${types[1]}.ts`;
  }
  return { ...out, ...CLI };
}

/** The command's main (not an export): dist/src/cli/bin.js imports it from the bundle when the bundle is there. */
const CLI = { cli: "src/cli/main.ts" };

const packageOf = (path) => (path.startsWith("@") ? path.split("/").slice(0, 2).join("/") : path.split("/")[0]);
const ours = (path) => path.startsWith(root) && !path.includes(`${sep}node_modules${sep}`);

const external = {
  name: "external-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      if (!ours(args.importer) || INSIDE.includes(packageOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** `import.meta.url` in src/a/b.ts → the URL of dist/src/a/b.js, from the bundle's directory. */
const moduleUrl = {
  name: "module-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!ours(args.path)) return undefined;
      const text = await readFile(args.path, "utf8");
      if (!text.includes("import.meta")) return undefined;
      if (/import\.meta\.(dirname|filename)/.test(text))
        throw new Error(
          `${args.path}: import.meta.dirname/filename is not rewritten for the bundle; use import.meta.url`,
        );
      const built = resolve(root, "dist", relative(root, args.path)).replace(/\.ts$/, ".js");
      const rel = relative(outdir, built).split(sep).join("/");
      const contents = text.replaceAll("import.meta.url", `new URL(${JSON.stringify(rel)}, import.meta.url).href`);
      return { contents, loader: "ts", resolveDir: dirname(args.path) };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: entries(),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir,
  sourcemap: true,
  sourcesContent: false,
  // Names as written: esbuild renames a class or function whose name two bundled modules share (`Protocol2`),
  // and a name can be read (`constructor.name`, an error's name).
  keepNames: true,
  legalComments: "eof",
  // The CommonJS packages inside (ajv, cross-spawn) require Node's modules, and esbuild's ESM output needs a
  // `require` for it: made on first use (a createRequire per chunk at import would cost each chunk's import).
  banner: {
    js: 'import { createRequire as __tgCreateRequire } from "node:module"; let __tgRequire; const require = (id) => (__tgRequire ??= __tgCreateRequire(import.meta.url))(id);',
  },
  metafile: Boolean(process.env.BUNDLE_META),
  plugins: [external, moduleUrl],
});
if (process.env.BUNDLE_META) {
  const pkgs = new Map();
  for (const [path, { bytes }] of Object.entries(result.metafile.inputs)) {
    const m = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const k = m ? m[1] : path.split("/")[0];
    pkgs.set(k, (pkgs.get(k) ?? 0) + bytes);
  }
  console.log(
    [...pkgs]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${Math.round(v / 1024)} kB`)
      .join("\n"),
  );
  const ext = new Set();
  for (const o of Object.values(result.metafile.outputs)) for (const i of o.imports) if (i.external) ext.add(i.path);
  console.log("external:", [...ext].sort().join(" "));
}
