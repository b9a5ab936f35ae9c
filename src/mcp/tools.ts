/**
 * The MCP tools (mcp-server.ts serves them): one per operation of the table (src/contract/operations.ts), with
 * its job's request and result schemas, its texts and hints, plus record_execution (a write with its own flag).
 */
import { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import { ToolgraphError } from "../contract/errors.ts";
import { LOADED_OPERATIONS, type LoadedOperation } from "../contract/loaded-operations.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { executionArgs } from "./execution-input.ts";

export type Args = Record<string, unknown>;

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
