/**
 * One tools/call forwarded to an upstream server, its result unchanged; the failures as errors naming the
 * server: down (`upstream-unavailable`), timed out (`upstream-timeout`), the connection failed during the call
 * or the server answered with a JSON-RPC error (`upstream-error`, in the server's own words).
 */
import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolgraphError } from "../contract/errors.ts";
import { message, type UpstreamState } from "./upstream-options.ts";

/** The error of a call to a server that is not up: why, and when the next reconnect is due. */
export function unavailable(
  server: string,
  state: UpstreamState,
  lastError: string | undefined,
  retryAt: number | undefined,
): ToolgraphError {
  const why = lastError ? `: ${lastError}` : "";
  const retry =
    retryAt !== undefined ? `; retrying in ${Math.max(0, Math.round((retryAt - Date.now()) / 1000))} s` : "";
  return new ToolgraphError("upstream-unavailable", `server ${server} is ${state}${why}${retry}`, { server });
}

export async function forwardCall(
  client: Client,
  server: string,
  tool: string,
  args: Record<string, unknown> | undefined,
  timeout: number,
): Promise<CallToolResult> {
  try {
    return (await client.request(
      { method: "tools/call", params: { name: tool, ...(args === undefined ? {} : { arguments: args }) } },
      { timeout },
    )) as CallToolResult;
  } catch (err) {
    if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
      throw new ToolgraphError("upstream-timeout", `server ${server}: ${tool} timed out after ${timeout} ms`, {
        server,
        tool,
      });
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed) {
      throw new ToolgraphError(
        "upstream-error",
        `server ${server}: the connection closed during ${tool} (${err.message})`,
        {
          server,
          tool,
        },
      );
    }
    // A JSON-RPC error from the server (unknown tool, invalid params): the server's own words.
    throw new ToolgraphError("upstream-error", `server ${server}: ${tool}: ${message(err)}`, { server, tool });
  }
}
