/**
 * What a route of the HTTP table is (routes.ts holds the table): its method, path, body kind and schema, query
 * flags and call; the content types the bodies may have, and the parsing of the flags.
 */
import type { z } from "zod";
import type { JsonResult, RecommenderApi } from "../contract/api.ts";
import { safeId } from "../formats/schemas.ts";
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
  /** The schema of the 200 body (documented in OpenAPI): the job's result schema, shared with the MCP tools. */
  result?: z.ZodType | undefined;
  flags?: QueryFlag[] | undefined;
  /** Needs the bearer token when one is configured. Default true. */
  auth?: boolean | undefined;
  handle(api: RecommenderApi, input: RouteInput): Promise<JsonResult>;
}

export const JSON_TYPES = ["application/json"];
export const JSONL_TYPES = [
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/x-jsonlines",
];

/** A project key: what every read and write is scoped by. */
export const projectSchema = safeId(256);

/** Parses `?flag=true|false|1|0` (absent = undefined). */
export function parseFlags(route: Route, query: URLSearchParams): Record<string, boolean | undefined> {
  const out: Record<string, boolean | undefined> = {};
  for (const f of route.flags ?? []) {
    const v = query.get(f.name);
    if (v === null) continue;
    if (v === "" || v === "true" || v === "1") out[f.name] = true;
    else if (v === "false" || v === "0") out[f.name] = false;
    else
      throw new HttpError(
        400,
        "invalid-input",
        `${f.name}: must be true or false, got ${JSON.stringify(v).slice(0, 40)}`,
        { field: f.name },
      );
  }
  return out;
}
