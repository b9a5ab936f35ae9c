/**
 * The parts of the OpenAPI document (openapi.ts) that are not the route table's: JSON Schemas of the shared zod
 * schemas (zod 4's `z.toJSONSchema`, draft 2020-12 as OpenAPI 3.1 uses), the error body, and the server's own
 * paths.
 */

import { z } from "zod";
import { MCP_TOOLS } from "../mcp/tools.ts";

export type Json = { [key: string]: unknown };

/** JSON Schema of a request schema as a client sends it (input side; dates as strings). */
export function requestJsonSchema(schema: z.ZodType): Json {
  const s = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      if ((ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def.type === "date") {
        ctx.jsonSchema.type = "string";
        ctx.jsonSchema.format = "date-time";
      }
    },
  }) as Json;
  delete s.$schema;
  return s;
}

/** JSON Schema of a result as the server sends it. */
export function resultJsonSchema(schema: z.ZodType): Json {
  const s = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
  delete s.$schema;
  return s;
}

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

export const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: {
          type: "string",
          description:
            "invalid-input, unknown-tool, unauthorized, not-found, method-not-allowed, payload-too-large, unsupported-media-type, database-locked, internal…",
        },
        message: { type: "string" },
        field: {
          type: "string",
          description: "The offending field (e.g. intent, context[2], steps[0].tool); empty for the whole body.",
        },
        details: { description: "Every problem found, when there is more than one." },
      },
    },
  },
} as const;

/** The server's own paths (not in the route table): /health, /openapi.json and /mcp. */
export function serverPaths(): Json {
  const paths: Json = {};
  paths["/health"] = {
    get: {
      operationId: "health",
      summary: "Liveness and database check (no auth; one SELECT 1, no counts)",
      description: "`?details=1` adds the project's counts (the stats) and needs the bearer token when one is set.",
      security: [],
      responses: {
        "200": {
          description: "Up",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { ok: { const: true }, backend: { type: "string" }, project: { type: "string" } },
              },
            },
          },
        },
        "401": errorResponse("`details` asked without the bearer token"),
        "503": {
          description: "The database did not answer",
          content: {
            "application/json": { schema: { type: "object", properties: { ok: { const: false }, error: {} } } },
          },
        },
      },
    },
  };
  paths["/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      responses: {
        "200": { description: "OpenAPI 3.1 document", content: { "application/json": { schema: { type: "object" } } } },
        "401": errorResponse("Missing or wrong bearer token"),
      },
    },
  };
  paths["/mcp"] = {
    post: {
      operationId: "mcp",
      summary: "MCP Streamable HTTP endpoint (stateless; JSON-RPC 2.0)",
      description: `Model Context Protocol over Streamable HTTP. Send Accept: application/json, text/event-stream. Tools: ${MCP_TOOLS.map((t) => t.name).join(", ")}.`,
      parameters: [{ $ref: "#/components/parameters/Project" }],
      requestBody: {
        required: true,
        content: { "application/json": { schema: { type: "object", description: "A JSON-RPC 2.0 message or batch" } } },
      },
      responses: {
        "200": { description: "JSON-RPC response", content: { "application/json": { schema: { type: "object" } } } },
        "202": { description: "Notification accepted" },
        "400": { description: "Parse error or invalid JSON-RPC" },
        "401": errorResponse("Missing or wrong bearer token"),
        "405": errorResponse("Only POST (stateless)"),
        "413": errorResponse("Body over the size limit"),
      },
    },
  };
  return paths;
}
