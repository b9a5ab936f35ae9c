/**
 * One MCP tool call (mcp-server.ts routes tools/call here): arguments nested past LIMITS.documentDepth are refused
 * first, naming the path; then the api validates and answers. The result is a text summary (one line per item) plus
 * the full JSON as structuredContent; a real error (invalid input, unknown tool, no catalog) is an isError result
 * whose error object `{ code, message, field? }` travels in `_meta` (the one mapping: contract/error-mapping.ts).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RecommenderApi } from "../contract/api.ts";
import { errorOutcome } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import { fieldOf } from "../formats/issues.ts";
import { jsonValueDepthProblem } from "../formats/json-text.ts";
import { summarize } from "./summary.ts";
import type { Args, McpToolSpec } from "./tools.ts";

/** Where an isError result carries the error object `{ code, message, field? }`. */
export const ERROR_META_KEY = "toolgraph/error";

export interface McpServerOptions {
  /** Project every tool reads and writes. Default: the api's own project. */
  project?: string | undefined;
  /** Where internal errors are logged (never stdout: stdio carries the protocol). Default stderr. */
  log?: ((line: string) => void) | undefined;
}

function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A tool's result: its structuredContent is always a JSON object (the result schemas are objects). */
export type ToolResult = CallToolResult & { structuredContent?: Record<string, unknown> };

/** Runs one tool call: the result as text + structuredContent, or an isError result for real errors. */
export async function callTool(
  api: RecommenderApi,
  spec: McpToolSpec,
  args: Args,
  options: McpServerOptions = {},
): Promise<ToolResult> {
  const scope = options.project === undefined ? {} : { project: options.project };
  try {
    // Arguments nested past the bound of every body (LIMITS.documentDepth) are refused before anything walks them.
    const deep = jsonValueDepthProblem(args);
    if (deep) {
      const field = fieldOf(deep.path);
      throw new ToolgraphError("invalid-input", `${field ? `${field}: ` : ""}${deep.message}`, { field });
    }
    // Results are plain JSON objects (contract.ts); structuredContent wants an indexable record.
    const result = (await spec.run(api, args, scope)) as Record<string, unknown>;
    return { content: [{ type: "text", text: summarize(spec.what(args), result) }], structuredContent: result };
  } catch (err) {
    const m = errorOutcome(err, "mcp");
    if (m.internal)
      (options.log ?? stderrLog)(
        `toolgraph mcp: ${spec.name}: internal error: ${(err as Error)?.stack ?? String(err)}`,
      );
    const e = {
      code: m.code,
      message: m.message,
      ...(m.field !== undefined ? { field: m.field } : {}),
      ...(m.details !== undefined ? { details: m.details } : {}),
    };
    // No structuredContent on an error: it would have to match the tool's outputSchema (clients check it).
    // The error object (code, message, field) travels in _meta.
    return {
      isError: true,
      content: [{ type: "text", text: `${e.code}: ${e.message}` }],
      _meta: { [ERROR_META_KEY]: e },
    };
  }
}

/** An isError result for a tool name no spec has (as the SDK's handler would answer, with toolgraph's error object). */
export function unknownToolResult(name: string): ToolResult {
  const e = {
    code: "unknown-tool",
    message: `no tool ${JSON.stringify(name).slice(0, 200)} (see tools/list)`,
    field: "name",
  };
  return {
    isError: true,
    content: [{ type: "text", text: `${e.code}: ${e.message}` }],
    _meta: { [ERROR_META_KEY]: e },
  };
}
