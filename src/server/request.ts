/**
 * Reading an HTTP request and writing a JSON answer: the request id, the bearer token (constant time), the
 * media type, JSON bodies read no deeper than the document bound, and the project a request names.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJsonText } from "../formats/json-text.ts";
import { fieldOf, HttpError, invalidInput, zodProblems } from "./errors.ts";
import { JSON_TYPES, projectSchema } from "./route.ts";

/** The header that names the project (the body's `project` and `?project=` are the others). */
export const PROJECT_HEADER = "x-toolgraph-project";

/** A caller's x-request-id is kept when it is short and printable; otherwise a UUID is made. */
export function requestIdOf(req: IncomingMessage): string {
  const h = req.headers["x-request-id"];
  const v = Array.isArray(h) ? h[0] : h;
  return v !== undefined && /^[\x21-\x7e]{1,128}$/.test(v) ? v : randomUUID();
}

export function stderrLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** Constant-time comparison of the presented bearer token with the expected one. */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  const given = m?.[1] ?? "";
  // Hashing first makes both buffers 32 bytes, so timingSafeEqual never leaks the length.
  return timingSafeEqual(sha256(given), sha256(expected)) && given.length > 0;
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

export function isJsonType(t: string): boolean {
  return JSON_TYPES.includes(t) || t.endsWith("+json");
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...headers,
  });
  res.end(body);
}

/**
 * A JSON body, read no deeper than LIMITS.documentDepth (parseJsonText): too deep or malformed is a 400 naming
 * the path; in an array of records (`records`, the import routes) the record is named as its line, as in JSONL.
 */
export function parseJson(buf: Buffer, what: string, records: boolean): unknown {
  const text = buf.toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "invalid-input", `empty body: expected ${what}`, { field: "" });
  const parsed = parseJsonText(text);
  if (parsed.ok) return parsed.value;
  const { path, message } = parsed.problem;
  if (records && typeof path[0] === "number") {
    const line = path[0] + 1;
    const field = fieldOf(path.slice(1));
    throw new HttpError(
      400,
      "invalid-input",
      `line ${line}: ${field ? `${field}: ` : ""}${message} (nothing was written)`,
      { field, details: [{ field, message, line }] },
    );
  }
  const field = fieldOf(path);
  throw new HttpError(400, "invalid-input", `${field ? `${field}: ` : ""}${message}`, { field });
}

/** A JSON-RPC message for /mcp, read like any body (parseJsonText): the parse error's text, or the message. */
export function parseMcpMessage(buf: Buffer): { ok: true; message: unknown } | { ok: false; error: string } {
  const parsed = parseJsonText(buf.toString("utf8"));
  if (parsed.ok) return { ok: true, message: parsed.value };
  const field = fieldOf(parsed.problem.path);
  return { ok: false, error: `Parse error: ${field ? `${field}: ` : ""}${parsed.problem.message}` };
}

function checkProject(value: unknown, field: string): string {
  const r = projectSchema.safeParse(value);
  if (!r.success) throw invalidInput(zodProblems(r.error.issues, field));
  return r.data;
}

/** The project named by the request: body field, header, query; header and body must agree. */
export function requestProject(req: IncomingMessage, url: URL, bodyProject: unknown): string | undefined {
  const rawHeader = req.headers[PROJECT_HEADER];
  const header =
    rawHeader === undefined
      ? undefined
      : checkProject(Array.isArray(rawHeader) ? rawHeader[0] : rawHeader, PROJECT_HEADER);
  const body = bodyProject === undefined ? undefined : checkProject(bodyProject, "project");
  if (header !== undefined && body !== undefined && header !== body) {
    throw new HttpError(
      400,
      "invalid-input",
      `project: the body names ${JSON.stringify(body)} but the ${PROJECT_HEADER} header names ${JSON.stringify(header)}`,
      {
        field: "project",
      },
    );
  }
  const query = url.searchParams.get("project");
  return body ?? header ?? (query === null ? undefined : checkProject(query, "project"));
}
