/**
 * What a job is: a request schema, a result schema and `run(ctx, request) → answer`. The request arrives
 * validated (the facade parses it once with `request`); the context names the project and hands the job
 * the project's view at its current graph version (snapshot, analytics, search and memory indexes, the gate;
 * src/view/project-view.ts) and the recommendation log, so no job loads or opens anything itself. The operation table (src/contract/operations.ts) binds each job to its doors.
 */
import type { z } from "zod";
import type { ProjectView } from "../view/project-view.ts";
import type { RecommendationLog } from "./recommendation-log.ts";

export interface JobContext {
  /** The project's read models at one graph version (snapshot, analytics, search and memory indexes) and the gate. */
  readonly view: ProjectView;
  /** The project this request reads or writes. */
  readonly project: string;
  /** Every answer, feedback and execution outcome (written in the background). */
  readonly log: RecommendationLog;
}

type Options<Opt> = Opt extends z.ZodObject ? Partial<z.output<Opt>> : unknown;

export interface Job<
  Req extends z.ZodType = z.ZodType,
  Res = unknown,
  Opt extends z.ZodObject | undefined = z.ZodObject | undefined,
> {
  /** Validates the request on every door (HTTP body, MCP arguments, CLI flags, library call). */
  readonly request: Req;
  /** The answer's shape: MCP outputSchema, OpenAPI response. */
  readonly result: z.ZodType;
  /** Library-only options (not on HTTP, MCP or the CLI), validated apart and merged into the request. */
  readonly libraryOptions?: Opt;
  /**
   * Gated answers are cached by graph version and logged with a `recommendationId`, under this key (the
   * cache key and the log's operation name). Absent for jobs that write (feedback).
   */
  readonly answerKey?: string | undefined;
  run(ctx: JobContext, req: z.output<Req> & Options<Opt>): Promise<Res>;
}

/** Declares a job with its types inferred (the result type is what `run` returns). */
export function defineJob<Req extends z.ZodType, Res, Opt extends z.ZodObject | undefined = undefined>(
  job: Job<Req, Res, Opt>,
): Job<Req, Res, Opt> {
  return job;
}
