/**
 * HTTP error mapping: every failure becomes `{ error: { code, message, field?, details? } }` with a status.
 * Bad input (zod issues, ToolgraphError "invalid-input"/"unknown-tool", ImportError line errors) is 400 and
 * names the field; "empty-project" (no catalog yet) is 404; "database-locked"/"database-unreachable" is 503; the gateway's
 * upstream failures are 502 ("upstream-error"), 503 ("upstream-unavailable") and 504 ("upstream-timeout"); anything else is a real internal error
 * (500, logged by the server, message not leaked).
 */
import { ZodError, type z } from "zod";
import { ImportError } from "../services/parse.ts";
import { isConnectionError } from "../store/connection.ts";
import { ToolgraphError } from "../store/errors.ts";

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** The offending request field (`intent`, `context[2]`, `steps[0].tool`); "" for the whole body. */
    field?: string | undefined;
    /** Every problem found (zod issues, import line errors), when there is more than one. */
    details?: unknown;
  };
}

/** An error with an HTTP status, thrown by the request pipeline and rendered as JSON. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly details: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, extra: { field?: string; details?: unknown; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}

/** `a.b[0].c` from a zod path. */
export function fieldOf(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("");
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** One problem per zod issue; an unrecognised key names the key itself. */
export function zodProblems(issues: readonly z.core.$ZodIssue[], prefix = ""): FieldProblem[] {
  return issues.map((issue) => {
    let path: PropertyKey[] = [...issue.path];
    let message = issue.message;
    if (issue.code === "unrecognized_keys" && issue.keys.length > 0) {
      path = [...path, issue.keys[0]!];
      message = `unknown field${issue.keys.length > 1 ? `s ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}` : ""} (not part of this request)`;
    }
    const f = fieldOf(path);
    return { field: prefix && f ? `${prefix}.${f}` : prefix || f, message };
  });
}

export function invalidInput(problems: FieldProblem[]): HttpError {
  const first = problems[0] ?? { field: "", message: "invalid input" };
  const message = `${first.field ? `${first.field}: ` : ""}${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ""}`;
  return new HttpError(400, "invalid-input", message, { field: first.field, ...(problems.length > 1 ? { details: problems } : {}) });
}

const UNAVAILABLE_CODES = new Set(["database-locked", "database-unreachable"]);
const BAD_INPUT_CODES = new Set(["invalid-input", "unknown-tool", "unknown-capability"]);
/** The project has nothing to answer from (no catalog imported): 404 with the code, not a server fault. */
const NOT_FOUND_CODES = new Set(["empty-project", "unknown-project"]);
/** The gateway's upstream MCP servers: the message names the server. */
const UPSTREAM_STATUS: Record<string, number> = { "upstream-error": 502, "upstream-unavailable": 503, "upstream-timeout": 504 };

export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for a real internal error (500): the server logs it. */
  internal: boolean;
}

/** Maps any thrown value to a status and a JSON body. */
export function toHttpError(err: unknown): MappedError {
  if (err instanceof HttpError) {
    return {
      status: err.status,
      headers: err.headers,
      internal: false,
      body: { error: { code: err.code, message: err.message, ...(err.field !== undefined ? { field: err.field } : {}), ...(err.details !== undefined ? { details: err.details } : {}) } },
    };
  }
  if (err instanceof ZodError) return toHttpError(invalidInput(zodProblems(err.issues)));
  if (err instanceof ImportError) {
    const problems = err.errors.map((e) => ({ field: e.field, message: e.message, line: e.line }));
    const first = err.errors[0];
    const where = first ? `line ${first.line}: ${first.field ? `${first.field}: ` : ""}${first.message}` : "invalid input";
    const more = err.errors.length > 1 ? ` (and ${err.errors.length - 1} more)` : "";
    return toHttpError(new HttpError(400, "invalid-input", `${where}${more} (nothing was written)`, { field: first?.field ?? "", details: problems }));
  }
  if (err instanceof ToolgraphError) {
    const field = typeof err.details?.field === "string" ? err.details.field : undefined;
    if (BAD_INPUT_CODES.has(err.code)) {
      return toHttpError(new HttpError(400, err.code, err.message, field !== undefined ? { field } : {}));
    }
    if (NOT_FOUND_CODES.has(err.code)) return toHttpError(new HttpError(404, err.code, err.message));
    if (UNAVAILABLE_CODES.has(err.code)) return toHttpError(new HttpError(503, err.code, err.message, { headers: { "retry-after": "1" } }));
    const upstream = UPSTREAM_STATUS[err.code];
    if (upstream !== undefined) return toHttpError(new HttpError(upstream, err.code, err.message));
  }
  // A raw driver error that escaped the store's translation (src/store/connection.ts) still means "retry later".
  if (isConnectionError(err)) {
    return toHttpError(new HttpError(503, "database-unreachable", "the database is unreachable; retry later", { headers: { "retry-after": "1" } }));
  }
  return { status: 500, headers: {}, internal: true, body: { error: { code: "internal", message: "internal error (logged by the server)" } } };
}
