/**
 * `npx tsx bench/plan-evidence.ts [--embeddings hash:512] [--limit N]`
 *
 * Intent → plan on ToolLinkOS's test split (traces, then traces + declared edges: the accuracy bench's two
 * projects), with the bench's node F1 and edge F1 (harness.ts evalPlan), plus what the plans contain: how many
 * tools the dependency closure added, and for how many test requests the plan's tools equal the tools of the
 * capability matched with high confidence (docs/decisions/plan-evidence.md).
 */
import { parseArgs } from "node:util";
import type { EvalCase } from "../src/index.ts";
import { convertToolLinkOs } from "./convert/toollinkos.ts";
import { evalPlan, openHarnessProject } from "./harness.ts";
import { markdownTable } from "./lib/report.ts";

const { values } = parseArgs({
  options: { embeddings: { type: "string", default: "hash:512" }, limit: { type: "string", default: "785" } },
});
const limit = Number(values.limit);
const d = convertToolLinkOs();
const capOf = new Map(d.trainInstances.map((i) => [i.id, i.capability]));
const traces = d.traces.map((t) => (capOf.get(t.id) ? { ...t, capability: capOf.get(t.id) } : t));
const input = {
  name: "toollinkos",
  catalog: d.catalog,
  traces,
  edges: d.edges,
  evaluation: d.evaluation as Record<string, EvalCase[]>,
};
const cases = (input.evaluation.test ?? [])
  .filter((c): c is Extract<EvalCase, { kind: "dag" }> => c.kind === "dag" && typeof c.query === "string")
  .slice(0, limit);

const rows: (string | number)[][] = [];
for (const variant of [`traces-${values.embeddings}`, `traces+edges-${values.embeddings}`]) {
  const { tg, project } = await openHarnessProject(
    input,
    { home: "memory://", embeddings: values.embeddings },
    variant,
  );
  const f1 = await evalPlan(tg, project, "test", cases);
  let added = 0;
  let strong = 0;
  let agree = 0;
  for (const c of cases) {
    const plan = await tg.plan({ project, intent: c.query!, limit: 3 });
    added += plan.closure.added;
    const cap = (await tg.matchCapabilities({ project, intent: c.query!, limit: 1 })).results[0];
    if (cap && cap.gate.decision === "accepted" && cap.gate.confidence === "high") {
      strong++;
      const a = plan.tools.map((t) => t.tool).sort();
      const b = [...cap.tools].sort();
      if (a.length === b.length && a.every((x, i) => x === b[i])) agree++;
    }
  }
  const [node, edge] = (f1!.rows[0] as number[]).slice(1);
  rows.push([
    variant,
    cases.length,
    node!,
    edge!,
    added / cases.length,
    strong,
    strong === 0 ? "–" : (agree / strong).toFixed(3),
  ]);
  await tg.close();
}
console.log(`\n### Intent → plan — toollinkos / test (${cases.length} cases)\n`);
console.log(
  markdownTable(
    [
      "project",
      "cases",
      "node F1",
      "edge F1",
      "closure additions per plan",
      "high-confidence capability matches",
      "plan tools = capability tools",
    ],
    rows,
  ),
);
