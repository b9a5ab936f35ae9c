/**
 * The operation table with every job loaded: for the doors that serve requests (HTTP, MCP, the gateway),
 * which need each request and result schema when they start. Importing this module loads every job once
 * (a top-level await); the CLI's --help and the table itself stay light (src/contract/operations.ts).
 */
import type { Job } from "../jobs/job.ts";
import { OPERATION_LIST, type Operation } from "./operations.ts";

export interface LoadedOperation {
  readonly op: Operation;
  readonly job: Job;
}

export const LOADED_OPERATIONS: readonly LoadedOperation[] = await Promise.all(
  OPERATION_LIST.map(async (op) => ({ op, job: (await op.load()) as Job })),
);
