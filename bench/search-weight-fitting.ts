/**
 * The content floor and the acceptance rule of the search-weight fit, measured
 * (docs/decisions/search-weight-fitting.md):
 *
 *   npx tsx bench/search-weight-fitting.ts --dataset toollinkos --embeddings hash:512 [--floors 0,0.25,0.5,0.75,1]
 *
 * For each content floor: the fit on the dataset's training traces (a dry run: nothing stored) — the weights it
 * chooses, its grouped out-of-sample scores against the defaults (unseen intents, repeated intents) and
 * whether it would replace the defaults — and mAP@10 on the dataset's own test split with the chosen weights,
 * with the defaults, and with what would be in force; then the next-step fit's dry run (learned vs seed Hit@1
 * on grouped held-out executions). Writes bench/results/search-weight-fitting-<dataset>-<embeddings>.json.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { retrievalScores } from "../algorithms/evaluation/retrieval-metrics.ts";
import { rankCandidates } from "../algorithms/search/rank-candidates.ts";
import { DEFAULT_SEARCH_WEIGHTS, openToolgraph, type SearchWeights } from "../src/index.ts";
import { loadDataset } from "./accuracy.ts";
import { machine, markdownTable, writeResult } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    dataset: { type: "string", default: "toollinkos" },
    embeddings: { type: "string", default: "hash:512" },
    floors: { type: "string", default: "0,0.25,0.5,0.75,1" },
    home: { type: "string", default: ".toolgraph-bench/search-weight-fitting" },
  },
});
const floors = values.floors!.split(",").map(Number);
const data = loadDataset(values.dataset!);
const emb = values.embeddings!.replace(/[^a-z0-9]/gi, "");
const project = `${data.name}-swf-${emb}`;
// One fixed clock (an hour after the last training execution), so memory recency does not move between runs.
const now =
  Math.max(...data.traces.map((t) => Date.parse(String((t as { startedAt: string | Date }).startedAt)))) + 3_600_000;
const tg = await openToolgraph({
  home: values.home!,
  database: "",
  project,
  embeddings: values.embeddings!,
  queryCacheSize: 5000,
  now: () => now,
});
const t0 = Date.now();
try {
  await tg.importCatalog(data.catalog);
  await tg.importTraces(data.traces);
  // The ranking core on the project's read model, with the intent memory's votes: the search-weight fit's
  // scoring, without the search job's own steps (the history guard's inputs, the exclusions).
  const model = await tg.searchModel();
  const indexOf = new Map(model.tools.map((t, i) => [t, i]));
  const rows: (string | number)[][] = [];
  const evalSets = Object.entries(data.evaluation)
    .map(
      ([split, cases]) =>
        [split, cases.filter((c) => c.kind === "retrieval") as { query: string; relevant: string[] }[]] as const,
    )
    .filter(([, c]) => c.length > 0);
  const prepared = new Map<
    string,
    { q: string; rel: string[]; v: Float32Array; votes: Map<number, number> | undefined }[]
  >();
  for (const [split, cases] of evalSets) {
    const vs = await model.embed(cases.map((c) => c.query));
    const list = [];
    for (let i = 0; i < cases.length; i++) {
      const r = await tg.recall(cases[i]!.query);
      list.push({
        q: cases[i]!.query,
        rel: cases[i]!.relevant,
        v: vs[i]!,
        votes: r.similarity === null ? undefined : new Map(r.tools.map((t) => [indexOf.get(t.tool)!, t.vote])),
      });
    }
    prepared.set(split, list);
  }
  const testMap = (w: SearchWeights, split: string) => {
    const list = prepared.get(split)!;
    let sum = 0;
    for (const c of list) {
      const ranked = rankCandidates(model.data, c.q, c.v, {
        ...w,
        memory: w.memoryWeight > 0 ? c.votes : undefined,
        top: 10,
      }).map((h) => model.tools[h.index]!);
      sum += retrievalScores(ranked, c.rel, [10]).ap[10]!;
    }
    return sum / list.length;
  };
  const fmtW2 = (w: object) =>
    Object.entries(w)
      .map(([k, v]) => `${k} ${(v as number).toFixed(3)}`)
      .join(", ");
  const fmtW = (w: SearchWeights | undefined) =>
    w ? `β ${w.beta}, μ ${w.memoryWeight}, content ${w.contentWeight}, graph ${w.graphWeight}` : "–";
  for (const floor of floors) {
    const t = Date.now();
    const fit = await tg.fitSearchWeights({ dryRun: true, contentFloor: floor });
    const cand = fit.candidate;
    const oos = fit.outOfSample;
    for (const [split] of evalSets) {
      const inForce = fit.accepted && cand ? cand : DEFAULT_SEARCH_WEIGHTS;
      rows.push([
        floor,
        fmtW(cand),
        oos ? `${oos.default.unseen.toFixed(3)} / ${oos.default.repeat.toFixed(3)}` : "–",
        oos ? `${oos.fitted.unseen.toFixed(3)} / ${oos.fitted.repeat.toFixed(3)}` : "–",
        oos ? `${(oos.fitted.score - oos.default.score).toFixed(3)} ± ${oos.gainStdErr.toFixed(3)}` : "–",
        fit.accepted ? "yes" : "no",
        split,
        cand ? testMap(cand, split) : Number.NaN,
        testMap(DEFAULT_SEARCH_WEIGHTS, split),
        testMap(inForce, split),
      ]);
    }
    console.error(`floor ${floor}: ${((Date.now() - t) / 1000).toFixed(0)} s; ${fit.reason}`);
  }
  const next = await tg.fitNextStepWeights({ dryRun: true });
  const ev = next.record.evidence as {
    default?: { hitAt1: number };
    fitted?: { hitAt1: number };
    groupsScored?: number;
  };
  const nextTable = {
    title: `Next-step weights — ${data.name}: learned vs seed, grouped out of sample (dry run)`,
    headers: ["learned weights", "seed Hit@1", "learned Hit@1", "groups", "accepted", "why"],
    rows: [
      [
        fmtW2(next.candidate),
        ev.default?.hitAt1 ?? Number.NaN,
        ev.fitted?.hitAt1 ?? Number.NaN,
        ev.groupsScored ?? 0,
        next.accepted ? "yes" : "no",
        next.reason,
      ],
    ],
  };
  console.log(`\n### ${nextTable.title}\n\n${markdownTable(nextTable.headers, nextTable.rows)}`);
  const table = {
    title: `Search-weight fit by content floor — ${data.name}, ${values.embeddings} (${data.traces.length} training executions)`,
    headers: [
      "content floor",
      "fitted weights (all training cases)",
      "out of sample: defaults unseen / repeat",
      "fitted unseen / repeat",
      "gain ± s.e. (groups)",
      "accepted",
      "test split",
      "test mAP@10 (fitted)",
      "test mAP@10 (defaults)",
      "test mAP@10 (in force)",
    ],
    rows,
  };
  console.log(
    `\n### ${table.title}\n\n${markdownTable(table.headers, table.rows)}\n\n(${((Date.now() - t0) / 1000).toFixed(0)} s)`,
  );
  writeResult(`search-weight-fitting-${data.name}-${emb}`, {
    command: `npx tsx bench/search-weight-fitting.ts --dataset ${values.dataset} --embeddings ${values.embeddings} --floors ${values.floors}`,
    machine: machine(),
    date: new Date().toISOString(),
    loadAverage: loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
    tables: [table, nextTable],
  });
} finally {
  await tg.close();
}
