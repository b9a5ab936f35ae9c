/**
 * The OpenAPI 3.1 document of the HTTP server, generated from the route table and the shared zod schemas
 * with zod 4's `z.toJSONSchema` (draft 2020-12, which OpenAPI 3.1 uses): every path, its request body
 * schema, query flags, the project header, the error responses and the bearer security scheme.
 */

import { z } from "zod";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { VERSION } from "../version.ts";
import { JSONL_TYPES, ROUTES, type Route } from "./routes.ts";

type Json = { [key: string]: unknown };

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

/** The 200 body of each route, from the result schemas shared with the MCP tools' outputSchema. */
const RESULT_BY_PATH: Record<string, z.ZodType> = {
  "/v1/search": RESULT_SCHEMAS.search,
  "/v1/next": RESULT_SCHEMAS.suggestNext,
  "/v1/capabilities/match": RESULT_SCHEMAS.matchCapabilities,
  "/v1/capabilities/discover": RESULT_SCHEMAS.discoverCapabilities,
  "/v1/dag": RESULT_SCHEMAS.buildDag,
  "/v1/plan": RESULT_SCHEMAS.plan,
  "/v1/alternatives": RESULT_SCHEMAS.alternatives,
  "/v1/feedback": RESULT_SCHEMAS.feedback,
  "/v1/executions": RESULT_SCHEMAS.recordExecution,
};

/** JSON Schema of a result as the server sends it. */
export function resultJsonSchema(schema: z.ZodType): Json {
  const s = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
  delete s.$schema;
  return s;
}

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const ERROR_SCHEMA = {
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

function requestBody(route: Route): Json | undefined {
  if (route.body === "none" || !route.schema) return undefined;
  const schema = requestJsonSchema(route.schema);
  if (route.body === "json") {
    if (schema.type === "object" && schema.properties && typeof schema.properties === "object") {
      schema.properties = {
        ...(schema.properties as Json),
        project: {
          type: "string",
          description:
            "Project (tenant); overrides the default. Must match the x-toolgraph-project header when both are sent.",
        },
      };
    }
    return { required: true, content: { "application/json": { schema } } };
  }
  const content: Json = {};
  for (const t of JSONL_TYPES)
    content[t] = {
      schema: {
        type: "string",
        description: "JSONL: one record per line (each line matches the application/json item schema)",
      },
    };
  content["application/json"] = { schema: { type: "array", items: schema } };
  return { required: true, content };
}

function operation(route: Route): Json {
  const parameters: Json[] = [{ $ref: "#/components/parameters/Project" }];
  if (route.method === "GET") parameters.push({ $ref: "#/components/parameters/ProjectQuery" });
  for (const f of route.flags ?? [])
    parameters.push({
      name: f.name,
      in: "query",
      required: false,
      description: f.description,
      schema: { type: "boolean" },
    });
  const body = requestBody(route);
  const responses: Json = {
    "200": {
      description: "The result (JSON object; recommendations carry explanation and gate fields)",
      content: {
        "application/json": {
          schema:
            RESULT_BY_PATH[route.path] && route.method === "POST"
              ? resultJsonSchema(RESULT_BY_PATH[route.path]!)
              : { type: "object" },
        },
      },
    },
    "401": errorResponse("Missing or wrong bearer token"),
    "500": errorResponse("Internal error (logged by the server)"),
    "503": errorResponse("Database locked or unreachable, or the server is shutting down; retry"),
  };
  if (route.method === "POST" || route.flags?.length)
    responses["400"] = errorResponse("Invalid input: the field and the problem");
  if (body) {
    responses["413"] = errorResponse("Body over the size limit");
    responses["415"] = errorResponse("Content type not accepted");
  }
  if (route.tag === "recommend")
    responses["404"] = errorResponse("The project has no tools yet (code empty-project): import a catalog first");
  responses["405"] = errorResponse("Method not allowed (see the Allow header)");
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

export function buildOpenApiDocument(version = VERSION): Json {
  const paths: Json = {};
  for (const r of ROUTES) {
    paths[r.path] = { ...(paths[r.path] as Json | undefined), [r.method.toLowerCase()]: operation(r) };
  }
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
      description:
        "Model Context Protocol over Streamable HTTP. Send Accept: application/json, text/event-stream. Tools: search_tools, suggest_next_tool, search_capabilities, discover_capabilities, build_dag, plan_workflow, find_alternatives, record_execution.",
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
  return {
    openapi: "3.1.0",
    info: {
      title: "toolgraph",
      version,
      description:
        "Graph-analytics tool recommender: search, next step, capabilities, DAG and plan, each answer with its explanation and gate decision.",
    },
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "recommend", description: "Read-only recommendations" },
      { name: "write", description: "Recording executions" },
      { name: "import", description: "Bulk imports" },
      { name: "meta", description: "Counts and health" },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "Required when the server has a token (TOOLGRAPH_TOKEN)",
        },
      },
      parameters: {
        Project: {
          name: "x-toolgraph-project",
          in: "header",
          required: false,
          description: "Project (tenant) to read and write; default the server's project",
          schema: { type: "string", minLength: 1, maxLength: 256 },
        },
        ProjectQuery: {
          name: "project",
          in: "query",
          required: false,
          description: "Project (tenant), for GET requests",
          schema: { type: "string", minLength: 1, maxLength: 256 },
        },
      },
      schemas: { Error: ERROR_SCHEMA },
    },
  };
}
