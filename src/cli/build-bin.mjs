// Part of `npm run build`: makes every `bin` file of package.json executable. tsc writes
// dist/src/cli/bin.js with mode 0644 (it keeps no mode from bin.ts), and the build removes dist first, so
// without this step `npx toolgraph` in the repository ends with "Permission denied" after each build or
// `npm pack` (whose prepack builds). `npm install` of the tarball sets the mode itself; a checkout does not.
// Run from the package root: `node src/cli/build-bin.mjs [ROOT]`.
import { chmodSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(process.argv[2] ?? ".");
const { bin } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const files = typeof bin === "string" ? [bin] : Object.values(bin ?? {});
for (const file of files) {
  const path = join(root, file);
  // Executable by everyone who can read it (0644 → 0755).
  const mode = statSync(path).mode & 0o777;
  chmodSync(path, mode | ((mode & 0o444) >> 2));
}
