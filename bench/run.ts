/**
 * `npm run bench`: the accuracy run on the three public datasets, then the latency run at 1k and 10k tools.
 * (`toolgraph bench accuracy|latency|ingest|load …` runs one of them with its own options.)
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const here = import.meta.dirname;
for (const [file, args] of [
  ["accuracy.ts", ["--dataset", "all"]],
  ["latency.ts", ["--tools", "1000,10000"]],
] as const) {
  const r = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(here, file), ...args, ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
