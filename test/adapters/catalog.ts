/**
 * The small catalog the adapter tests share: eight tools on six servers and twenty runs of one workflow
 * (commit → push → pull request). Hand-checkable: after `git.commit` the only tool ever seen next is `git.push`.
 */
import { openToolgraph, type Toolgraph } from "../../src/index.ts";

export const TOOLS = [
  { id: "git.commit", description: "Record staged changes with a message" },
  { id: "git.push", description: "Push local commits to the remote repository" },
  { id: "github.create_pull_request", description: "Open a pull request from a branch" },
  { id: "slack.post_message", description: "Post a message to a Slack channel" },
  { id: "calendar.create_event", description: "Create a calendar event with attendees" },
  { id: "weather.forecast", description: "Get the weather forecast for a city" },
  { id: "files.read", description: "Read a file from disk" },
  { id: "files.write", description: "Write text to a file on disk" },
] as const;

export const INTENT = "ship my fix for review";

export async function openCatalog(project = "adapters"): Promise<Toolgraph> {
  const tg = await openToolgraph({ home: "memory://", project, embeddings: "hash:256", analytics: { minRefreshIntervalMs: 0 } });
  await tg.importCatalog({ tools: TOOLS.map((t) => ({ ...t, inputSchema: { type: "object", properties: { text: { type: "string" } } } })) });
  await tg.importTraces(
    Array.from({ length: 20 }, (_, i) => ({
      id: `run-${i}`,
      intent: INTENT,
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      success: true,
      steps: [{ tool: "git.commit" }, { tool: "git.push", dependsOn: [0] }, { tool: "github.create_pull_request", dependsOn: [1] }],
    })),
  );
  await tg.settle();
  return tg;
}
