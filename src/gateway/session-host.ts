/** What a gateway session needs of its gateway (gateway.ts implements it; gateway-session.ts uses it). */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Toolgraph } from "../library/toolgraph.ts";
import type { McpToolSpec } from "../mcp/mcp-server.ts";
import type { GatewayOptions } from "./gateway-options.ts";
import type { RecordedExecution } from "./recorded-execution.ts";
import type { GatewayStatus } from "./status-tool.ts";
import type { Upstream } from "./upstream.ts";

/** What a session needs of its gateway (gateway.ts implements it). */
export interface SessionHost {
  readonly options: Pick<GatewayOptions, "idleMs" | "expose">;
  /** The library (for the exposed tools' recommendations) and the api as the sessions call it (gatewayApi). */
  readonly api: Toolgraph;
  readonly served: Toolgraph;
  readonly project: string;
  readonly learning: boolean;
  readonly upstreams: ReadonlyMap<string, Upstream>;
  write(execution: RecordedExecution): void;
  toolList(exposed: readonly string[]): Tool[];
  status(): GatewayStatus;
  spec(name: string): McpToolSpec | undefined;
  refusal(id: string): string | undefined;
  /** While the gateway starts (its upstreams' first attempt), a promise of its end (gateway.ts). */
  inStart?(): Promise<void> | undefined;
  upstreamTool(id: string): { server: string; upstream: Upstream; tool: Tool } | undefined;
  /** The session has ended (the gateway forgets it). */
  sessionEnded(session: { readonly id: string }): void;
}
