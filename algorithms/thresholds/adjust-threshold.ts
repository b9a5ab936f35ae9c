/**
 * Adaptive threshold adjustment (docs/decisions/gate-thresholds.md): extract the user-history, resource and context
 * signals, apply the highest-priority matching rule (adjustment-rules.ts), then
 *
 *   adjusted = clamp(ruleThreshold + learnedOffset + healthPenalty × (#health flags), min, max)
 *
 * where ruleThreshold is the selected rule's threshold (base 0.70 when none fires), learnedOffset is the
 * per-context offset learned from outcomes (context-learning.ts), the health flags are AtRisk (replans > 2) and
 * OffTrack (workflow success < 0.5) from context detection, each adding 0.05, and [min, max] = [0.60, 0.80].
 *
 * The reasoning sentence reads: "Threshold decreased by 7% (0.70 → 0.65). Rule: user_history_positive.
 * Reason: ..." (percent = |delta| / original, rounded), with any learned offset, health penalty and clamping
 * appended as further sentences. confidenceLevel is strict / neutral / lenient as adjusted is above / equal to /
 * below the original threshold.
 */

import { matchingRules, RULES, type ThresholdRule, validateRules } from "./adjustment-rules.ts";
import { type ContextSignal, type ContextSignalOptions, extractContextSignals } from "./context-signals.ts";
import { assertInRange, ThresholdError } from "./errors.ts";
import { stripUndefined } from "./options.ts";
import { extractResourceSignals, type ResourceSignal, type ResourceSignalOptions } from "./resource-signals.ts";
import type { EnvironmentContext, ResourceUsage, SignalReport, TaskContext } from "./types.ts";
import {
  extractUserHistorySignals,
  type UserSignalInput,
  type UserSignalOptions,
  type UserSignalReport,
} from "./user-history-signals.ts";

const MODULE = "thresholds/adjust-threshold";

export interface AdjustOptions {
  /** Threshold when no rule fires. Default 0.70. */
  readonly baseThreshold?: number;
  /** Lower clamp. Default 0.60. */
  readonly minThreshold?: number;
  /** Upper clamp. Default 0.80. */
  readonly maxThreshold?: number;
  /** Added per workflow health flag (AtRisk, OffTrack). Default 0.05. */
  readonly healthPenalty?: number;
  /** Rule table. Default RULES (six user/context rules plus complex_task and simple_task). */
  readonly rules?: readonly ThresholdRule[];
  /** Options of the three extractors (their own DEFAULTS apply). */
  readonly userSignals?: UserSignalOptions;
  readonly resourceSignals?: ResourceSignalOptions;
  readonly contextSignals?: ContextSignalOptions;
}

export const DEFAULTS = {
  baseThreshold: 0.7,
  minThreshold: 0.6,
  maxThreshold: 0.8,
  healthPenalty: 0.05,
  rules: RULES,
} as const;

export interface AdjustInput {
  readonly user: UserSignalInput;
  readonly environment: EnvironmentContext;
  readonly task: TaskContext;
  /** Resource usage snapshot; when absent no resource signal is extracted. */
  readonly resources?: ResourceUsage | undefined;
  /** Learned per-context offset. Default 0. */
  readonly learnedOffset?: number | undefined;
}

export type ConfidenceLevel = "strict" | "neutral" | "lenient";

export interface ThresholdAdjustment {
  readonly originalThreshold: number;
  /** Threshold of the selected rule, or the base when none fired (before offset, penalty and clamping). */
  readonly ruleThreshold: number;
  readonly learnedOffset: number;
  /** healthPenalty × number of health flags raised. */
  readonly healthPenalty: number;
  readonly adjustedThreshold: number;
  /** adjustedThreshold − originalThreshold. */
  readonly delta: number;
  /** The rule that applied (zero or one id, as an array). */
  readonly appliedRules: readonly string[];
  /** Every rule that matched, in selection order. */
  readonly matchedRules: readonly Pick<ThresholdRule, "id" | "threshold" | "priority" | "category">[];
  readonly signals: {
    readonly user: UserSignalReport;
    readonly context: SignalReport<ContextSignal>;
    readonly resource: SignalReport<ResourceSignal> | undefined;
  };
  /** Echo of the inputs the report's risk assessment needs. */
  readonly resources: ResourceUsage | undefined;
  readonly complexity: number;
  readonly reasoning: string;
  readonly confidenceLevel: ConfidenceLevel;
  /** True when the clamp changed the value. */
  readonly clamped: boolean;
  readonly bounds: { readonly min: number; readonly max: number };
}

const EPS = 1e-9;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const signed = (x: number): string => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;

/** Validates the options once and returns the adjustment function. */
export function createThresholdAdjuster(options?: AdjustOptions): (input: AdjustInput) => ThresholdAdjustment {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  assertInRange(MODULE, "minThreshold", o.minThreshold, 0, 1);
  assertInRange(MODULE, "maxThreshold", o.maxThreshold, 0, 1);
  if (o.minThreshold > o.maxThreshold) {
    throw new ThresholdError(
      MODULE,
      "bad-bounds",
      `minThreshold ${o.minThreshold} exceeds maxThreshold ${o.maxThreshold}`,
    );
  }
  assertInRange(MODULE, "baseThreshold", o.baseThreshold, o.minThreshold, o.maxThreshold);
  assertInRange(MODULE, "healthPenalty", o.healthPenalty, 0, 1);
  validateRules(o.rules);
  const { userSignals, resourceSignals, contextSignals } = options ?? {};

  return (input) => {
    const learnedOffset = input.learnedOffset ?? 0;
    if (!Number.isFinite(learnedOffset)) {
      throw new ThresholdError(MODULE, "bad-offset", `learnedOffset must be finite, got ${learnedOffset}`);
    }
    const user = extractUserHistorySignals(input.user, input.task, userSignals);
    const context = extractContextSignals(input.task, input.environment, contextSignals);
    const resource =
      input.resources === undefined ? undefined : extractResourceSignals(input.resources, resourceSignals);

    const fired = new Set<string>([...user.signals, ...context.signals, ...(resource?.signals ?? [])]);
    const matched = matchingRules(fired, o.rules);
    const rule = matched[0];
    const ruleThreshold = rule === undefined ? o.baseThreshold : rule.threshold;
    const flags = (input.task.atRisk === true ? 1 : 0) + (input.task.offTrack === true ? 1 : 0);
    const healthPenalty = round6(flags * o.healthPenalty);
    const raw = ruleThreshold + learnedOffset + healthPenalty;
    const clampedValue = Math.min(o.maxThreshold, Math.max(o.minThreshold, raw));
    const adjusted = round6(clampedValue);
    const clamped = Math.abs(clampedValue - raw) > EPS;
    const original = o.baseThreshold;
    const delta = round6(adjusted - original);
    const confidenceLevel: ConfidenceLevel = delta > EPS ? "strict" : delta < -EPS ? "lenient" : "neutral";

    const parts: string[] = [];
    if (Math.abs(delta) <= EPS) parts.push(`Threshold unchanged (${original.toFixed(2)})`);
    else {
      const pct = original > 0 ? Math.round((Math.abs(delta) / original) * 100) : Math.round(Math.abs(delta) * 100);
      parts.push(
        `Threshold ${delta > 0 ? "increased" : "decreased"} by ${pct}% (${original.toFixed(2)} → ${adjusted.toFixed(2)})`,
      );
    }
    if (rule === undefined) parts.push("No rule applied");
    else parts.push(`Rule: ${rule.id}`, `Reason: ${rule.reason}`);
    if (Math.abs(learnedOffset) > EPS) parts.push(`Learned offset for this context: ${signed(learnedOffset)}`);
    if (input.task.atRisk === true) parts.push(`Task health AtRisk: +${o.healthPenalty.toFixed(2)}`);
    if (input.task.offTrack === true) parts.push(`Task health OffTrack: +${o.healthPenalty.toFixed(2)}`);
    if (clamped) parts.push(`Clamped to [${o.minThreshold.toFixed(2)}, ${o.maxThreshold.toFixed(2)}]`);

    return {
      originalThreshold: original,
      ruleThreshold,
      learnedOffset,
      healthPenalty,
      adjustedThreshold: adjusted,
      delta,
      appliedRules: rule === undefined ? [] : [rule.id],
      matchedRules: matched.map((r) => ({
        id: r.id,
        threshold: r.threshold,
        priority: r.priority,
        category: r.category,
      })),
      signals: { user, context, resource },
      resources: input.resources,
      complexity: input.task.complexity,
      reasoning: parts.join(". "),
      confidenceLevel,
      clamped,
      bounds: { min: o.minThreshold, max: o.maxThreshold },
    };
  };
}

/** One-shot form of createThresholdAdjuster(options)(input). */
export function adjustThreshold(input: AdjustInput, options?: AdjustOptions): ThresholdAdjustment {
  return createThresholdAdjuster(options)(input);
}
