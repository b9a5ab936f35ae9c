/**
 * The CLI through a running server: a stand-in for the library whose operations are HTTP requests to
 * `toolgraph serve`'s routes (src/server/routes.ts), so a command prints what it prints locally while the
 * server holds the embedded data directory, or when `--server URL` / TOOLGRAPH_SERVER names one.
 *
 * One table, `REMOTE_OPERATIONS` (remote-routes.ts), maps each library operation a command calls to the route
 * that runs it; one function, `callRoute`, turns the call's arguments into the request:
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
import type { Operation } from "../contract/operations.ts";
import type { Toolgraph } from "../library/toolgraph.ts";
import { asLibraryAnswer, remoteError, send } from "./remote-answer.ts";
import { REMOTE_OPERATIONS, type RemoteOperation, type RemoteTarget, type Spelling } from "./remote-routes.ts";


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
