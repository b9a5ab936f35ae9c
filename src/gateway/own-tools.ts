/**
 * The tools the gateway serves itself: toolgraph's own MCP tools (search_tools, plan_workflow, …), `call_tool`
 * (forwards to an upstream) and `gateway_status` (status-tool.ts), with the MCP error result every door shares.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorOutcome } from "../contract/error-mapping.ts";
import { ERROR_META_KEY, MCP_TOOLS } from "../mcp/mcp-server.ts";

export const callToolArgs = z
  .object({
    name: z
      .string()
      .min(1)
      .max(512)
      .describe("The tool to call, as `<server>.<tool>` (the id search_tools and plan_workflow return)"),
    arguments: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The tool's arguments, matching its inputSchema (as returned by search_tools)"),
  })
  .strict();

const CALL_TOOL_DESCRIPTION =
  "Call an upstream tool through the gateway: `name` is its id `<server>.<tool>` as search_tools / plan_workflow return it, `arguments` its input. " +
  "Returns the upstream server's result unchanged (content, structuredContent, isError). If the server is down or times out, the result is an error naming the server.";

function jsonSchema(schema: z.ZodType): Tool["inputSchema"] {
  return z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Tool["inputSchema"];
}

/** The gateway's own tools as tools/list shows them. */
export function ownTools(): Tool[] {
  return [
    ...MCP_TOOLS.map((s) => ({
      name: s.name,
      title: s.title,
      description: s.description,
      inputSchema: jsonSchema(s.inputSchema),
      outputSchema: z.toJSONSchema(s.outputSchema, { io: "output", target: "draft-7" }) as Tool["outputSchema"],
      annotations: {
        title: s.title,
        readOnlyHint: s.readOnly,
        destructiveHint: false,
        idempotentHint: s.idempotent ?? s.readOnly,
        openWorldHint: false,
      },
    })),
    {
      name: "call_tool",
      title: "Call an upstream tool",
      description: CALL_TOOL_DESCRIPTION,
      inputSchema: jsonSchema(callToolArgs),
      annotations: { title: "Call an upstream tool", readOnlyHint: false, openWorldHint: true },
    },
    {
      name: "gateway_status",
      title: "Gateway status",
      description:
        "The upstream servers behind this gateway: which are up or down (and why, and when the next reconnect is due), their tool counts, and what was learned so far.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { title: "Gateway status", readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
  ];
}

/** An error as an MCP tool result: the code and message as text, the structured error in `_meta`. */
export function errorResult(err: unknown): CallToolResult {
  const m = errorOutcome(err, "mcp");
  const e = { code: m.code, message: m.message, ...(m.field !== undefined ? { field: m.field } : {}) };
  return {
    isError: true,
    content: [{ type: "text", text: `${e.code}: ${e.message}` }],
    _meta: { [ERROR_META_KEY]: e },
  };
}
