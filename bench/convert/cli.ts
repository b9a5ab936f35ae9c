/**
 * Converts the three datasets and prints their counts; with `--out <dir>` also writes
 * `<dir>/<dataset>/{catalog.json, edges.jsonl, traces.jsonl, eval-<split>.jsonl}`.
 *
 *   npx tsx bench/convert/cli.ts [--out bench/results/converted] [--seed 20240901] [--indirect keep|break-two-cycles|drop-indirect]
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ConvertedDataset } from "./common.ts";
import { countByKind, writeConverted } from "./common.ts";
import { convertNestful } from "./nestful.ts";
import { convertSealTools } from "./seal-tools.ts";
import { convertToolLinkOs } from "./toollinkos.ts";

export interface DatasetSummary {
  dataset: string;
  tools: number;
  capabilities: number;
  declaredEdges: number;
  traces: number;
  traceSteps: number;
  evaluation: Record<string, { instances: number } & ReturnType<typeof countByKind>>;
  notes: number;
}

export function summarize(ds: ConvertedDataset): DatasetSummary {
  const evaluation: DatasetSummary["evaluation"] = {};
  for (const [split, cases] of Object.entries(ds.evaluation)) {
    evaluation[split] = { instances: ds.testInstances[split]?.length ?? 0, ...countByKind(cases) };
  }
  return {
    dataset: ds.dataset,
    tools: ds.catalog.tools.length,
    capabilities: ds.catalog.capabilities.length,
    declaredEdges: ds.edges.length,
    traces: ds.traces.length,
    traceSteps: ds.traces.reduce((s, t) => s + t.steps.length, 0),
    evaluation,
    notes: ds.notes.length,
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: "string" },
      seed: { type: "string" },
      indirect: { type: "string" },
      notes: { type: "boolean" },
    },
  });
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new Error(`convert cli: --seed must be an integer, got ${values.seed}`);
  const indirect = values.indirect;
  if (
    indirect !== undefined &&
    indirect !== "keep" &&
    indirect !== "break-two-cycles" &&
    indirect !== "drop-indirect"
  ) {
    throw new Error(`convert cli: --indirect must be keep, break-two-cycles or drop-indirect, got ${indirect}`);
  }
  const split = seed === undefined ? {} : { seed };
  const all: ConvertedDataset[] = [
    convertSealTools(),
    convertToolLinkOs({ split, ...(indirect ? { indirect } : {}) }),
    convertNestful({ split }),
  ];
  for (const ds of all) {
    console.log(JSON.stringify(summarize(ds)));
    if (values.notes) for (const n of ds.notes) console.log(`  note: ${n}`);
    if (values.out !== undefined) writeConverted(ds, join(values.out, ds.dataset));
  }
}

if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) main();
