/**
 * The small catalog the adapter tests share: eight tools on six servers and twenty runs of one workflow
 * (commit → push → pull request), the examples' own (examples/tools.json). Hand-checkable: after `git.commit` the
 * only tool ever seen next is `git.push`. Also the fixture `fetch` the SDK clients are given.
 */
import tools from "../../examples/tools.json" with { type: "json" };
import { openToolgraph, type Toolgraph } from "../../src/index.ts";

export const TOOLS: readonly { id: string; description: string }[] = tools;

export const INTENT = "ship my fix for review";

export async function openCatalog(project = "adapters"): Promise<Toolgraph> {
  const tg = await openToolgraph({
    home: "memory://",
    project,
    embeddings: "hash:256",
    analytics: { minRefreshIntervalMs: 0 },
  });
  await tg.importCatalog({
    tools: TOOLS.map((t) => ({ ...t, inputSchema: { type: "object", properties: { text: { type: "string" } } } })),
  });
  await tg.importTraces(
    Array.from({ length: 20 }, (_, i) => ({
      id: `run-${i}`,
      intent: INTENT,
      startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      success: true,
      steps: [
        { tool: "git.commit" },
        { tool: "git.push", dependsOn: [0] },
        { tool: "github.create_pull_request", dependsOn: [1] },
      ],
    })),
  );
  await tg.settle();
  return tg;
}

/** A `fetch` that answers the given bodies in turn (recorded fixtures) and keeps the request bodies sent. */
export function fixtureFetch(responses: readonly object[]): {
  fetch: (url: unknown, init?: { body?: unknown }) => Promise<Response>;
  sent: Record<string, unknown>[];
} {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    fetch: async (_url, init) => {
      sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return new Response(JSON.stringify(responses[sent.length - 1]), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    },
  };
}
