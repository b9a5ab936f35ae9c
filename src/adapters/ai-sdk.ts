/**
 * toolgraph/ai-sdk — per-step tool choice for the Vercel AI SDK (`ai` 5 and 6; tested with 6).
 *
 *   const steps = toolgraphSteps(tg, { tools });
 *   await generateText({ model, tools, prompt, prepareStep: steps.prepareStep, onFinish: steps.onFinish });
 *
 * - First step: `search` on the intent (the option, else the first user message's text); the model sees the
 *   top `k` of the answer's tools that `tools` holds (`activeTools`).
 * - Later steps: `suggestNext` after the tools that succeeded so far (failed ones excluded): the next tools the
 *   gate accepted, then the first step's tools (less the failed ones), then the other next tools, `k` in all. Where the next-step
 *   answer abstains, `search` with the successful tools as context (the failed ones excluded).
 * - The gate: an abstained answer gives the fallback set (default every tool: nothing is narrowed on a guess).
 * - `onFinish` records the run's tool calls as one execution through `recordExecution` with `autoRegister`,
 *   the path the MCP gateway records by; a call's step failed when the SDK reports a tool error for it, and the
 *   execution succeeded when its last step did (the gateway's rule).
 * Every selection is kept in `selections`, with each tool's rank, score and explanation.
 * Defaults and why: docs/decisions/adapters.md.
 */
import { randomUUID } from "node:crypto";
import type { TraceImportResult } from "../index.ts";
import {
  type Fallback,
  invalid,
  NameMap,
  type NameMapOptions,
  positiveInt,
  type Selection,
  selectFrom,
  type ToolgraphLike,
} from "./select.ts";

export const AI_SDK_DEFAULTS = {
  /** Tools offered per step. */
  k: 5,
  /** What the model gets when the gate abstains. */
  fallback: "all" as Fallback,
} as const;

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

interface Call {
  name: string;
  success: boolean;
}

/** The tool calls of the steps, in order, each failed when a tool error answers it. */
export function callsOf(steps: readonly StepLike[]): Call[] {
  const calls: Call[] = [];
  for (const step of steps) {
    const failed = new Set(step.content.filter((p) => p.type === "tool-error").map((p) => p.toolCallId));
    for (const p of step.content)
      if (p.type === "tool-call" && p.toolName !== undefined)
        calls.push({ name: p.toolName, success: !failed.has(p.toolCallId) });
  }
  return calls;
}

/** The text of the first user message (a string, or its text parts joined). */
export function firstUserText(messages: PrepareStepInput["messages"]): string | undefined {
  const m = messages.find((x) => x.role === "user");
  if (!m) return undefined;
  if (typeof m.content === "string") return m.content.trim() || undefined;
  if (!Array.isArray(m.content)) return undefined;
  const text = m.content
    .filter(
      (p): p is { type: "text"; text: string } =>
        typeof p === "object" && p !== null && p.type === "text" && typeof p.text === "string",
    )
    .map((p) => p.text)
    .join("\n")
    .trim();
  return text || undefined;
}

export function toolgraphSteps<TOOLS extends Record<string, unknown>>(
  tg: ToolgraphLike,
  options: ToolgraphStepsOptions<TOOLS>,
): ToolgraphSteps<TOOLS> {
  const k = positiveInt(options.k, "k", AI_SDK_DEFAULTS.k);
  const fallback = options.fallback ?? AI_SDK_DEFAULTS.fallback;
  const names = new NameMap(Object.keys(options.tools), options);
  const always = (options.alwaysActive ?? []).filter((n) => names.idOf(n) !== undefined);
  const runId = options.runId ?? `ai-sdk-${randomUUID()}`;
  const scope = {
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.user !== undefined ? { user: options.user } : {}),
    session: runId,
  };
  const startedAt = (options.now ?? (() => new Date()))().toISOString();
  // Ask for more than k: the catalog may hold tools this model is not offered.
  const limit = Math.min(100, k * 4);
  const selections: Selection[] = [];
  let intent = options.intent;
  let first: Selection | undefined;

  const ids = (calls: Call[], ok: boolean) => [
    ...new Set(calls.filter((c) => c.success === ok).map((c) => names.idOf(c.name) ?? c.name)),
  ];

  async function choose(input: PrepareStepInput): Promise<Selection> {
    // A search intent holds at most 4,000 characters: a long first message is cut there.
    intent ??= firstUserText(input.messages)?.slice(0, 4000);
    if (intent === undefined) throw invalid("intent: none given and the messages hold no user text to take it from");
    const calls = callsOf(input.steps);
    const context = ids(calls, true);
    if (first === undefined || context.length === 0) {
      const s = selectFrom(
        await tg.search({ intent, limit, ...(context.length > 0 ? { context } : {}), ...scope }),
        "search",
        names,
        k,
        fallback,
      );
      first ??= s;
      return s;
    }
    const exclude = ids(calls, false);
    const next = await tg.suggestNext({ context, intent, limit, ...(exclude.length > 0 ? { exclude } : {}), ...scope });
    if (next.abstained)
      return selectFrom(
        await tg.search({ intent, context, limit, ...(exclude.length > 0 ? { exclude } : {}), ...scope }),
        "search",
        names,
        k,
        fallback,
      );
    // The next tools the gate accepted, then the intent's tools from the first step, then the other next tools.
    const s = selectFrom(next, "next", names, k, fallback);
    const accepted = s.picked.filter((p) => p.decision !== "abstained").map((p) => p.name);
    const failed = new Set(exclude);
    const filled = [...accepted, ...first.picked.filter((p) => !failed.has(p.tool)).map((p) => p.name), ...s.names];
    const chosen = [...new Set(filled)].slice(0, k);
    return { ...s, names: chosen, picked: s.picked.filter((p) => chosen.includes(p.name)) };
  }

  async function record(
    steps: readonly StepLike[],
    opts: { success?: boolean } = {},
  ): Promise<TraceImportResult | undefined> {
    const calls = callsOf(steps);
    if (calls.length === 0) return undefined;
    // The execution as the import schema reads it (recordExecution validates it, dates as ISO text).
    const execution = {
      id: runId,
      ...(options.user !== undefined ? { user: options.user } : {}),
      ...(intent !== undefined ? { intent } : {}),
      ...(first?.recommendationId !== undefined ? { recommendationId: first.recommendationId } : {}),
      startedAt,
      success: opts.success ?? calls.at(-1)!.success,
      steps: calls.map((c) => ({ tool: names.idOf(c.name) ?? c.name, success: c.success, dependsOn: [] })),
    };
    return tg.recordExecution(execution, {
      ...(options.project !== undefined ? { project: options.project } : {}),
      autoRegister: true,
    });
  }

  return {
    runId,
    selections,
    async prepareStep(input) {
      const s = await choose(input);
      selections[input.stepNumber] = s;
      return { activeTools: [...new Set([...s.names, ...always])] as (keyof TOOLS & string)[] };
    },
    async onFinish(event) {
      await record(event.steps);
    },
    record,
  };
}
