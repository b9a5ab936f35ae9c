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
import { type Call, callsOf, firstUserText } from "./ai-sdk-steps.ts";
import type { PrepareStepInput, StepLike, ToolgraphSteps, ToolgraphStepsOptions } from "./ai-sdk-types.ts";
import {
  type Fallback,
  invalid,
  NameMap,
  positiveInt,
  type Selection,
  selectFrom,
  type ToolgraphLike,
} from "./select.ts";

export { callsOf, firstUserText } from "./ai-sdk-steps.ts";
export type {
  ContentPartLike,
  PrepareStepInput,
  StepLike,
  ToolgraphSteps,
  ToolgraphStepsOptions,
} from "./ai-sdk-types.ts";

export const AI_SDK_DEFAULTS = {
  /** Tools offered per step. */
  k: 5,
  /** What the model gets when the gate abstains. */
  fallback: "all" as Fallback,
} as const;

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
