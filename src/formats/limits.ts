/**
 * Size and range limits of everything toolgraph stores, in a module of its own (no zod) so that light readers
 * (json-text.ts, which the CLI loads for --workflow) do not pull the schemas in. schemas.ts re-exports them.
 */
export const LIMITS = {
  idLength: 256,
  nameLength: 512,
  /** A description longer than this is rejected (a 10 MB description is a mistake, not a tool). */
  descriptionLength: 32_768,
  textListItems: 200,
  textItemLength: 2_000,
  stepsPerExecution: 10_000,
  patternLength: 200,
  patternsPerCapability: 50,
  /** Trigger patterns in one project (all capabilities): bounds compile time and each request's match work. */
  patternsPerProject: 2_000,
  /** Nesting depth of a JSON value (inputSchema, outputSchema): PostgreSQL's jsonb fails far deeper, JSON Schemas are shallow. */
  jsonDepth: 64,
  /**
   * Nesting depth of a whole document (a request body, a JSONL line, a catalog file), checked on the text before
   * it is parsed: a catalog's inputSchema at jsonDepth sits 3 levels down, so 128 leaves room (json-text.ts).
   */
  documentDepth: 128,
  /** Largest duration or latency: one year in ms (a sum over 100k executions stays far inside float8). */
  maxDurationMs: 365 * 24 * 3600 * 1000,
  /** Largest cost estimate (any unit). */
  maxCost: 1e12,
  /** Dates: ISO 8601 four-digit years, 0001-01-01 .. 9999-12-31 (PostgreSQL has no year 0 and reads no `+275760`). */
  minDateMs: Date.parse("0001-01-01T00:00:00Z"),
  maxDateMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999),
} as const;
