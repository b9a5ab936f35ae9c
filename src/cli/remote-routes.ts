/**
 * Library operation (the method a command calls) → the route of `toolgraph serve` that runs it
 * (src/server/routes.ts): its method, path, body kind and query flags, copied here so a command through a server
 * does not load the route table's schemas; a test checks every row against the route table.
 */
import { OPERATION_LIST, type OperationName } from "../contract/operations.ts";

/** How a route takes its input: a JSON body, JSONL records, or nothing (GET). */
export type Spelling = {
  operationId: string;
  method: "GET" | "POST";
  path: string;
  body: "json" | "jsonl" | "none";
  flags?: readonly string[];
};

/**
 * Library operation (the method a command calls) → the route that runs it on a server: every operation of the
 * table (src/contract/operations.ts: a JSON POST to its path), then the writes that take files or flags, with
 * the route's method, path, body kind and query flags copied here so a command through a server does not load
 * the route table's schemas; a test checks every row against src/server/routes.ts.
 */
const TABLE_ROUTES = Object.fromEntries(
  OPERATION_LIST.map((op) => [
    op.name,
    { operationId: op.http.operationId, method: "POST", path: op.http.path, body: "json" } as Spelling,
  ]),
) as Record<OperationName, Spelling>;

export const REMOTE_OPERATIONS: Record<
  OperationName | "recordExecution" | "importCatalog" | "importTraces" | "importEdges" | "stats",
  Spelling
> = {
  ...TABLE_ROUTES,
  recordExecution: {
    operationId: "recordExecution",
    method: "POST",
    path: "/v1/executions",
    body: "json",
    flags: ["autoRegister"],
  },
  importCatalog: { operationId: "importCatalog", method: "POST", path: "/v1/import/catalog", body: "json" },
  importTraces: {
    operationId: "importTraces",
    method: "POST",
    path: "/v1/import/traces",
    body: "jsonl",
    flags: ["skipInvalid", "autoRegister"],
  },
  importEdges: {
    operationId: "importEdges",
    method: "POST",
    path: "/v1/import/edges",
    body: "jsonl",
    flags: ["skipInvalid"],
  },
  stats: { operationId: "stats", method: "GET", path: "/v1/stats", body: "none" },
};

export type RemoteOperation = keyof typeof REMOTE_OPERATIONS;

export interface RemoteTarget {
  /** Base URL, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Bearer token, if any. */
  token?: string | undefined;
  project: string;
}
