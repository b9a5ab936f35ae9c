/**
 * What the gateway reports about itself (`gateway_status`, /health, GET /v1/stats, /metrics): its upstream
 * servers, sessions, what was learned and what still waits to be written, quarantined and denied tools.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamStatus } from "./upstream-options.ts";

/** What the gateway has learned so far and what it still has to write. */
export interface RecordedCounts {
  /** Executions and steps stored. */
  executions: number;
  steps: number;
  /** Failed write attempts (each is retried; see backlog). */
  failedWrites: number;
  /** Executions waiting to be written (in memory and spooled) and whether a retry is scheduled. */
  backlog: number;
  spooled: number;
  retrying: boolean;
  /** Executions the store refused, or dropped because the spool was full. */
  rejected: number;
  dropped: number;
  /** Steps left out because the catalog refused their tool (executions with no step left are not written). */
  skippedSteps: number;
}

export interface GatewayStatus {
  servers: UpstreamStatus[];
  /** Names of the servers that are not up. */
  down: string[];
  sessions: number;
  learning: boolean;
  recorded: RecordedCounts;
  /** Upstream tools quarantined because they changed since first seen (trust.ts), and how many the policy denies. */
  quarantined: { tool: string; since: string; firstSeen: string }[];
  denied: number;
}

/** The `gateway_status` tool's answer: a few lines of text, the status as structured content. */
export function statusResult(st: GatewayStatus): CallToolResult {
  const lines = st.servers.map((s) => `${s.server}: ${s.state}${s.error ? ` (${s.error})` : ""}, ${s.tools} tools`);
  const r = st.recorded;
  const learned = `learned: ${r.executions} executions stored; ${r.backlog} waiting to be written (${r.spooled} spooled)${r.retrying ? ", retrying" : ""}`;
  const q = st.quarantined.map((x) => x.tool);
  const quarantine =
    q.length > 0
      ? `\nquarantined: ${q.slice(0, 20).join(", ")}${q.length > 20 ? `, … ${q.length - 20} more` : ""} (approve with toolgraph gateway approve TOOL)`
      : "";
  return {
    content: [
      {
        type: "text",
        text: `gateway: ${st.servers.length - st.down.length} of ${st.servers.length} servers up\n${lines.join("\n")}\n${learned}${quarantine}`,
      },
    ],
    structuredContent: st as unknown as Record<string, unknown>,
  };
}
