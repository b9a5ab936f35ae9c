/**
 * What the gateway records of a session (recorder.ts): the forwarded calls as they happened, and the executions
 * they become (written through the library's recordExecution: gateway-recording.ts), and the recorder's bounds.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DataFlowOptions } from "../../algorithms/strings/data-flow.ts";

export interface RecordedStep {
  tool: string;
  success: boolean;
  durationMs: number;
  at: string;
  dependsOn: number[];
}

export interface RecordedExecution {
  id: string;
  user?: string;
  intent?: string;
  startedAt: string;
  success: boolean;
  steps: RecordedStep[];
}

export interface CallRecord {
  tool: string;
  args: Record<string, unknown> | undefined;
  /** The result returned to the caller (an error result for exceptions and timeouts). */
  result: CallToolResult | undefined;
  /** False for isError, exceptions and timeouts. */
  success: boolean;
  durationMs: number;
  at: Date;
}

export const RECORDER_DEFAULTS = {
  /** An execution with no call for this long is closed (ms). */
  idleMs: 300_000,
  /** An execution is closed once it has this many steps (a new one starts). */
  maxSteps: 1000,
  /**
   * Bytes of indexed step outputs (data-flow.ts) an open execution keeps; past it, later steps' outputs are not
   * indexed (no later step can be found to depend on them) and `unindexedSteps` counts them. 64 MiB: a
   * 65,000-character text indexes to at most ~1 MiB, so ~64 worst-case results, or thousands of usual ones.
   */
  maxIndexBytes: 64 * 1024 * 1024,
} as const;

export interface RecorderOptions {
  /** Unique per session: execution ids are `<sessionId>-<n>`. */
  sessionId: string;
  write: (execution: RecordedExecution) => void;
  idleMs?: number | undefined;
  maxSteps?: number | undefined;
  maxIndexBytes?: number | undefined;
  dataFlow?: DataFlowOptions | undefined;
}
