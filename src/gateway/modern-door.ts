/**
 * The gateway's 2026-07-28 face (docs/decisions/gateway-stateless-executions.md). The revision has no
 * sessions, so each `tools/call` names the gateway session (and so the recorded execution) it belongs to:
 *
 * 1. `_meta["toolgraph/execution"]`: an id the client chose for its task (1–200 printable characters);
 * 2. else `_meta.traceparent` (W3C trace context, which the revision carries in `_meta`): its trace id;
 * 3. else the caller: its token identity, its address and the client name of the request's envelope, with
 *    executions cut by the recorder's rules (a new intent, `idleMs` without a call).
 *
 * Every key is scoped by the caller's token identity, so a token's calls never land in another's execution.
 * `tools/list` is the gateway's fixed tools only: identical for every caller (upstream tools are reached
 * through call_tool), which is what the revision's shared cache hints need.
 */
import {
  type CallToolResult as V2CallToolResult,
  Server as V2Server,
  type Tool as V2Tool,
} from "@modelcontextprotocol/server";
import { ToolgraphError } from "../contract/errors.ts";
import { MCP_CACHE_HINTS } from "../mcp/mcp-server.ts";
import type { Gateway } from "./gateway.ts";
import { GATEWAY_INFO, GATEWAY_INSTRUCTIONS } from "./gateway-options.ts";
import type { GatewaySession } from "./gateway-session.ts";
import { errorResult } from "./own-tools.ts";

/** The `_meta` key of a client-chosen execution id. */
export const EXECUTION_META_KEY = "toolgraph/execution";
const MAX_EXECUTION_ID = 200;
/** W3C trace context level 1: version-traceid-parentid-flags, lower-case hex. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** True when `s` holds a control character (U+0000–U+001F, U+007F). */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export interface ExecutionGroup {
  by: "execution" | "trace" | "client";
  /** The gateway session's key: caller identity, kind and value(s), as a JSON array (no two groups share one). */
  key: string;
}

/** The trace id of a valid W3C `traceparent`, or undefined (an invalid one is ignored, as the W3C spec says). */
export function traceId(traceparent: unknown): string | undefined {
  if (typeof traceparent !== "string") return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m || m[1] === "ff" || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return m[2];
}

/**
 * Which execution group a 2026-07-28 call belongs to. `caller.identity` names the token's policy (or none);
 * `caller.peer` is the client's address; `clientName` the envelope's clientInfo name. Throws invalid-input
 * for a malformed `toolgraph/execution`.
 */
export function executionGroup(
  meta: Record<string, unknown> | undefined,
  clientName: string | undefined,
  caller: { identity: string; peer: string },
): ExecutionGroup {
  const scoped = (by: ExecutionGroup["by"], ...values: string[]): ExecutionGroup => ({
    by,
    key: JSON.stringify([caller.identity, by, ...values]),
  });
  const id = meta?.[EXECUTION_META_KEY];
  if (id !== undefined) {
    if (typeof id !== "string" || id.length === 0 || id.length > MAX_EXECUTION_ID || hasControl(id))
      throw new ToolgraphError(
        "invalid-input",
        `params._meta.${EXECUTION_META_KEY}: must be a string of 1 to ${MAX_EXECUTION_ID} printable characters, got ${JSON.stringify(id)?.slice(0, 80)}`,
        { field: `params._meta.${EXECUTION_META_KEY}` },
      );
    return scoped("execution", id);
  }
  const trace = traceId(meta?.traceparent);
  if (trace) return scoped("trace", trace);
  return scoped("client", caller.peer, clientName ?? "");
}

/** What the 2026-07-28 server asks of its door for each call: the session it belongs to. */
export type SessionFor = (call: {
  meta: Record<string, unknown> | undefined;
  clientName: string | undefined;
}) => Promise<GatewaySession>;

/**
 * A 2026-07-28 server for one exchange (HTTP request) or connection (stdio): `tools/list` is the gateway's
 * fixed tools, `tools/call` goes to the session `sessionFor` picks, so trust checks and recording are those
 * of a 2025 session.
 */
export function modernGatewayServer(gateway: Gateway, sessionFor: SessionFor): V2Server {
  // The list is the fixed tools, which change only with the toolgraph version: the same hints as `toolgraph mcp`.
  const server = new V2Server(GATEWAY_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: GATEWAY_INSTRUCTIONS,
    cacheHints: MCP_CACHE_HINTS,
  });
  server.setRequestHandler("tools/list", async () => ({ tools: gateway.toolList([]) as V2Tool[] }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const info = envelope?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown } | undefined;
    const clientName = typeof info?.name === "string" ? info.name : undefined;
    let session: GatewaySession;
    try {
      session = await sessionFor({ meta: request.params._meta as Record<string, unknown> | undefined, clientName });
    } catch (err) {
      return errorResult(err) as V2CallToolResult;
    }
    session.clientIdentified(clientName);
    return (await session.callTool(
      request.params.name,
      (request.params.arguments ?? {}) as Record<string, unknown>,
    )) as V2CallToolResult;
  });
  return server;
}
