/**
 * `toolgraph/gateway` — the gateway as a library: `new Gateway(toolgraph, { config })` connects to the upstream
 * MCP servers of a config (parsed with `parseGatewayConfig` or read with `loadGatewayConfig`), keeps their tools
 * in the catalog and serves MCP sessions that forward `call_tool` and learn from every call — what
 * `toolgraph gateway --config FILE` runs, for a program that embeds it in its own process.
 */
export {
  GATEWAY_CONFIG_DEFAULTS,
  type GatewayConfig,
  loadGatewayConfig,
  parseGatewayConfig,
  type RemoteServerConfig,
  type StdioServerConfig,
  type UpstreamConfig,
} from "./config.ts";
export {
  GATEWAY_DEFAULTS,
  Gateway,
  type GatewayOptions,
  GatewaySession,
  type GatewayStatus,
  type RecordedCounts,
} from "./gateway.ts";
