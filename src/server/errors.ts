/**
 * HTTP error rendering: every failure becomes `{ error: { code, message, field?, details? } }` with the status
 * of the one mapping shared by every door (src/contract/error-mapping.ts errorOutcome).
 * Bad input (zod issues, ToolgraphError "invalid-input"/"unknown-tool", ImportError line errors) is 400 and
 * names the field; "empty-project" (no catalog yet) is 404; "database-locked"/"database-unreachable" is 503; the gateway's
 * upstream failures are 502 ("upstream-error"), 503 ("upstream-unavailable") and 504 ("upstream-timeout"); anything else is a real internal error
 * (500, logged by the server, message not leaked).
 */
import { errorOutcome, type FieldProblem, problemsMessage } from "../contract/error-mapping.ts";

export interface ErrorBody {
  error: {
    code: string;
    message: string;
    /** The offending request field (`intent`, `context[2]`, `steps[0].tool`); "" for the whole body. */
    field?: string | undefined;
    /** Every problem found (zod issues, import line errors), when there is more than one. */
    details?: unknown;
    /** What the caller can change to succeed, as data (the message ends with its HTTP spelling). */
    advice?: unknown;
  };
}

/** An error with an HTTP status, thrown by the request pipeline and rendered as JSON. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly details: unknown;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    code: string,
    message: string,
    extra: { field?: string; details?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}

export { type FieldProblem, fieldOf, zodProblems } from "../contract/error-mapping.ts";

export function invalidInput(problems: FieldProblem[]): HttpError {
  const first = problems[0] ?? { field: "", message: "invalid input" };
  return new HttpError(400, "invalid-input", problemsMessage(problems), {
    field: first.field,
    ...(problems.length > 1 ? { details: problems } : {}),
  });
}

export interface MappedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for a real internal error (500): the server logs it. */
  internal: boolean;
}

/** Maps any thrown value to a status and a JSON body (errorOutcome: the mapping every door shares). */
export function toHttpError(err: unknown): MappedError {
  if (err instanceof HttpError) {
    return {
      status: err.status,
      headers: err.headers,
      internal: false,
      body: {
        error: {
          code: err.code,
          message: err.message,
          ...(err.field !== undefined ? { field: err.field } : {}),
          ...(err.details !== undefined ? { details: err.details } : {}),
        },
      },
    };
  }
  const o = errorOutcome(err, "http");
  return {
    status: o.status,
    headers: o.headers,
    internal: o.internal,
    body: {
      error: {
        code: o.code,
        message: o.message,
        ...(o.field !== undefined ? { field: o.field } : {}),
        ...(o.details !== undefined ? { details: o.details } : {}),
        ...(o.advice ? { advice: o.advice } : {}),
      },
    },
  };
}
