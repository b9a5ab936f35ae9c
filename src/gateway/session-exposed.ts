/**
 * The upstream tools a session lists directly with `expose`: the top k of a search for the session's intent, or
 * else of the next-step suggestions after its successful tools, keeping only tools an upstream lists now and
 * the session's policy allows. Read through the gateway's served api, which waits for a catalog sync in
 * progress rather than ready its analytics on the event loop.
 */
import type { SessionHost } from "./session-host.ts";
import type { SessionPolicy } from "./session-policy.ts";

export async function recommendedTools(
  host: SessionHost,
  policy: SessionPolicy | undefined,
  k: number,
  intent: string | undefined,
  successfulTools: readonly string[],
): Promise<string[]> {
  const api = host.served;
  const project = host.project;
  const context = successfulTools.slice(-100);
  let ids: string[];
  if (intent) {
    const r = (await api.search({ intent, limit: Math.min(100, k * 3), project })) as { results: { tool: string }[] };
    ids = r.results.map((x) => x.tool);
  } else {
    const r = (await api.suggestNext({
      context: [...new Set(context)].filter((t) => host.upstreamTool(t)),
      limit: Math.min(100, k * 3),
      project,
    })) as { suggestions: { tool: string }[] };
    ids = r.suggestions.map((x) => x.tool);
  }
  return ids.filter((id) => host.upstreamTool(id) !== undefined && policy?.denies(id) === undefined).slice(0, k);
}
