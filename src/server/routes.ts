/**
 * The HTTP route table: one entry per operation of RecommenderApi, with the zod schema that validates its
 * body (the shared schemas of src/contract/requests.ts and src/formats/schemas.ts), the content types it accepts,
 * its query flags, and the call it makes. The server (http-server.ts) and the OpenAPI document (openapi.ts)
 * both read this table, so the document cannot drift from what the server does.
 */
import type { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import {
  alternativesRequest,
  buildDagRequest,
  discoverCapabilitiesRequest,
  feedbackRequest,
  matchCapabilitiesRequest,
  planRequest,
  searchRequest,
  suggestNextRequest,
} from "../contract/requests.ts";
import { respellAll } from "../formats/advice.ts";
import { catalogSchema, declaredEdgeSchema, executionSchema, safeId } from "../formats/schemas.ts";
import { HttpError } from "./errors.ts";

export type BodyKind =
  /** application/json: one object validated by `schema`. */
  | "json"
  /** application/x-ndjson (JSONL text) or application/json (an array of records). */
  | "jsonl"
  | "none";

export interface QueryFlag {
  name: string;
  description: string;
}

export interface RouteInput {
  /** The JSON body (json routes; the api validates it), or the array body (jsonl routes sent as JSON). */
  body: unknown;
  /** The raw JSONL text (jsonl routes sent as NDJSON). */
  text: string | undefined;
  project: string | undefined;
  flags: Record<string, boolean | undefined>;
}

export interface Route {
  method: "GET" | "POST";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: "recommend" | "write" | "import" | "meta";
  body: BodyKind;
  /** The schema the api validates a json body with (documented in OpenAPI); documents the records of a jsonl body. */
  schema?: z.ZodType | undefined;
  flags?: QueryFlag[] | undefined;
  /** Needs the bearer token when one is configured. Default true. */
  auth?: boolean | undefined;
  handle(api: RecommenderApi, input: RouteInput): Promise<JsonResult>;
}

export const JSON_TYPES = ["application/json"];
export const JSONL_TYPES = ["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"];

/** A project key: what every read and write is scoped by. */
export const projectSchema = safeId(256);

const skipInvalid: QueryFlag = { name: "skipInvalid", description: "skip (and report) invalid records instead of rejecting the whole body (default false)" };
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
    handle: (api, input) => call(api, { ...(input.body as object), ...p(input) } as z.output<S> & { project?: string }),
  };
}

/** JSONL text, or a JSON array turned into JSONL (one record per line). */
function jsonlText(input: RouteInput): string {
  if (input.text !== undefined) return input.text;
  return (input.body as unknown[]).map((r) => JSON.stringify(r)).join("\n");
}

export const ROUTES: Route[] = [
  recommend(
    "/v1/search",
    "searchTools",
    "Rank the catalog's tools for an intent",
    "Hybrid semantic + graph search over the project's tools; every result carries its score breakdown, explanation and gate decision.",
    searchRequest,
    (api, req) => api.search(req),
  ),
  recommend(
    "/v1/next",
    "suggestNext",
    "Suggest the next tool after the tools run so far",
    "Next-step scores (co-occurrence, community, recency, PageRank) given the workflow so far; gated.",
    suggestNextRequest,
    (api, req) => api.suggestNext(req),
  ),
  recommend(
    "/v1/capabilities/match",
    "matchCapabilities",
    "Match an intent to known capabilities",
    "Capabilities (named multi-tool workflows) ranked for an intent; gated.",
    matchCapabilitiesRequest,
    (api, req) => api.matchCapabilities(req),
  ),
  recommend(
    "/v1/capabilities/discover",
    "discoverCapabilities",
    "Discover capabilities related to the tools in use",
    "Capabilities whose tools cluster with the given context tools (spectral clusters, hypergraph PageRank).",
    discoverCapabilitiesRequest,
    (api, req) => api.discoverCapabilities(req),
  ),
  recommend(
    "/v1/dag",
    "buildDag",
    "Order a set of tools into an execution DAG",
    "Dependencies among the given tools (learned and declared edges), cycles broken, transitive reduction, parallel layers, critical path.",
    buildDagRequest,
    (api, req) => api.buildDag(req),
  ),
  recommend(
    "/v1/plan",
    "planWorkflow",
    "Plan a workflow for an intent",
    "Searches tools for the intent, closes over their dependencies and returns an ordered DAG; gated.",
    planRequest,
    (api, req) => api.plan(req),
  ),
  recommend(
    "/v1/alternatives",
    "findAlternatives",
    "Find alternatives to a tool",
    "Tools that can replace the given one (similar description, same community, same capability); gated.",
    alternativesRequest,
    (api, req) => api.alternatives(req),
  ),
  recommend(
    "/v1/feedback",
    "feedback",
    "Report the outcome of a gated answer",
    "An accepted answer that failed raises the learned threshold of its context (project × operation × domain); an abstention the user followed successfully lowers it.",
    feedbackRequest,
    (api, req) => api.feedback(req),
  ),
  {
    method: "POST",
    path: "/v1/executions",
    operationId: "recordExecution",
    summary: "Record one execution",
    description: "Records one execution (idempotent by id) and updates the graph incrementally. The body is one execution record.",
    tag: "write",
    body: "json",
    schema: executionSchema,
    flags: [autoRegister],
    handle: (api, input) => api.recordExecution(input.body as object, { ...p(input), autoRegister: input.flags.autoRegister ?? false }),
  },
  {
    method: "POST",
    path: "/v1/import/catalog",
    operationId: "importCatalog",
    summary: "Import a catalog of tools and capabilities",
    description: "Upserts the tools and capabilities of a catalog document in one transaction and embeds the new texts.",
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
    description: "JSONL text (application/x-ndjson, one execution per line) or a JSON array of executions; one transaction.",
    tag: "import",
    body: "jsonl",
    schema: executionSchema,
    flags: [skipInvalid, autoRegister],
    handle: async (api, input) => {
      const opts = { ...p(input), skipInvalid: input.flags.skipInvalid ?? false, autoRegister: input.flags.autoRegister ?? false };
      const r = await (input.text !== undefined ? api.importTraces(input.text, opts) : api.importTraces(input.body as object[], opts));
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
    handle: (api, input) => api.importEdges(jsonlText(input), { ...p(input), skipInvalid: input.flags.skipInvalid ?? false }),
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

/** Parses `?flag=true|false|1|0` (absent = undefined). */
export function parseFlags(route: Route, query: URLSearchParams): Record<string, boolean | undefined> {
  const out: Record<string, boolean | undefined> = {};
  for (const f of route.flags ?? []) {
    const v = query.get(f.name);
    if (v === null) continue;
    if (v === "" || v === "true" || v === "1") out[f.name] = true;
    else if (v === "false" || v === "0") out[f.name] = false;
    else throw new HttpError(400, "invalid-input", `${f.name}: must be true or false, got ${JSON.stringify(v).slice(0, 40)}`, { field: f.name });
  }
  return out;
}
