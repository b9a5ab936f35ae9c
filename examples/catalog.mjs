// The small catalog the examples share: eight tools on six servers and twenty runs of one workflow
// (commit → push → pull request), opened in memory with offline hash embeddings.
import { openToolgraph } from "toolgraph";
import TOOLS from "./tools.json" with { type: "json" };

export { TOOLS };

export const PARAMETERS = { type: "object", properties: { text: { type: "string" } } };

/** A Toolgraph holding the catalog and its history. */
export async function openExampleToolgraph() {
  const tg = await openToolgraph({ home: "memory://", project: "example", embeddings: "hash:256" });
  await tg.importCatalog({ tools: TOOLS.map((t) => ({ ...t, inputSchema: PARAMETERS })) });
  await tg.importTraces(
    Array.from({ length: 20 }, (_, i) => ({
      id: `run-${i}`,
      intent: "ship my fix for review",
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      success: true,
      steps: [{ tool: "git.commit" }, { tool: "git.push", dependsOn: [0] }, { tool: "github.create_pull_request", dependsOn: [1] }],
    })),
  );
  await tg.settle();
  return tg;
}

/** Prints why each tool was picked: rank, score, the gate's decision and the explanation. */
export function printPicked(selection) {
  for (const p of selection.picked) console.log(`  ${p.rank}. ${p.tool}  score ${p.score.toFixed(3)}  ${p.decision}\n     ${p.explanation}`);
}
