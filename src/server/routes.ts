/**
 * The HTTP route table: one route per operation of the table (src/contract/operations.ts), with the schema
 * of its job as the body's, then the writes (record, imports, stats); the content types each accepts,
 * its query flags, and the call it makes. The server (http-server.ts) and the OpenAPI document (openapi.ts)
 * both read this table, so the document cannot drift from what the server does.
 */
import type { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import { LOADED_OPERATIONS } from "../contract/loaded-operations.ts";
import { RESULT_SCHEMAS } from "../contract/results.ts";
import { respellAll } from "../formats/advice.ts";
import { catalogSchema, declaredEdgeSchema, executionSchema } from "../formats/schemas.ts";
import type { QueryFlag, Route, RouteInput } from "./route.ts";

export {
  type BodyKind,
  JSON_TYPES,
  JSONL_TYPES,
  parseFlags,
  projectSchema,
  type QueryFlag,
  type Route,
  type RouteInput,
} from "./route.ts";

const skipInvalid: QueryFlag = {
  name: "skipInvalid",
  description: "skip (and report) invalid records instead of rejecting the whole body (default false)",
};
const autoRegister: QueryFlag = {
  name: "autoRegister",
  description: "register tools and capabilities named by the executions but absent from the catalog (default false)",
};

const p = (input: RouteInput) => (input.project === undefined ? {} : { project: input.project });

function recommend<S extends z.ZodType>(
  path: string,
  operationId: string,
  summary: string,
  description: string,
  schema: S,
  result: z.ZodType,
  call: (api: RecommenderApi, req: z.output<S> & { project?: string }) => Promise<JsonResult>,
): Route {
  return {
    method: "POST",
    path,
    operationId,
    summary,
    description,
    tag: "recommend",
    body: "json",
    schema,
    result,
    handle: (api, input) => call(api, { ...(input.body as object), ...p(input) } as z.output<S> & { project?: string }),
  };
}

/** JSONL text, or a JSON array turned into JSONL (one record per line). */
function jsonlText(input: RouteInput): string {
  if (input.text !== undefined) return input.text;
  return (input.body as unknown[]).map((r) => JSON.stringify(r)).join("\n");
}

/** One route per operation of the table (POST, JSON body = the job's request), then the writes that take files. */
export const ROUTES: Route[] = [
  ...LOADED_OPERATIONS.map(({ op, job }) =>
    recommend(op.http.path, op.http.operationId, op.summary, op.description, job.request, job.result, (api, req) =>
      (api as unknown as Record<string, (r: object) => Promise<JsonResult>>)[op.name]!(req),
    ),
  ),
  {
    method: "POST",
    path: "/v1/executions",
    operationId: "recordExecution",
    summary: "Record one execution",
    description:
      "Records one execution (idempotent by id) and updates the graph incrementally. The body is one execution record.",
    tag: "write",
    body: "json",
    schema: executionSchema,
    result: RESULT_SCHEMAS.recordExecution,
    flags: [autoRegister],
    handle: (api, input) =>
      api.recordExecution(input.body as object, { ...p(input), autoRegister: input.flags.autoRegister ?? false }),
  },
  {
    method: "POST",
    path: "/v1/import/catalog",
    operationId: "importCatalog",
    summary: "Import a catalog of tools and capabilities",
    description:
      "Upserts the tools and capabilities of a catalog document in one transaction and embeds the new texts.",
    tag: "import",
    body: "json",
    schema: catalogSchema,
    handle: (api, input) => api.importCatalog(input.body as object, p(input)),
  },
  {
    method: "POST",
    path: "/v1/import/traces",
    operationId: "importTraces",
    summary: "Import execution traces",
    description:
      "JSONL text (application/x-ndjson, one execution per line) or a JSON array of executions; one transaction.",
    tag: "import",
    body: "jsonl",
    schema: executionSchema,
    flags: [skipInvalid, autoRegister],
    handle: async (api, input) => {
      const opts = {
        ...p(input),
        skipInvalid: input.flags.skipInvalid ?? false,
        autoRegister: input.flags.autoRegister ?? false,
      };
      const r = await (input.text !== undefined
        ? api.importTraces(input.text, opts)
        : api.importTraces(input.body as object[], opts));
      // Skipped lines advise what an HTTP request can change (?autoRegister=true), not the CLI's flag.
      return { ...r, invalid: respellAll(r.invalid, "http") };
    },
  },
  {
    method: "POST",
    path: "/v1/import/edges",
    operationId: "importEdges",
    summary: "Import declared edges",
    description: "JSONL text (application/x-ndjson, one edge per line) or a JSON array of edges; one transaction.",
    tag: "import",
    body: "jsonl",
    schema: declaredEdgeSchema,
    flags: [skipInvalid],
    handle: (api, input) =>
      api.importEdges(jsonlText(input), { ...p(input), skipInvalid: input.flags.skipInvalid ?? false }),
  },
  {
    method: "GET",
    path: "/v1/stats",
    operationId: "stats",
    summary: "Counts of the project",
    description: "Tools, capabilities, edges, executions and steps of the project, with the backend.",
    tag: "meta",
    body: "none",
    handle: (api, input) => api.stats(p(input)),
  },
];
