/**
 * One request to a running server and its answer as the library gives it: the request over node:http(s), import
 * problems respelled for the library and named after the local file, and an error answer as the library's error
 * (its code decides the exit code, as locally).
 */
import type { RemoteTarget } from "./remote-routes.ts";

/**
 * One request with node:http(s) (Node's fetch loads its HTTP client on first use: measured in
 * docs/decisions/everyday-budget.md); resolves the status and the body's text.
 */
export async function send(
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
export async function asLibraryAnswer(answer: unknown, file: string | undefined): Promise<unknown> {
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
export async function remoteError(target: RemoteTarget, status: number, answer: unknown): Promise<Error> {
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
