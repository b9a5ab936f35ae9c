/**
 * Which errors mean the database is unreachable (the server went away, refused or stopped answering) rather
 * than a bad statement: the store retries and reports them as `database-unreachable`, and the one error
 * mapping (error-mapping.ts) answers them 503 / exit 4 / an MCP error on every door.
 */
import { ToolgraphError } from "./errors.ts";

/** A statement abandoned because the server stopped answering or the deadline passed (the connection is closed). */
export class UnansweredStatement extends Error {
  override name = "UnansweredStatement";
}

/** SQLSTATEs that mean the server went away or is not accepting work (not a bad statement). */
const UNREACHABLE_SQLSTATES = new Set([
  "57014", // query_canceled: statement_timeout (the server did not finish in time; the connection stays usable)
  "25P03", // idle_in_transaction_session_timeout (the server closed the session)
  "57P01", // admin_shutdown (pg_terminate_backend, fast shutdown)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up / shutting down)
  "57P05", // idle_session_timeout
  "53300", // too_many_connections
]);
const UNREACHABLE_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
const UNREACHABLE_MESSAGES = [
  /^Connection terminated/,
  /not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed/,
  /^Connection ended/,
  /server closed the connection unexpectedly/,
];

/** True when `err` means the database server is unreachable or dropped the connection (not a bad query). */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof ToolgraphError) return err.code === "database-unreachable";
  if (err instanceof UnansweredStatement) return true;
  if (err === null || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (UNREACHABLE_SQLSTATES.has(code) || UNREACHABLE_ERRNOS.has(code) || /^08/.test(code)) return true;
  }
  const message = (err as { message?: unknown }).message;
  if (typeof message === "string" && UNREACHABLE_MESSAGES.some((re) => re.test(message))) return true;
  // AggregateError (several addresses refused) and wrapped causes.
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0 && inner.every((e) => isConnectionError(e))) return true;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err && isConnectionError(cause);
}
