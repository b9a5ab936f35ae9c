#!/usr/bin/env node
// The `toolgraph` command of the built package (dist/src/cli/bin.js): runs main() from the bundle
// (dist/bundle/cli.js, made by src/build-bundle.mjs: a few dozen files instead of tsc's ~550 modules), or from
// tsc's modules beside this file when there is none. From the sources, toolgraph.mjs runs the same main()
// through tsx. On Node ≥ 22 the compiled code of the modules is kept on disk between calls
// (module.enableCompileCache, in the OS temporary directory or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1
// turns it off); Node 20 has no such cache. Why and what each saves: docs/decisions/everyday-budget.md.
import { existsSync } from "node:fs";
import module from "node:module";

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const bundled = new URL("../../bundle/cli.js", import.meta.url);
const { main }: typeof import("./main.ts") = existsSync(bundled)
  ? await import(bundled.href)
  : await import("./main.ts");
process.exitCode = await main(process.argv.slice(2));
