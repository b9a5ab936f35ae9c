/**
 * The OpenAPI 3.1 document of the HTTP server, generated from the route table and the shared zod schemas
 * (openapi-schemas.ts) with zod 4's `z.toJSONSchema` (draft 2020-12, which OpenAPI 3.1 uses): every path, its request body
 * schema, query flags, the project header, the error responses and the bearer security scheme.
 */

import { VERSION } from "../version.ts";
import {
  ERROR_SCHEMA,
  errorResponse,
  type Json,
  requestJsonSchema,
  resultJsonSchema,
  serverPaths,
} from "./openapi-schemas.ts";
import { JSONL_TYPES, ROUTES, type Route } from "./routes.ts";

export { requestJsonSchema, resultJsonSchema } from "./openapi-schemas.ts";

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
          schema: route.result && route.method === "POST" ? resultJsonSchema(route.result) : { type: "object" },
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
  Object.assign(paths, serverPaths());
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
