/**
 * Turns one MCP session's forwarded calls into executions (the gateway's learning).
 *
 * - A step per forwarded call: the tool id (`<server>.<tool>`), success (false for an `isError` result, an
 *   exception or a timeout), the duration and the start time, and `dependsOn` from data-flow evidence
 *   (data-flow.ts: an argument value that an earlier step of the same execution returned).
 * - The intent is the session's latest `search_tools` / `plan_workflow` intent (and the user its latest
 *   declared user). A new, different intent closes the open execution first.
 * - An execution closes on a new intent, after `idleMs` without a call, or when the session ends; it
 *   succeeded when its last step did (earlier failures that the caller recovered from do not fail it).
 * - Closing hands the execution to `write` (the gateway sends it through the library's recordExecution);
 *   everything here runs after the call has been answered, never on its latency path.
 */
import { dataFlowDependencies, type StepOutput, stepOutputSteps } from "../../algorithms/strings/data-flow.ts";
import { outputBytes } from "../../algorithms/strings/step-output-bytes.ts";
import { SliceQueue } from "../view/background.ts";
import {
  type CallRecord,
  RECORDER_DEFAULTS,
  type RecordedExecution,
  type RecordedStep,
  type RecorderOptions,
} from "./recorded-execution.ts";

export class SessionRecorder {
  private readonly options: RecorderOptions;
  private intent: string | undefined;
  private user: string | undefined;
  private steps: RecordedStep[] = [];
  private outputs: (StepOutput | undefined)[] = [];
  private executionIntent: string | undefined;
  private executionUser: string | undefined;
  private count = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Each step's dependencies and indexed output, then each close, in order (a slice per event-loop turn). */
  private readonly indexing = new SliceQueue();
  /** The open execution's indexed bytes (a new object per execution: its queued steps keep theirs). */
  private budget = { bytes: 0 };
  /** Successful steps whose output was not indexed because the open execution's index budget was spent. */
  unindexedSteps = 0;

  constructor(options: RecorderOptions) {
    this.options = options;
  }

  /** The session's latest intent (search_tools / plan_workflow): a different one closes the open execution. */
  setIntent(intent: string): void {
    const t = intent.trim();
    if (t === "" || t === this.intent) return;
    this.close();
    this.intent = t;
  }

  /** The session's declared user (from a toolgraph tool's `user` argument, or the gateway's default). */
  setUser(user: string | undefined): void {
    if (user && user !== this.user) {
      if (this.steps.length > 0 && this.executionUser !== undefined && this.executionUser !== user) this.close();
      this.user = user;
    }
  }

  get currentIntent(): string | undefined {
    return this.intent;
  }

  /** The tools of the open execution's successful steps, in order (context for suggestions). */
  successfulTools(): string[] {
    return this.steps.filter((s) => s.success).map((s) => s.tool);
  }

  step(call: CallRecord): void {
    if (this.ended) return;
    if (this.steps.length === 0) {
      this.executionIntent = this.intent;
      this.executionUser = this.user;
    }
    const step: RecordedStep = {
      tool: call.tool,
      success: call.success,
      durationMs: Math.max(0, call.durationMs),
      at: call.at.toISOString(),
      dependsOn: [],
    };
    this.steps.push(step);
    this.outputs.push(undefined);
    // Its dependencies, then its output indexed, in slices after the steps before it (a long result is 10–25 ms
    // of CPU to index; docs/decisions/data-flow-matching.md): a short one is done before step() returns.
    this.indexing.push(this.stepSteps(call, step, this.outputs, this.steps.length - 1, this.budget));
    if (this.steps.length >= (this.options.maxSteps ?? RECORDER_DEFAULTS.maxSteps)) {
      this.close();
      return;
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.options.idleMs ?? RECORDER_DEFAULTS.idleMs);
    this.idleTimer.unref();
  }

  private *stepSteps(
    call: CallRecord,
    step: RecordedStep,
    outputs: (StepOutput | undefined)[],
    at: number,
    budget: { bytes: number },
  ): Generator<void, void, void> {
    step.dependsOn = dataFlowDependencies(call.args, outputs.slice(0, at), this.options.dataFlow);
    if (!call.success) return;
    yield;
    if (budget.bytes >= (this.options.maxIndexBytes ?? RECORDER_DEFAULTS.maxIndexBytes)) {
      this.unindexedSteps++;
      return;
    }
    const out = yield* stepOutputSteps(call.args, call.result, this.options.dataFlow);
    budget.bytes += outputBytes(out);
    outputs[at] = out;
  }

  /** Closes the open execution (if it has steps) and hands it to `write`. */
  close(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.steps.length === 0) return;
    const steps = this.steps;
    this.steps = [];
    this.outputs = [];
    this.budget = { bytes: 0 };
    this.count++;
    const execution: RecordedExecution = {
      id: `${this.options.sessionId}-${this.count}`,
      ...(this.executionUser ? { user: this.executionUser } : {}),
      ...(this.executionIntent ? { intent: this.executionIntent } : {}),
      startedAt: steps[0]!.at,
      success: steps[steps.length - 1]!.success,
      steps,
    };
    // After its steps' dependencies are in (at once when nothing is being indexed).
    this.indexing.push(() => this.options.write(execution));
  }

  /** Session end: closes the open execution (what is still being indexed finishes now); later steps are ignored. */
  end(): void {
    this.close();
    this.indexing.flush();
    this.ended = true;
  }
}
