/** The gateway's options and their defaults (gateway.ts takes them; the CLI fills them from its flags). */
import type { GatewayConfig } from "./config.ts";

export const GATEWAY_INFO = { name: "toolgraph-gateway", version: "0.1.0" } as const;

/** What a gateway session tells the client's model (both eras). */
export const GATEWAY_INSTRUCTIONS =
  "This gateway proxies MCP servers and learns from what you call. Use search_tools (or plan_workflow) with your intent to find a tool, " +
  "then call_tool with its id and arguments; suggest_next_tool between steps. Answers marked abstained are not confident: say so.";

export const GATEWAY_DEFAULTS = {
  /** Upstream tools listed directly besides call_tool (0: none). */
  expose: 0,
  learn: true,
  /** A tool unlisted for this long (ms) is retired: out of search and the console, its history kept. */
  retireAfterMs: 600_000,
  /** How often (ms, at most) the gateway looks for tools past the grace period that no sync touched. */
  retireSweepMs: 60_000,
} as const;

export interface GatewayOptions {
  config: GatewayConfig;
  /** Project the catalog and the executions go to. Default: the Toolgraph's project. */
  project?: string | undefined;
  /** Record executions from the sessions' calls. Default true. */
  learn?: boolean | undefined;
  /** List this many recommended upstream tools directly (tools/list_changed as they change). Default 0. */
  expose?: number | undefined;
  /** The user executions are recorded for when a session declares none. Default: the MCP client's name. */
  user?: string | undefined;
  /** Close an execution after this long without a call (ms). Default RECORDER_DEFAULTS.idleMs. */
  idleMs?: number | undefined;
  /** Reconnect backoff bounds and the connect timeout (ms), see UPSTREAM_DEFAULTS. */
  minBackoffMs?: number | undefined;
  maxBackoffMs?: number | undefined;
  connectTimeoutMs?: number | undefined;
  /** Coalescing of tools/list_changed (ms), see UPSTREAM_DEFAULTS. */
  relistDebounceMs?: number | undefined;
  relistMinIntervalMs?: number | undefined;
  /** Retire tools unlisted for longer than this (ms). Default GATEWAY_DEFAULTS.retireAfterMs. */
  retireAfterMs?: number | undefined;
  /** Where lifecycle lines and internal errors go (never stdout). Default stderr. */
  log?: ((line: string) => void) | undefined;
  /** The pin file (trust.ts): first-seen hashes of upstream tools. Default: none, pins kept in memory only.
   *  The CLI uses `<home>/gateway-pins.json`. */
  pinFile?: string | undefined;
  /** Directory for executions that could not be written yet (replayed at the next start). Default: none,
   *  the backlog is kept in memory only. The CLI uses `<home>/gateway-spool`. */
  spoolDir?: string | undefined;
  /** Retry backoff bounds for execution writes (ms), see DURABLE_WRITER_DEFAULTS. */
  writeMinBackoffMs?: number | undefined;
  writeMaxBackoffMs?: number | undefined;
}
