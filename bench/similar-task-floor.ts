/**
 * `npx tsx bench/similar-task-floor.ts [--embeddings hash:256|use-lite] [--unrelated 300] [--fused]`
 *
 * How similar must a past execution be to count as a "similar task" (the gate's similar_task_success rule,
 * docs/decisions/similar-task-floor.md)? On training traces only: each distinct past intent is recalled
 * against the other past intents (executions with the same text excluded), and each of its 20 neighbours is
 * labelled "same task" when its tool set overlaps the query execution's by Jaccard ≥ 0.5 (and, with capability
 * labels on both, carries the same capability). Per floor: the share of neighbours at or above
 * it that are the same task (precision), the share of same-task neighbours it keeps (recall), and how many
 * queries keep at least one neighbour. Unrelated queries (Seal-Tools requests against a ToolLinkOS or demo
 * memory, and "bake a chocolate cake") show how often a floor still lets an unrelated request find a
 * "similar" past task.
 */
import { parseArgs } from "node:util";
import { demoCatalog, demoTraces } from "../src/demo/index.ts";
import { openToolgraph, type Toolgraph } from "../src/index.ts";
import { convertSealTools } from "./convert/seal-tools.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { markdownTable } from "./lib/report.ts";

const { values } = parseArgs({
  options: {
    embeddings: { type: "string", default: "hash:256" },
    unrelated: { type: "string", default: "300" },
    fused: { type: "boolean", default: false },
  },
});
/** The similarity measured: the memory's task similarity (what the floor applies to), or with --fused its fused similarity. */
const simOf = (p: { similarity: number; taskSimilarity: number }) => (values.fused ? p.similarity : p.taskSimilarity);
const NOW = Date.parse("2026-11-01T12:00:00Z");
const FLOORS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8];

type Trace = {
  id: string;
  intent?: string | undefined;
  capability?: string | undefined;
  steps: readonly { tool: string }[];
};

/** Same task: the two executions' tool sets overlap by Jaccard ≥ 0.5 (and share the capability label when both have one). */
function sameTask(a: Trace, b: Trace): boolean {
  if (a.capability !== undefined && b.capability !== undefined && a.capability !== b.capability) return false;
  const x = new Set(a.steps.map((s) => s.tool));
  const y = new Set(b.steps.map((s) => s.tool));
  let both = 0;
  for (const t of x) if (y.has(t)) both++;
  return both / (x.size + y.size - both) >= 0.5;
}

interface Observed {
  /** Per distinct training intent: its neighbours' (similarity, same capability). */
  related: { sim: number; same: boolean }[][];
  /** Per unrelated query: its neighbours' similarities. */
  unrelated: number[][];
}

async function observe(
  name: string,
  tg: Toolgraph,
  traces: readonly Trace[],
  unrelated: readonly string[],
): Promise<Observed> {
  const byText = new Map<string, { ids: Set<string>; first: Trace }>();
  for (const t of traces) {
    if (!t.intent) continue;
    const g = byText.get(t.intent) ?? { ids: new Set<string>(), first: t };
    g.ids.add(t.id);
    byText.set(t.intent, g);
  }
  const byId = new Map(traces.map((t) => [t.id, t]));
  const texts = [...byText.keys()];
  const out: Observed = { related: [], unrelated: [] };
  for (const text of texts) {
    const g = byText.get(text)!;
    const m = await tg.recall(text, { project: name, excludeIds: g.ids });
    out.related.push(m.past.map((p) => ({ sim: simOf(p), same: sameTask(g.first, byId.get(p.executionId)!) })));
  }
  for (let j = 0; j < unrelated.length; j++) {
    const m = await tg.recall(unrelated[j]!, { project: name });
    const sims = m.past.map(simOf).sort((a, b) => b - a);
    out.unrelated.push(sims);
    if (j === 0)
      console.log(
        `\n${name}: "${unrelated[0]}" best neighbour similarity ${(sims[0] ?? 0).toFixed(3)} (${m.past.length} neighbours)`,
      );
  }
  const top = unrelated
    .map((q, j) => [q, out.unrelated[j]![0] ?? 0] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
  for (const [q, s] of top)
    console.log(`${name}: unrelated query ${JSON.stringify(q.slice(0, 90))} best ${s.toFixed(3)}`);
  return out;
}

function table(title: string, o: Observed): void {
  const rows = FLOORS.map((f) => {
    let kept = 0;
    let keptSame = 0;
    let same = 0;
    let queriesWith = 0;
    let queriesSame = 0;
    for (const ns of o.related) {
      let any = false;
      let anySame = false;
      for (const n of ns) {
        if (n.same) same++;
        if (n.sim >= f) {
          kept++;
          if (n.same) keptSame++;
          any = true;
          anySame ||= n.same;
        }
      }
      if (any) queriesWith++;
      if (anySame) queriesSame++;
    }
    const falseSimilar = o.unrelated.filter((ns) => ns.some((s) => s >= f)).length;
    return [
      f.toFixed(2),
      kept === 0 ? null : keptSame / kept,
      same === 0 ? null : keptSame / same,
      queriesWith / o.related.length,
      queriesSame / o.related.length,
      falseSimilar / Math.max(1, o.unrelated.length),
    ];
  });
  const best = o.unrelated.map((ns) => ns[0] ?? 0).sort((a, b) => a - b);
  const q = (p: number) => (best.length === 0 ? 0 : best[Math.min(best.length - 1, Math.floor(p * best.length))]!);
  console.log(
    `\n### ${title} (${o.related.length} training intents, ${o.unrelated.length} unrelated queries; unrelated best similarity p50 ${q(0.5).toFixed(3)}, p90 ${q(0.9).toFixed(3)}, max ${q(1).toFixed(3)})\n`,
  );
  console.log(
    markdownTable(
      [
        "floor",
        "same-task share of kept neighbours",
        "same-task neighbours kept",
        "training intents keeping a neighbour",
        "training intents keeping a same-task neighbour",
        "unrelated queries keeping a neighbour",
      ],
      rows,
    ),
  );
}

const seal = convertSealTools();
const sealQueries = (seal.evaluation.test_in_domain ?? [])
  .filter((c): c is Extract<typeof c, { kind: "retrieval" }> => c.kind === "retrieval")
  .slice(0, Number(values.unrelated))
  .map((c) => c.query);
const unrelated = ["bake a chocolate cake", ...sealQueries];

{
  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "demo",
    embeddings: values.embeddings,
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog(demoCatalog());
  const traces = demoTraces(600, 42, NOW);
  await tg.importTraces(traces);
  table(
    `demo project, 600 traces — ${values.embeddings}, ${values.fused ? "fused" : "task"} similarity`,
    await observe("demo", tg, traces, unrelated),
  );
  await tg.close();
}
{
  const d = convertToolLinkOs();
  const capOf = new Map(d.trainInstances.map((i) => [i.id, i.capability]));
  const traces = d.traces.map((t) => ({ ...t, capability: capOf.get(t.id) ?? undefined }));
  const tg = await openToolgraph({
    home: "memory://",
    database: "",
    project: "tlos",
    embeddings: values.embeddings,
    now: () => NOW,
    resultCacheSize: 0,
    recommendationLog: { enabled: false },
  });
  await tg.importCatalog(d.catalog);
  await tg.importTraces(traces);
  table(
    `ToolLinkOS training traces — ${values.embeddings}, ${values.fused ? "fused" : "task"} similarity`,
    await observe("tlos", tg, traces, unrelated.slice(0, 1).concat(sealQueries)),
  );
  await tg.close();
}
