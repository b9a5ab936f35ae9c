/** `toolgraph bench accuracy|latency|ingest|load [options]`: runs the benchmark programs in bench/. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Command, EXIT, UsageError } from "../command.ts";

// bench/ of the repository: from src/cli/commands (sources) or dist/src/cli/commands (a build in a clone).
const HERE = fileURLToPath(new URL(".", import.meta.url));
const BENCH_DIR =
  [resolve(HERE, "../../../bench"), resolve(HERE, "../../../../bench")].find((d) =>
    existsSync(join(d, "accuracy.ts")),
  ) ?? resolve(HERE, "../../../bench");
const KINDS: Record<string, string> = {
  accuracy: "accuracy.ts",
  latency: "latency.ts",
  ingest: "ingest.ts",
  load: "load.ts",
};

export const benchCommand: Command = {
  name: "bench",
  summary:
    "benchmarks: accuracy on public datasets (or yours) beside baselines, latency at scale, ingestion, HTTP load",
  usage: "toolgraph bench accuracy|latency|ingest|load [options of that bench]",
  examples: [
    "toolgraph bench accuracy --dataset all",
    "toolgraph bench accuracy --dataset toollinkos --embeddings hash:512",
    "toolgraph bench accuracy --catalog catalog.json --traces traces.jsonl --edges edges.jsonl --eval cases.jsonl",
    "toolgraph bench latency --tools 1000,10000,50000",
    "toolgraph bench ingest --steps 100000",
    "toolgraph bench load --clients 50 --seconds 30",
  ],
  passThrough: true,
  optionHelp: {
    "accuracy: --dataset seal-tools|toollinkos|nestful|all, --embeddings use-lite|hash:512, --catalog/--traces/--edges/--eval":
      "",
    "latency: --tools 1000,10000,50000 --reps N; ingest: --steps N --backends pglite,postgres; load: --clients N --seconds S":
      "",
  },
  async run(ctx) {
    const [kind] = ctx.positionals;
    if (!kind || !KINDS[kind])
      throw new UsageError("bench: the first argument must be accuracy, latency, ingest or load");
    const file = join(BENCH_DIR, KINDS[kind]!);
    if (!existsSync(file))
      throw new UsageError(`bench: ${file} is missing (the bench programs ship with the repository)`);
    const at = process.argv.indexOf(kind);
    const passThrough = at >= 0 ? process.argv.slice(at + 1) : [];
    const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", file, ...passThrough], {
      stdio: "inherit",
    });
    return r.status === 0 ? EXIT.ok : EXIT.failure;
  },
};
