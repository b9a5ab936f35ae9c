// What an in-memory PGlite costs to start: a fresh initdb, or a start from a template data directory (a
// gzip dump of a fresh database). Measures the next step for the library's open (docs/decisions/everyday-budget.md).
//   node bench/pglite-template-probe.mjs make      # writes the template to bench/tmp/ once
//   node bench/pglite-template-probe.mjs initdb    # time it from outside, 3+ runs, median
//   node bench/pglite-template-probe.mjs load
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
const mode = process.argv[2];
const dumpPath = "bench/tmp/pglite-template.tar.gz";
let pg;
if (mode === "make") {
  mkdirSync("bench/tmp", { recursive: true });
  pg = new PGlite();
  await pg.waitReady;
  writeFileSync(dumpPath, Buffer.from(await (await pg.dumpDataDir("gzip")).arrayBuffer()));
} else if (mode === "initdb") {
  pg = new PGlite();
  await pg.waitReady;
} else {
  pg = new PGlite({ loadDataDir: new Blob([readFileSync(dumpPath)]) });
  await pg.waitReady;
}
await pg.query("select 1");
await pg.close();
