/**
 * The console's browser script (app.ts and its views): the bundle `npm run build` wrote beside this file
 * (dist/), or, run from sources (tests, tsx), the same entry bundled now with esbuild (a devDependency).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const HERE = fileURLToPath(new URL(".", import.meta.url));

export async function consoleScript(): Promise<string> {
  if (existsSync(`${HERE}app.bundle.js`)) return readFile(`${HERE}app.bundle.js`, "utf8");
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error(
      "the console script is not built: run `npm run build` (or install the devDependencies to bundle it from sources)",
    );
  }
  const r = await esbuild.build({
    // From the built package (dist/, this module is .js) the entry is the compiled app.js.
    entryPoints: [`${HERE}app.${import.meta.url.endsWith(".js") ? "js" : "ts"}`],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  return r.outputFiles[0]!.text;
}
