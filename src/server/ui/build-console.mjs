// Part of `npm run build`: bundles the console's browser script (src/server/ui/app.ts: sigma.js +
// graphology) into dist/src/server/ui/app.bundle.js and copies its page and style sheet beside it, so the
// published package serves /ui without esbuild and without a CDN. From sources (tests, tsx), the server
// bundles the same entry with the same options on the first request instead (src/server/ui/console.ts).
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const out = "dist/src/server/ui";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/server/ui/app.ts"],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  outfile: `${out}/app.bundle.js`,
});
for (const f of ["index.html", "app.css"]) copyFileSync(`src/server/ui/${f}`, `${out}/${f}`);
