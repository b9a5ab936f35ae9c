/**
 * Decision tiers of the confidence gate (docs/decisions/gate-thresholds.md, "Tiers"):
 *
 *   score ≥ max(0.85, threshold)           → accepted, high confidence
 *   score ≥ adjusted threshold             → accepted-with-caution, medium confidence (caution flag)
 *   otherwise                              → abstained, low confidence, gap = threshold − score, and the
 *                                            caller's fallbacks (the project's configured fallback tools)
 *
 * With a calibration map (calibration.ts) the high tier also needs calibrated P(success) ≥ 0.80, so that
 * answers accepted with high confidence succeed at least 80% of the time on the calibration data (the target
 * "high confidence = success rate > 0.8", measured per dataset in docs/decisions/gate-thresholds.md); an
 * answer failing that test falls to the caution tier.
 * Scores are compared with a 1e-9 tolerance (0.62 passes a 0.62 threshold).
 */

import { assertInRange } from "./errors.ts";

const MODULE = "thresholds/gate-decision";

export interface GateOptions {
  /** Score at or above which an answer is accepted with high confidence. Default 0.85. */
  readonly highConfidence?: number;
  /** Calibrated success probability the high tier needs when `calibrate` is given. Default 0.80. */
  readonly minHighProbability?: number;
  /** Monotone map score → P(success); absent = no calibration check. */
  readonly calibrate?: ((score: number) => number) | undefined;
}

export const DEFAULTS = { highConfidence: 0.85, minHighProbability: 0.8 } as const;

export type Decision = "accepted" | "accepted-with-caution" | "abstained";

export interface GateDecision<F = string> {
  readonly decision: Decision;
  readonly confidence: "high" | "medium" | "low";
  readonly score: number;
  readonly threshold: number;
  /** True for accepted-with-caution (proceed, flagged for monitoring). */
  readonly caution: boolean;
  /** threshold − score, only when abstained. */
  readonly gap?: number;
  /** The caller's fallbacks, only when abstained. */
  readonly fallbacks?: readonly F[];
  /** Calibrated P(success), when a calibration map was given. */
  readonly probability?: number;
  readonly appliedRules: readonly string[];
  /** The threshold adjustment's reasoning followed by the decision sentence. */
  readonly reasoning: string;
}

/** The part of a ThresholdAdjustment the gate reads. */
export interface GateThreshold {
  readonly adjustedThreshold: number;
  readonly appliedRules: readonly string[];
  readonly reasoning: string;
}

const EPS = 1e-9;

/**
 * The tier of a score alone (decision, confidence, caution flag, the threshold, gap when abstained, calibrated
 * probability when given): what an answer's item shows, without the reasoning sentence or the fallbacks that
 * `decide` adds. Fields in the order an answer lists them.
 */
export interface GateTier {
  readonly decision: Decision;
  readonly confidence: "high" | "medium" | "low";
  readonly caution: boolean;
  readonly threshold: number;
  readonly gap?: number;
  readonly probability?: number;
}

export function gateTier(score: number, threshold: number, options?: GateOptions): GateTier {
  assertInRange(MODULE, "score", score, 0, 1);
  // Every item of every answer passes here (ten per search): the options are read field by field and each tier
  // is one literal.
  const highConfidence = options?.highConfidence ?? DEFAULTS.highConfidence;
  const minHighProbability = options?.minHighProbability ?? DEFAULTS.minHighProbability;
  const t = threshold;
  const probability = options?.calibrate === undefined ? undefined : options.calibrate(score);
  if (
    score + EPS >= Math.max(highConfidence, t) &&
    (probability === undefined || probability + EPS >= minHighProbability)
  ) {
    return probability === undefined
      ? { decision: "accepted", confidence: "high", caution: false, threshold: t }
      : { decision: "accepted", confidence: "high", caution: false, threshold: t, probability };
  }
  if (score + EPS >= t) {
    return probability === undefined
      ? { decision: "accepted-with-caution", confidence: "medium", caution: true, threshold: t }
      : { decision: "accepted-with-caution", confidence: "medium", caution: true, threshold: t, probability };
  }
  const gap = Math.round((t - score) * 1e6) / 1e6;
  return probability === undefined
    ? { decision: "abstained", confidence: "low", caution: false, threshold: t, gap }
    : { decision: "abstained", confidence: "low", caution: false, threshold: t, gap, probability };
}

export function decide<F = string>(
  score: number,
  threshold: GateThreshold,
  fallbacks?: readonly F[],
  options?: GateOptions,
): GateDecision<F> {
  const g = gateTier(score, threshold.adjustedThreshold, options);
  // Each decision is one literal, its fields in the order the spread form gave them (score, threshold,
  // appliedRules, probability?, decision, confidence, caution, gap?, fallbacks?, reasoning).
  const { decision, confidence, caution, threshold: t, probability } = g;
  const appliedRules = threshold.appliedRules;
  if (decision === "accepted") {
    const highConfidence = options?.highConfidence ?? DEFAULTS.highConfidence;
    const reasoning = `${threshold.reasoning}. Score ${f2(score)} ≥ ${f2(highConfidence)}: accepted with high confidence`;
    return probability === undefined
      ? { score, threshold: t, appliedRules, decision, confidence, caution, reasoning }
      : { score, threshold: t, appliedRules, probability, decision, confidence, caution, reasoning };
  }
  if (decision === "accepted-with-caution") {
    const reasoning = `${threshold.reasoning}. Score ${f2(score)} ≥ threshold ${f2(t)}: accepted with caution`;
    return probability === undefined
      ? { score, threshold: t, appliedRules, decision, confidence, caution, reasoning }
      : { score, threshold: t, appliedRules, probability, decision, confidence, caution, reasoning };
  }
  const gap = g.gap!;
  const reasoning = `${threshold.reasoning}. Score ${f2(score)} < threshold ${f2(t)} (gap ${f2(gap)}): abstained`;
  const offered = fallbacks ?? [];
  return probability === undefined
    ? { score, threshold: t, appliedRules, decision, confidence, caution, gap, fallbacks: offered, reasoning }
    : {
        score,
        threshold: t,
        appliedRules,
        probability,
        decision,
        confidence,
        caution,
        gap,
        fallbacks: offered,
        reasoning,
      };
}

function f2(x: number): string {
  return x.toFixed(2);
}
