/**
 * The tools the gateway serves itself: toolgraph's own MCP tools (search_tools, plan_workflow, …), `call_tool`
 * (forwards to an upstream) and `gateway_status` (status-tool.ts), with the MCP error result every door shares.
 *
 * Their JSON Schemas are zod's `toJSONSchema` of the tools' schemas, read from a data file written ahead
 * (own-tool-schemas.json; test/gateway/own-tool-schemas.test.ts checks it equals toJSONSchema's output and rewrites
 * it with `-u`): computing them at start held the event loop 15–35 ms (docs/decisions/gateway-first-answer.md).
 * A tool missing from the file is computed as before.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { errorOutcome } from "../contract/error-mapping.ts";
import { ERROR_META_KEY, MCP_TOOLS } from "../mcp/mcp-server.ts";
import WRITTEN from "./own-tool-schemas.json" with { type: "json" };

/** A tool's input and output JSON Schemas, by tool name, as own-tool-schemas.json holds them. */
export type OwnToolSchemas = Record<string, { input: Tool["inputSchema"]; output?: Tool["outputSchema"] }>;

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

/** The JSON Schemas of the tools with a zod schema (toolgraph's own and call_tool), as zod computes them. */
export function computeOwnToolSchemas(): OwnToolSchemas {
  const input = (schema: z.ZodType) =>
    z.toJSONSchema(schema, { io: "input", target: "draft-7" }) as Tool["inputSchema"];
  const out: OwnToolSchemas = {};
  for (const s of MCP_TOOLS)
    out[s.name] = {
      input: input(s.inputSchema),
      output: z.toJSONSchema(s.outputSchema, { io: "output", target: "draft-7" }) as Tool["outputSchema"],
    };
  out.call_tool = { input: input(callToolArgs) };
  return out;
}

/** The gateway's own tools as tools/list shows them: the schemas from `schemas` (default: the written file). */
export function ownTools(schemas: OwnToolSchemas = WRITTEN as OwnToolSchemas): Tool[] {
  const missing = [...MCP_TOOLS.map((s) => s.name), "call_tool"].some((name) => schemas[name] === undefined);
  const all = missing ? { ...computeOwnToolSchemas(), ...schemas } : schemas;
  const of = (name: string) => all[name]!;
  return [
    ...MCP_TOOLS.map((s) => ({
      name: s.name,
      title: s.title,
      description: s.description,
      inputSchema: of(s.name).input,
      outputSchema: of(s.name).output,
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
      inputSchema: of("call_tool").input,
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
