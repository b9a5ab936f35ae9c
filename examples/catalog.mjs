// The small catalog the examples share: eight tools on six servers and twenty runs of one workflow
// (commit → push → pull request), opened in memory with offline hash embeddings.
import { openToolgraph } from "toolgraph";

export const TOOLS = [
  { id: "git.commit", description: "Record staged changes with a message" },
  { id: "git.push", description: "Push local commits to the remote repository" },
  { id: "github.create_pull_request", description: "Open a pull request from a branch" },
  { id: "slack.post_message", description: "Post a message to a Slack channel" },
  { id: "calendar.create_event", description: "Create a calendar event with attendees" },
  { id: "weather.forecast", description: "Get the weather forecast for a city" },
  { id: "files.read", description: "Read a file from disk" },
  { id: "files.write", description: "Write text to a file on disk" },
];

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
