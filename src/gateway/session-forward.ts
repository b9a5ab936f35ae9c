/**
 * `call_tool` of a gateway session: the `<server>.<tool>` id resolved to its upstream, refused when the gateway's
 * policy, the pins or the session's policy block it, and forwarded (upstream.ts): the result is the server's,
 * unchanged; an error names the server. A call served while the gateway starts waits (bounded) for the
 * server's first attempt. What the session records of the call is returned with it.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { problemsMessage, zodProblems } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import { GATEWAY_API_DEFAULTS, untilOr } from "./gateway-api.ts";
import { callToolArgs, errorResult } from "./own-tools.ts";
import type { CallRecord } from "./recorded-execution.ts";
import type { SessionHost } from "./session-host.ts";
import type { SessionPolicy } from "./session-policy.ts";
import { splitToolId } from "./tool-map.ts";

/** The answer of one forwarded call, and its record when the server lists the tool (else nothing is learnt). */
export async function forwardToolCall(
  host: SessionHost,
  policy: SessionPolicy | undefined,
  id: string,
  args: Record<string, unknown> | undefined,
): Promise<{ result: CallToolResult; record?: CallRecord | undefined }> {
  const parts = splitToolId(id);
  if (!parts)
    return {
      result: errorResult(
        new ToolgraphError("invalid-input", `call_tool: name: must be <server>.<tool>, got ${JSON.stringify(id)}`),
      ),
    };
  const upstream = host.upstreams.get(parts.server);
  if (!upstream) {
    const servers = [...host.upstreams.keys()].join(", ");
    return {
      result: errorResult(
        new ToolgraphError(
          "unknown-tool",
          `call_tool: no server ${JSON.stringify(parts.server)} (servers: ${servers})`,
        ),
      ),
    };
  }
  // Served before the gateway's start is done: a call waits for the server's first attempt (bounded).
  const starting = upstream.isUp ? undefined : host.inStart?.();
  if (starting) await untilOr(starting, GATEWAY_API_DEFAULTS.syncWaitMs);
  const refused = host.refusal(id) ?? policy?.denies(id);
  if (refused)
    return { result: errorResult(new ToolgraphError("tool-refused", `call_tool: ${id} is ${refused}`, { tool: id })) };
  const known = upstream.tools.some((t) => t.name === parts.tool);
  const at = new Date();
  const t0 = performance.now();
  let result: CallToolResult;
  let success: boolean;
  try {
    result = await upstream.call(parts.tool, args);
    success = result.isError !== true;
  } catch (err) {
    result = errorResult(err);
    success = false;
  }
  const durationMs = performance.now() - t0;
  return { result, record: known ? { tool: id, args, result, success, durationMs, at } : undefined };
}

/** The arguments of `call_tool` (the upstream tool's id and its arguments), or the error result naming the field. */
export function callToolRequest(
  args: Record<string, unknown>,
): { error: CallToolResult } | { name: string; arguments: Record<string, unknown> | undefined } {
  const r = callToolArgs.safeParse(args);
  if (r.success) return { name: r.data.name, arguments: r.data.arguments };
  const problems = zodProblems(r.error.issues);
  const err = new ToolgraphError("invalid-input", `call_tool: ${problemsMessage(problems)}`, {
    field: problems[0]?.field ?? "",
    issues: problems,
  });
  return { error: errorResult(err) };
}

/** The calls of a session being answered: counted, so that the session's end can wait for them. */
export class CallsInFlight {
  private n = 0;
  private idleWaiters: (() => void)[] = [];

  async run<T>(call: () => Promise<T>): Promise<T> {
    this.n++;
    try {
      return await call();
    } finally {
      this.n--;
      if (this.n === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once no call is running. */
  drain(): Promise<void> {
    if (this.n === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}

/** The answer to a tools/call of a name the session does not serve. */
export function unknownTool(name: string): CallToolResult {
  return errorResult(
    new ToolgraphError(
      "unknown-tool",
      `no tool ${JSON.stringify(name)}: call upstream tools through call_tool with their <server>.<tool> id`,
    ),
  );
}
