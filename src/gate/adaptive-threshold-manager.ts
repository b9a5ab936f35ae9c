/**
 * AdaptiveThresholdManager (docs/decisions/gate-thresholds.md): the gate every scored answer passes.
 *
 *   adjustThreshold(user, environment, task)  signals → rule → + learned offset + health penalty → clamp
 *                                            (pure arithmetic in algorithms/thresholds/adjust-threshold.ts)
 *   gate(score, adjustment, { fallbacks })   accepted (≥ 0.85) / accepted-with-caution (≥ threshold) /
 *                                            abstained with gap and fallbacks (gate-decision.ts)
 *   tier(score, adjustment)                  the same decision without its reasoning sentence (an answer's item)
 *   report(input)                            the reasoning report as JSON and text
 *
 * Both adjustThreshold and gate are synchronous: the user context is loaded beforehand
 * (UserHistoryTracker.getUserContext), the resource snapshot comes from a ResourceMonitor that reads the
 * system at most once per second, and the learned per-context offset is read from the learner's memory (load
 * it with `warm(task)`). An explicit `resources` in the call or `resources: false` in the options skips the
 * monitor.
 */

import {
  type AdjustOptions,
  createThresholdAdjuster,
  type ThresholdAdjustment,
} from "../../algorithms/thresholds/adjust-threshold.ts";
import { type Calibration, calibrator } from "../../algorithms/thresholds/calibration.ts";
import { contextKeyOf } from "../../algorithms/thresholds/context-learning.ts";
import {
  decide,
  type GateDecision,
  type GateOptions,
  type GateTier,
  gateTier,
} from "../../algorithms/thresholds/gate-decision.ts";
import {
  buildReasoningReport,
  type ReasoningReport,
  type ReportInput,
  type ReportOptions,
  renderReasoningReport,
} from "../../algorithms/thresholds/reasoning-report.ts";
import type { EnvironmentContext, ResourceUsage, TaskContext } from "../../algorithms/thresholds/types.ts";
import type { UserSignalInput } from "../../algorithms/thresholds/user-history-signals.ts";
import type { ContextThresholdLearner } from "./context-threshold-learner.ts";
import { ResourceMonitor } from "./resource-monitor.ts";

export interface AdaptiveThresholdManagerOptions extends AdjustOptions {
  /** Clock in ms (for the default resource monitor). Default Date.now. */
  readonly now?: () => number;
  /** Resource source; `false` = no resource signal. Default a ResourceMonitor sampling every 1000 ms. */
  readonly resources?: ResourceMonitor | false;
  /** Source of learned per-context offsets. Default none (offset 0). */
  readonly learner?: ContextThresholdLearner;
  /** High-confidence score (0.85) and minimum calibrated probability (0.80) of the gate. */
  readonly gate?: Omit<GateOptions, "calibrate">;
  /** Isotonic calibration of scores; when set, high confidence also needs P(success) ≥ 0.80. Default none. */
  readonly calibration?: Calibration;
  readonly report?: ReportOptions;
}

export interface GateCallOptions<F> {
  /** The project's configured fallback tools, offered when the gate abstains. */
  readonly fallbacks?: readonly F[];
}

/** Environment from the process: production when NODE_ENV is "production". */
export function environmentFromProcess(
  isCriticalTask: boolean,
  env: Readonly<Record<string, string | undefined>> = process.env,
): EnvironmentContext {
  return { isProduction: env.NODE_ENV === "production", isCriticalTask, deploymentStage: env.NODE_ENV };
}

export class AdaptiveThresholdManager {
  readonly #adjust: ReturnType<typeof createThresholdAdjuster>;
  readonly #monitor: ResourceMonitor | undefined;
  readonly #learner: ContextThresholdLearner | undefined;
  #gateOptions: GateOptions;
  readonly #reportOptions: ReportOptions | undefined;

  constructor(options?: AdaptiveThresholdManagerOptions) {
    this.#adjust = createThresholdAdjuster(options);
    this.#monitor =
      options?.resources === false
        ? undefined
        : (options?.resources ?? new ResourceMonitor({ now: options?.now ?? Date.now }));
    this.#learner = options?.learner;
    this.#gateOptions = { ...options?.gate };
    if (options?.calibration !== undefined) this.setCalibration(options.calibration);
    this.#reportOptions = options?.report;
  }

  /** Replaces (or removes, with undefined) the calibration used by the high-confidence tier. */
  setCalibration(calibration: Calibration | undefined): void {
    this.#gateOptions = {
      ...this.#gateOptions,
      calibrate: calibration === undefined || calibration.blocks.length === 0 ? undefined : calibrator(calibration),
    };
  }

  /** Loads the learned offset of the task's context so that adjustThreshold can read it synchronously. */
  async warm(task: Pick<TaskContext, "project" | "operationType" | "domain">): Promise<void> {
    if (this.#learner !== undefined) await this.#learner.warm(contextKeyOf(task));
  }

  /** The resource usage adjustThreshold reads when none is given (sampled at most once per interval), or undefined without a monitor. */
  resources(): ResourceUsage | undefined {
    return this.#monitor?.snapshot();
  }

  /** The learned offset adjustThreshold reads for the task's context (0 when not loaded). */
  learnedOffset(task: Pick<TaskContext, "project" | "operationType" | "domain">): number {
    return this.#learner?.peek(contextKeyOf(task)) ?? 0;
  }

  /** The adjusted threshold for this user, environment and task (synchronous). */
  adjustThreshold(
    user: UserSignalInput,
    environment: EnvironmentContext,
    task: TaskContext,
    resources?: ResourceUsage,
  ): ThresholdAdjustment {
    return this.#adjust({
      user,
      environment,
      task,
      resources: resources ?? this.#monitor?.snapshot(),
      learnedOffset: this.#learner?.peek(contextKeyOf(task)) ?? 0,
    });
  }

  /** The decision for a score in [0, 1] under an adjustment (synchronous). */
  gate<F = string>(score: number, adjustment: ThresholdAdjustment, options?: GateCallOptions<F>): GateDecision<F> {
    return decide(score, adjustment, options?.fallbacks, this.#gateOptions);
  }

  /** The tier `gate` would give (decision, confidence, caution, threshold, gap, probability), without its reasoning. */
  tier(score: number, adjustment: ThresholdAdjustment): GateTier {
    return gateTier(score, adjustment.adjustedThreshold, this.#gateOptions);
  }

  /** The reasoning report of a gated answer, as JSON and as text. */
  report(input: ReportInput): { readonly json: ReasoningReport; readonly text: string } {
    const json = buildReasoningReport(input, this.#reportOptions);
    return { json, text: renderReasoningReport(json) };
  }
}
