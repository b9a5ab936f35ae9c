/**
 * Errors, mapped once for every front door: an HTTP status (server), a process exit code (CLI) and an MCP
 * `isError` result all come from `errorOutcome`. The families it knows:
 *
 *   ToolgraphError (src/contract/errors.ts, ImportError)   bad input 400 / exit 3, empty project 404 / exit 1,
 *                                                       database unavailable 503 / exit 4, upstream 502–504
 *   AlgorithmError (algorithms/errors.ts)                a value the algorithm cannot process: 422 / exit 3
 *   ZodError                                             bad input 400 / exit 3
 *   a raw driver error that means "unreachable", or a    503 / exit 4
 *   missing database / refused credentials (3D000, 28xxx)
 *   anything else                                        internal 500 / exit 1 (message not leaked)
 *
 * Field paths of zod issues are written one way everywhere: `steps[0].tool` (zodProblems, src/formats/issues.ts).
 */
import { ZodError } from "zod";
import { AlgorithmError } from "../../algorithms/errors.ts";
import type { Advice, Door } from "../formats/advice.ts";
import { type FieldProblem, fieldOf, problemsMessage, zodProblems } from "../formats/issues.ts";
import { ImportError, lineErrorMessage } from "../formats/parse.ts";
import { isConnectionError } from "./database-errors.ts";
import { ToolgraphError } from "./errors.ts";
import { EXIT } from "./exit-codes.ts";

export { EXIT, type FieldProblem, fieldOf, problemsMessage, zodProblems };

export interface ErrorOutcome {
  status: number;
  exitCode: number;
  code: string;
  message: string;
  /** The offending field (`intent`, `context[2]`, `steps[0].tool`); "" for the whole input. */
  field?: string | undefined;
  /** Every problem found, when there is more than one. */
  details?: unknown;
  headers: Record<string, string>;
  /** A real internal error: the door logs it and does not show its message. */
  internal: boolean;
  /** What the caller can change to succeed (the message ends with its spelling for the door). */
  advice?: Advice | undefined;
}

const BAD_INPUT_CODES = new Set(["invalid-input", "unknown-tool", "unknown-capability"]);
const NOT_FOUND_CODES = new Set(["empty-project", "unknown-project"]);
const UNAVAILABLE_CODES = new Set(["database-locked", "database-unreachable"]);
const UPSTREAM_STATUS: Record<string, number> = {
  "upstream-error": 502,
  "upstream-unavailable": 503,
  "upstream-timeout": 504,
  "catalog-loading": 503,
  // Every gateway HTTP session is answering a request (gateway/transports.ts): retry shortly.
  "gateway-busy": 503,
};
const RETRY = { "retry-after": "1" };
/** The database named in the URL does not exist, or refused the credentials: no answer can come from it. */
const DATABASE_CONFIG_SQLSTATES = new Set(["3D000", "28000", "28P01"]);

function outcome(
  status: number,
  exitCode: number,
  code: string,
  message: string,
  extra: Partial<ErrorOutcome> = {},
): ErrorOutcome {
  return { status, exitCode, code, message, headers: {}, internal: false, ...extra };
}

/**
 * The one mapping of any thrown value. `door` spells the advice a message ends with (src/formats/advice.ts):
 * an HTTP error names the request field or header, never a CLI flag. Default "library".
 */
export function errorOutcome(err: unknown, door: Door = "library"): ErrorOutcome {
  if (err instanceof ZodError) {
    const problems = zodProblems(err.issues);
    return outcome(400, EXIT.invalidInput, "invalid-input", problemsMessage(problems), {
      field: problems[0]?.field ?? "",
      ...(problems.length > 1 ? { details: problems } : {}),
    });
  }
  if (err instanceof ToolgraphError) {
    if (err instanceof ImportError) {
      const lineErrors = err.errors;
      const first = lineErrors[0];
      const where = first
        ? `line ${first.line}: ${first.field ? `${first.field}: ` : ""}${lineErrorMessage(first, door)}`
        : "invalid input";
      const more = lineErrors.length > 1 ? ` (and ${lineErrors.length - 1} more)` : "";
      return outcome(400, EXIT.invalidInput, "invalid-input", `${where}${more} (nothing was written)`, {
        field: first?.field ?? "",
        details: lineErrors.map((e) => ({ field: e.field, message: lineErrorMessage(e, door), line: e.line })),
      });
    }
    const field = typeof err.details?.field === "string" ? err.details.field : undefined;
    const issues =
      Array.isArray(err.details?.issues) && (err.details.issues as unknown[]).length > 1
        ? { details: err.details.issues }
        : {};
    const message = err.messageFor(door);
    const advice = err.advice ? { advice: err.advice } : {};
    if (BAD_INPUT_CODES.has(err.code))
      return outcome(400, EXIT.invalidInput, err.code, message, {
        ...(field !== undefined ? { field } : {}),
        ...issues,
        ...advice,
      });
    if (NOT_FOUND_CODES.has(err.code)) return outcome(404, EXIT.failure, err.code, message, advice);
    if (UNAVAILABLE_CODES.has(err.code))
      return outcome(503, EXIT.databaseUnavailable, err.code, message, { headers: RETRY });
    // A tool the gateway's policy denies or its pins quarantine: refused, with the reason (gateway/trust.ts).
    if (err.code === "tool-refused")
      return outcome(403, EXIT.failure, err.code, message, field !== undefined ? { field } : {});
    const upstream = UPSTREAM_STATUS[err.code];
    if (upstream !== undefined) return outcome(upstream, EXIT.failure, err.code, message);
    return internalError();
  }
  if (err instanceof AlgorithmError)
    return outcome(422, EXIT.invalidInput, err.code, err.message, { details: { module: err.module } });
  if (isConnectionError(err) || DATABASE_CONFIG_SQLSTATES.has(String((err as { code?: unknown } | null)?.code)))
    return outcome(503, EXIT.databaseUnavailable, "database-unreachable", "the database is unreachable; retry later", {
      headers: RETRY,
    });
  return internalError();
}

function internalError(): ErrorOutcome {
  return outcome(500, EXIT.failure, "internal", "internal error (logged by the server)", { internal: true });
}
