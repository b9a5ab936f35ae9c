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
import { dataFlowDependencies, type StepOutput, stepOutput } from "../../algorithms/strings/data-flow.ts";
import { outputBytes } from "../../algorithms/strings/step-output-bytes.ts";
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
  private indexBytes = 0;
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
    const dependsOn = dataFlowDependencies(call.args, this.outputs, this.options.dataFlow);
    this.steps.push({
      tool: call.tool,
      success: call.success,
      durationMs: Math.max(0, call.durationMs),
      at: call.at.toISOString(),
      dependsOn,
    });
    this.outputs.push(call.success ? this.indexedOutput(call) : undefined);
    if (this.steps.length >= (this.options.maxSteps ?? RECORDER_DEFAULTS.maxSteps)) {
      this.close();
      return;
    }
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.options.idleMs ?? RECORDER_DEFAULTS.idleMs);
    this.idleTimer.unref();
  }

  /** The step's output for later steps, or undefined once the open execution's index budget is spent. */
  private indexedOutput(call: CallRecord): StepOutput | undefined {
    const budget = this.options.maxIndexBytes ?? RECORDER_DEFAULTS.maxIndexBytes;
    if (this.indexBytes >= budget) {
      this.unindexedSteps++;
      return undefined;
    }
    const out = stepOutput(call.args, call.result, this.options.dataFlow);
    this.indexBytes += outputBytes(out);
    return out;
  }

  /** Closes the open execution (if it has steps) and hands it to `write`. */
  close(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.steps.length === 0) return;
    const steps = this.steps;
    this.steps = [];
    this.outputs = [];
    this.indexBytes = 0;
    this.count++;
    const execution: RecordedExecution = {
      id: `${this.options.sessionId}-${this.count}`,
      ...(this.executionUser ? { user: this.executionUser } : {}),
      ...(this.executionIntent ? { intent: this.executionIntent } : {}),
      startedAt: steps[0]!.at,
      success: steps[steps.length - 1]!.success,
      steps,
    };
    this.options.write(execution);
  }

  /** Session end: closes the open execution; later steps are ignored. */
  end(): void {
    this.close();
    this.ended = true;
  }
}
