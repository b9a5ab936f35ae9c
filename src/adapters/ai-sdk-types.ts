/**
 * The AI SDK shapes ai-sdk.ts reads (steps, content parts, prepareStep's input), and its options and handle.
 */
import type { TraceImportResult } from "../index.ts";
import type { Fallback, NameMapOptions, Selection } from "./select.ts";

/** The fields of an AI SDK content part this adapter reads (`StepResult.content`). */
export interface ContentPartLike {
  type: string;
  toolCallId?: string;
  toolName?: string;
}

/** The fields of an AI SDK `StepResult` this adapter reads. */
export interface StepLike {
  content: readonly ContentPartLike[];
}

/** The fields of `prepareStep`'s argument this adapter reads. */
export interface PrepareStepInput {
  stepNumber: number;
  steps: readonly StepLike[];
  messages: readonly { role: string; content: unknown }[];
}

export interface ToolgraphStepsOptions<TOOLS extends Record<string, unknown>> extends NameMapOptions {
  /** The tools given to `generateText` / `streamText` (only their names are read). */
  tools: TOOLS;
  /** The run's intent. Default: the text of the first user message. */
  intent?: string | undefined;
  /** Tools offered per step (1–100). Default 5. */
  k?: number | undefined;
  /** When the gate abstains: "all" (default), "answer", or tool names (after the project's fallback tools). */
  fallback?: Fallback | undefined;
  /** Tools offered at every step besides the chosen ones (an answer tool, say). Default none. */
  alwaysActive?: readonly (keyof TOOLS & string)[] | undefined;
  /** The project to read and record in. Default: the Toolgraph's. */
  project?: string | undefined;
  /** Who the run is for (their history moves the gate, the execution is theirs). Default none. */
  user?: string | undefined;
  /** The recorded execution's id, also the answers' session. Default `ai-sdk-<random UUID>`. */
  runId?: string | undefined;
  /** The clock for the execution's start. Default `() => new Date()`. */
  now?: (() => Date) | undefined;
}

export interface ToolgraphSteps<TOOLS extends Record<string, unknown>> {
  /** Give as `prepareStep` to `generateText` / `streamText` / `ToolLoopAgent`. */
  prepareStep: (input: PrepareStepInput) => Promise<{ activeTools: (keyof TOOLS & string)[] }>;
  /** Give as `onFinish`: records the run (see `record`). */
  onFinish: (event: { steps: readonly StepLike[] }) => Promise<void>;
  /** Records the steps' tool calls as one execution; undefined when no tool was called. */
  record(steps: readonly StepLike[], opts?: { success?: boolean }): Promise<TraceImportResult | undefined>;
  /** Each step's selection, by step number. */
  readonly selections: readonly Selection[];
  readonly runId: string;
}
