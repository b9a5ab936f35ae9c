/**
 * The MCP front door: an McpServer with one tool per operation of the table (src/contract/operations.ts),
 * calling the same RecommenderApi methods as the HTTP server, with each job's request schema as input schema. Each result is a compact text
 * summary (one line per item) plus the full JSON as structuredContent. A gated-out answer is a normal
 * result that says why; `isError` is reserved for real errors (invalid input, unknown tool, no catalog).
 *
 * Arguments are validated once, by the api, with the same schema the tool lists: `tools/call` is answered
 * here instead of by the SDK's handler (which would check them first and word the error its own way,
 * `steps.0.tool`), so an invalid field reads as on every other door (`steps[0].tool`, in `_meta`). Arguments
 * nested deeper than any body may be (LIMITS.documentDepth) are refused first, naming the path.
 *
 * The server is the SDK's v2 McpServer, so one instance serves either protocol era (2025-06-18 / 2025-11-25
 * with `initialize`, 2026-07-28 with `server/discover`): the doors (stdio.ts, http.ts) build one per
 * connection or request. `tools/list` is the same for every caller (the static table), so it and
 * `server/discover` carry a public cache hint on 2026-07-28 (docs/decisions/mcp-protocol-eras.md).
 */

import { type CacheHint, type CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import { errorOutcome } from "../contract/error-mapping.ts";
import { ToolgraphError } from "../contract/errors.ts";
import { LOADED_OPERATIONS, type LoadedOperation } from "../contract/loaded-operations.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { fieldOf } from "../formats/issues.ts";
import { jsonValueDepthProblem } from "../formats/json-text.ts";
import { VERSION } from "../version.ts";
import { executionArgs } from "./execution-input.ts";
import { summarize } from "./summary.ts";

/** Where an isError result carries the error object `{ code, message, field? }`. */
export const ERROR_META_KEY = "toolgraph/error";

export const MCP_SERVER_INFO = { name: "toolgraph", version: VERSION } as const;

export interface McpServerOptions {
  /** Project every tool reads and writes. Default: the api's own project. */
  project?: string | undefined;
  /** Where internal errors are logged (never stdout: stdio carries the protocol). Default stderr. */
  log?: ((line: string) => void) | undefined;
}

type Args = Record<string, unknown>;

/**
 * Cache hints of the 2026-07-28 cacheable results: the tool list and the discover answer depend only on
 * the toolgraph version, never on the caller, so any cache may keep them for an hour.
 */
export const MCP_CACHE_HINTS: Record<"tools/list" | "server/discover", CacheHint> = {
  "tools/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
};

export interface McpToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  /** The result's schema (src/contract/results.ts): the tool's MCP outputSchema. */
  outputSchema: z.ZodObject;
  readOnly: boolean;
  /** Calling it twice with the same arguments has no further effect. Default: readOnly. */
  idempotent?: boolean;
  run(api: RecommenderApi, args: Args, project: { project?: string }): Promise<JsonResult>;
  /** Headline of the text summary. */
  what(args: Args): string;
}

const recordArgs = executionArgs.extend({
  autoRegister: z
    .boolean()
    .optional()
    .describe("Register tools absent from the catalog instead of rejecting the record (default false)"),
});

/** The MCP tool of one operation of the table: its job's request and result schemas, its texts and hints. */
function operationTool({ op, job }: LoadedOperation): McpToolSpec {
  return {
    name: op.mcp.name,
    title: op.mcp.title,
    description: op.mcp.description,
    inputSchema: job.request as z.ZodObject,
    outputSchema: job.result as z.ZodObject,
    readOnly: op.readOnly,
    idempotent: op.idempotent,
    run: (api, a, p) =>
      (api as unknown as Record<string, (r: object) => Promise<JsonResult>>)[op.name]!({ ...a, ...p }),
    what: (a) => op.mcp.headline(a),
  };
}

/** Recording an execution: a write with its own flag (autoRegister), not a job of the table. */
const RECORD_EXECUTION: McpToolSpec = {
  name: "record_execution",
  title: "Record a finished workflow",
  description:
    "Call this once a multi-step workflow has finished (successfully or not) to teach toolgraph what you ran: the tool calls in order with their success. " +
    "Future recommendations learn from it. Recording the same `id` again is a no-op.",
  inputSchema: recordArgs,
  outputSchema: RESULT_SCHEMAS.recordExecution,
  readOnly: false,
  run: (api, a, p) => {
    const { autoRegister, ...execution } = a;
    if (autoRegister !== undefined && typeof autoRegister !== "boolean") {
      throw new ToolgraphError("invalid-input", "autoRegister: must be true or false", { field: "autoRegister" });
    }
    return api.recordExecution(execution, { ...p, autoRegister: autoRegister === true });
  },
  what: (a) => `recorded execution ${String(a.id)}`,
  idempotent: true,
};

/** Every tool: the table's reading operations, then record_execution, then the table's other writes. */
export const MCP_TOOLS: McpToolSpec[] = [
  ...LOADED_OPERATIONS.filter((o) => o.op.readOnly).map(operationTool),
  RECORD_EXECUTION,
  ...LOADED_OPERATIONS.filter((o) => !o.op.readOnly).map(operationTool),
];

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
function unknownToolResult(name: string): ToolResult {
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

/** An McpServer with every toolgraph tool registered, bound to one project (one per connection or request). */
export function createMcpServer(api: RecommenderApi, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    cacheHints: MCP_CACHE_HINTS,
    instructions:
      "toolgraph recommends tools from a graph learned from past executions. Use search_tools before picking a tool, suggest_next_tool between steps, " +
      "plan_workflow or build_dag for multi-step tasks, and record_execution when a workflow ends. Answers marked abstained are not confident: say so.",
  });
  for (const spec of MCP_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.inputSchema,
        outputSchema: spec.outputSchema,
        annotations: {
          title: spec.title,
          readOnlyHint: spec.readOnly,
          destructiveHint: false,
          idempotentHint: spec.idempotent ?? spec.readOnly,
          openWorldHint: false,
        },
      },
      (args: Args) => callTool(api, spec, args, options),
    );
  }
  // tools/list stays the SDK's (JSON Schemas of the specs); tools/call passes the arguments unchecked to
  // the api, which validates them once (see the header).
  const byName = new Map(MCP_TOOLS.map((spec) => [spec.name, spec]));
  server.server.setRequestHandler("tools/call", async (request) => {
    const spec = byName.get(request.params.name);
    const args = request.params.arguments ?? {};
    return spec ? callTool(api, spec, args, options) : unknownToolResult(request.params.name);
  });
  return server;
}
