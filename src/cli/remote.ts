/**
 * The CLI through a running server: a stand-in for the library whose operations are HTTP requests to
 * `toolgraph serve`'s routes (src/server/routes.ts), so a command prints what it prints locally while the
 * server holds the embedded data directory, or when `--server URL` / TOOLGRAPH_SERVER names one.
 *
 * One table, `REMOTE_OPERATIONS`, maps each library operation a command calls to the route that runs it;
 * one function, `callRoute`, turns the call's arguments into the request:
 *   - a json route: the request object (or a file's JSON text) as the body;
 *   - a jsonl route: the records as application/x-ndjson text;
 *   - a route without a body: GET;
 *   - the options named by the route's query flags (autoRegister, skipInvalid) as `?flag=true`;
 *   - the project as the `x-toolgraph-project` header, the token as `Authorization: Bearer`.
 * The answer is the library's: JSON, with import problems spelled as the library spells them (the route
 * spells them for HTTP) and named after the file that was sent. An error answer becomes the library's error
 * (a ToolgraphError with the server's code and message), so exit codes match the local run.
 */
import { readFile } from "node:fs/promises";
import { OPERATION_LIST, type Operation, type OperationName } from "../contract/operations.ts";
import type { Toolgraph } from "../library/toolgraph.ts";

/** How a route takes its input: a JSON body, JSONL records, or nothing (GET). */
type Spelling = {
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

/** A library-shaped client of the server at `target` (typed as the Toolgraph the commands use). */
export function remoteToolgraph(target: RemoteTarget): Toolgraph {
  const client: Record<string, unknown> = { remote: target, project: target.project, close: async () => {} };
  for (const op of Object.keys(REMOTE_OPERATIONS) as RemoteOperation[]) {
    client[op] = (input?: unknown, opts?: Record<string, unknown>) => callRoute(target, op, input, opts ?? {});
  }
  // The facade's generic entry (commands generated from the table call it): the same route as the method.
  client.run = (operation: Operation, req: unknown) => callRoute(target, operation.name as RemoteOperation, req, {});
  return client as unknown as Toolgraph;
}

type FileInput = { file: string };
const isFile = (v: unknown): v is FileInput =>
  typeof v === "object" && v !== null && typeof (v as FileInput).file === "string";

/** Runs one library operation on the server; resolves the library's answer, rejects with the library's error. */
export async function callRoute(
  target: RemoteTarget,
  op: RemoteOperation,
  input: unknown,
  opts: Record<string, unknown>,
): Promise<never> {
  const route: Spelling = REMOTE_OPERATIONS[op];
  // A one-argument operation (stats) takes its options first.
  const options = route.body === "none" ? ((input ?? {}) as Record<string, unknown>) : opts;
  const url = new URL(route.path, target.url);
  for (const f of route.flags ?? []) if (options[f] !== undefined) url.searchParams.set(f, String(options[f]));
  const headers: Record<string, string> = {
    "x-toolgraph-project": typeof options.project === "string" ? options.project : target.project,
  };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  let body: string | undefined;
  if (route.body !== "none") {
    const text = isFile(input) ? await readFile(input.file, "utf8") : typeof input === "string" ? input : undefined;
    if (route.body === "jsonl" && text !== undefined) {
      headers["content-type"] = "application/x-ndjson";
      body = text;
    } else {
      headers["content-type"] = "application/json";
      body = text ?? JSON.stringify(input);
    }
  }
  let res: { status: number; text: string };
  try {
    res = await send(url, route.method, headers, body);
  } catch (err) {
    const { ToolgraphError } = await import("../contract/errors.ts");
    throw new ToolgraphError(
      "database-unreachable",
      `the server at ${target.url} did not answer (${(err as Error).message})`,
      { server: target.url },
    );
  }
  const text = res.text;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(
      `the server at ${target.url} answered ${res.status} with a body that is not JSON: ${text.slice(0, 120)}`,
    );
  }
  if (res.status < 200 || res.status > 299) throw await remoteError(target, res.status, answer);
  return asLibraryAnswer(answer, isFile(input) ? input.file : undefined) as never;
}

/**
 * One request with node:http(s) (Node's fetch loads its HTTP client on first use: measured in
 * docs/decisions/everyday-budget.md); resolves the status and the body's text.
 */
async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; text: string }> {
  const { request } = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve, reject) => {
    // One connection, closed after the answer: a kept-alive socket would hold the process open.
    const sized = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const req = request(url, { method, agent: false, headers: { ...sized, connection: "close" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Import problems (`invalid`) spelled for the library and named after the local file, as a local run reports them. */
async function asLibraryAnswer(answer: unknown, file: string | undefined): Promise<unknown> {
  const invalid = (answer as { invalid?: unknown } | null)?.invalid;
  if (!Array.isArray(invalid) || invalid.length === 0) return answer;
  const { respellFrom } = await import("../formats/advice.ts");
  const local = invalid.map((e) => ({
    ...e,
    ...(file !== undefined ? { file } : {}),
    message: e.advice ? respellFrom(e.message, e.advice, "http", "library") : e.message,
  }));
  return { ...(answer as object), invalid: local };
}

/** The server's error answer as the library's error: its code decides the exit code, as locally. */
async function remoteError(target: RemoteTarget, status: number, answer: unknown): Promise<Error> {
  const e = (
    answer as {
      error?: { code?: unknown; message?: unknown; field?: unknown; details?: unknown; advice?: unknown };
    } | null
  )?.error;
  if (typeof e?.code !== "string" || typeof e.message !== "string")
    return new Error(`the server at ${target.url} answered ${status}`);
  if (status === 401 || status === 403)
    return new Error(`the server at ${target.url} refused the request (${status}): ${e.message}`);
  const { ToolgraphError } = await import("../contract/errors.ts");
  const { adviceText } = await import("../formats/advice.ts");
  const advice = e.advice as Parameters<typeof adviceText>[0] | undefined;
  const details = {
    ...(typeof e.field === "string" ? { field: e.field } : {}),
    ...(Array.isArray(e.details) ? { issues: e.details } : {}),
  };
  // A message with advice ends with its HTTP spelling: without it, plus the advice, the CLI spells it its own way.
  const http = advice ? adviceText(advice, "http") : undefined;
  if (advice && http && e.message.endsWith(http))
    return new ToolgraphError(e.code, e.message.slice(0, -http.length), details, advice);
  // Line errors (an import, a recorded execution) carry their advice per line: spelled for the CLI here.
  let message = e.message;
  for (const kind of ["auto-register", "import-catalog"] as const)
    message = message.split(adviceText({ kind }, "http")).join(adviceText({ kind }, "cli"));
  return new ToolgraphError(e.code, message, details);
}

/**
 * The server a command goes through, or undefined to open the database here: `--server URL` or
 * TOOLGRAPH_SERVER (token from TOOLGRAPH_TOKEN), else the running `serve` that holds the embedded data
 * directory (its server file; never for --database / DATABASE_URL, where several processes share PostgreSQL).
 */
export async function remoteTarget(
  values: { server?: unknown; database?: unknown; home?: unknown },
  project: string,
): Promise<RemoteTarget | undefined> {
  const named = (values.server as string | undefined) || process.env.TOOLGRAPH_SERVER;
  if (named) {
    let url: URL;
    try {
      url = new URL(named);
    } catch {
      throw new Error(`--server: not a URL: ${JSON.stringify(named)} (e.g. http://127.0.0.1:8787)`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new Error(`--server: must be an http:// or https:// URL, got ${JSON.stringify(named)}`);
    return { url: url.href, token: process.env.TOOLGRAPH_TOKEN || undefined, project };
  }
  const { resolveDatabaseUrl, resolveHome } = await import("../store/locations.ts");
  if (resolveDatabaseUrl(values.database as string | undefined)) return undefined;
  const home = resolveHome(values.home as string | undefined);
  if (home === "memory://") return undefined;
  const { readServerFile } = await import("./server-file.ts");
  const file = readServerFile(home);
  return file ? { url: file.url, token: file.token, project } : undefined;
}
