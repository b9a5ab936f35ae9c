/**
 * CLI start-up time, whole process (spawn → exit, wall clock): `toolgraph --help` and `toolgraph search`
 * on the demo project, for each way of running the CLI:
 *   before — the sources of --before-ref (default: the last commit before the build step) through tsx, as
 *            the package ran until then (extracted with `git archive` into bench/tmp/, node_modules linked);
 *   tsx    — the current sources through tsx (src/cli/toolgraph.mjs, what development runs);
 *   dist   — the built package (dist/src/cli/bin.js, what `npm install` gives; run `npm run build` first).
 * Rounds alternate the variants (the order rotates each round) so that the machine's load hits them alike.
 *
 *   npx tsx bench/cli-startup.ts [--runs 20] [--search-runs 10] [--before-ref 7c0c407] [--variants before,tsx,dist]
 *
 * The demo project is built once (by the first variant, default embeddings) in bench/tmp/cli-startup-home and
 * copied for each variant. Writes
 * bench/results/cli-startup.json and prints a markdown table (p50/p95/p99 ms per variant and command).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { machine, markdownTable, percentiles, writeResult } from "./lib/report.ts";

const ROOT = resolve(import.meta.dirname, "..");
const TMP = join(ROOT, "bench", "tmp");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "20" },
    "search-runs": { type: "string", default: "10" },
    "before-ref": { type: "string", default: "7c0c407" },
    variants: { type: "string", default: "before,tsx,dist" },
  },
});
const runs = Number(values.runs);
const searchRuns = Number(values["search-runs"]);
const variants = values.variants!.split(",");

function prepareBefore(ref: string): string {
  const dir = join(TMP, `cli-startup-before-${ref}`);
  if (!existsSync(join(dir, "src/cli/toolgraph.mjs"))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync("git", ["archive", ref, "src", "algorithms", "migrations", "package.json"], {
      cwd: ROOT,
      maxBuffer: 1 << 28,
    });
    execFileSync("tar", ["-x", "-C", dir], { input: tar });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  }
  return join(dir, "src/cli/toolgraph.mjs");
}

const ENTRY: Record<string, () => string> = {
  before: () => prepareBefore(values["before-ref"]!),
  tsx: () => join(ROOT, "src/cli/toolgraph.mjs"),
  dist: () => {
    const bin = join(ROOT, "dist/src/cli/bin.js");
    if (!existsSync(bin)) throw new Error("dist/src/cli/bin.js is missing: run `npm run build` first");
    return bin;
  },
};
const entries = Object.fromEntries(variants.map((v) => [v, ENTRY[v]!()]));

// The demo project, built once by the first variant, then one copy per variant: each variant migrates its
// own copy (an older variant cannot open a database migrated by a newer one).
const seedHome = join(TMP, "cli-startup-home");
const env = { ...process.env, DATABASE_URL: "", TOOLGRAPH_PROJECT: "" };
if (!existsSync(join(seedHome, "PG_VERSION"))) {
  rmSync(seedHome, { recursive: true, force: true });
  const r = spawnSync(process.execPath, [entries[variants[0]!]!, "demo", "--home", seedHome, "--traces", "600"], {
    env,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`demo failed: ${r.stderr}`);
}
const homes: Record<string, string> = {};
for (const v of variants) {
  homes[v] = join(TMP, `cli-startup-home-${v}`);
  rmSync(homes[v]!, { recursive: true, force: true });
  cpSync(seedHome, homes[v]!, { recursive: true });
}

const COMMANDS: Record<string, { args: (v: string) => string[]; runs: number }> = {
  help: { args: () => ["--help"], runs },
  search: {
    args: (v) => [
      "search",
      "the payments service is throwing errors, find out why",
      "--project",
      "demo",
      "--home",
      homes[v]!,
      "--json",
    ],
    runs: searchRuns,
  },
};

function once(entry: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [entry, ...args], { env, encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${entry} ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return ms;
}

const loadStart = loadavg();
const samples: Record<string, Record<string, number[]>> = {};
for (const [cmd, spec] of Object.entries(COMMANDS)) {
  samples[cmd] = Object.fromEntries(variants.map((v) => [v, []]));
  for (const v of variants) once(entries[v]!, spec.args(v)); // warm the file cache (and migrate) once per variant
  for (let round = 0; round < spec.runs; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) samples[cmd]![v]!.push(once(entries[v]!, spec.args(v)));
    process.stderr.write(`\r${cmd} ${round + 1}/${spec.runs}`);
  }
  process.stderr.write("\n");
}
const loadEnd = loadavg();

const results = Object.entries(samples).flatMap(([cmd, byVariant]) =>
  Object.entries(byVariant).map(([variant, ms]) => ({
    command: `toolgraph ${COMMANDS[cmd]!.args("")[0]}`,
    variant,
    ...percentiles(ms),
    samplesMs: ms.map((x) => Math.round(x)),
  })),
);
const file = writeResult("cli-startup", {
  bench: "cli-startup",
  command: `npx tsx bench/cli-startup.ts --runs ${runs} --search-runs ${searchRuns} --before-ref ${values["before-ref"]} --variants ${variants.join(",")}`,
  date: new Date().toISOString(),
  machine: machine(),
  loadAverage: { start: loadStart, end: loadEnd },
  variants: {
    before: `sources of ${values["before-ref"]} through tsx`,
    tsx: "current sources through tsx",
    dist: "built package (dist/)",
  },
  results,
});
console.log(
  markdownTable(
    ["command", "variant", "p50 ms", "p95 ms", "p99 ms", "runs"],
    results.map((r) => [r.command, r.variant, Math.round(r.p50), Math.round(r.p95), Math.round(r.p99), r.n]),
  ),
);
console.log(`\nwritten ${file}`);
