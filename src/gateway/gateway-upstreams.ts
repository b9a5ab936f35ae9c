/**
 * The gateway's upstream servers as its sessions see them: one Upstream per configured server, the upstream
 * tool behind a catalog id, the tool list a session is served (own tools plus the exposed upstream tools,
 * display-safe), and the named policy a token selects (session-policy.ts).
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import type { GatewayConfig } from "../contract/gateway-config.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import { SessionPolicy } from "./session-policy.ts";
import { catalogToolId, displayText, splitToolId } from "./tool-map.ts";
import { Upstream } from "./upstream.ts";

export type Upstreams = ReadonlyMap<string, Upstream>;

/** One Upstream per configured server, reporting its tool lists to `onTools`. */
export function createUpstreams(
  options: GatewayOptions,
  onTools: (server: string, tools: Tool[]) => void,
  log: (line: string) => void,
): Map<string, Upstream> {
  const upstreams = new Map<string, Upstream>();
  for (const [name, config] of options.config.servers) {
    upstreams.set(
      name,
      new Upstream(name, config, {
        onTools,
        log,
        minBackoffMs: options.minBackoffMs,
        maxBackoffMs: options.maxBackoffMs,
        connectTimeoutMs: options.connectTimeoutMs,
        relistDebounceMs: options.relistDebounceMs,
        relistMinIntervalMs: options.relistMinIntervalMs,
      }),
    );
  }
  return upstreams;
}

/** The upstream tool behind a catalog id, if its server currently lists it. */
export function upstreamTool(
  upstreams: Upstreams,
  id: string,
): { server: string; upstream: Upstream; tool: Tool } | undefined {
  const p = splitToolId(id);
  const u = p && upstreams.get(p.server);
  const tool = u?.tools.find((t) => t.name === p!.tool);
  return u && tool ? { server: p!.server, upstream: u, tool } : undefined;
}

/** The gateway's own tools, then each exposed upstream tool that is listed and not blocked, display-safe. */
export function servedToolList(
  own: readonly Tool[],
  upstreams: Upstreams,
  exposed: readonly string[],
  isBlocked: (id: string) => boolean,
): Tool[] {
  const out = [...own];
  for (const id of exposed) {
    const t = upstreamTool(upstreams, id);
    if (!t || isBlocked(id)) continue;
    const title = typeof t.tool.title === "string" ? { title: displayText(t.tool.title) } : {};
    out.push({
      ...t.tool,
      ...title,
      name: id,
      description: displayText(`[${t.server}] ${t.tool.description ?? ""}`.trim()),
    });
  }
  return out;
}

/** The session policy a token names (config `policies`); an unknown name is an error naming the field. */
export function namedPolicy(
  name: string,
  config: GatewayConfig,
  upstreams: Upstreams,
  generation: () => number,
): SessionPolicy {
  const policy = config.policies?.get(name);
  if (!policy)
    throw new ToolgraphError(
      "invalid-input",
      `policy: no policy ${JSON.stringify(name)} in the gateway config (policies: ${[...(config.policies?.keys() ?? [])].join(", ") || "none"})`,
      { field: "policy" },
    );
  return new SessionPolicy(name, policy, {
    toolOf: (id) => upstreamTool(upstreams, id)?.tool,
    allTools: () =>
      [...upstreams].flatMap(([server, u]) => u.tools.map((tool) => ({ id: catalogToolId(server, tool.name), tool }))),
    generation,
  });
}
