/**
 * Learned threshold offset per context (ours, beyond the fixed rule table; docs/decisions/gate-thresholds.md).
 * A context is project × operation type × domain. From each gated answer's outcome:
 *
 *   accepted and then failed                      offset ← offset + step     (the gate was too lenient)
 *   abstained, user followed it and succeeded     offset ← offset − step     (the gate was too strict)
 *   anything else                                 offset unchanged (counted)
 *
 * with step = 0.01 and the offset bounded so that base + offset ∈ [floor, ceiling] = [0.60, 0.80], i.e.
 * offset ∈ [−0.10, +0.10] around the 0.70 base. The manager combines it as
 * adjusted = clamp(ruleThreshold + offset + healthPenalty) (adjust-threshold.ts).
 * `updateContextThreshold` returns a new state and never mutates its input.
 */

import { assertInRange, ThresholdError } from "./errors.ts";
import { stripUndefined } from "./options.ts";

const MODULE = "thresholds/context-learning";

export interface ContextKey {
  readonly project: string;
  readonly operation: string;
  readonly domain: string;
}

export type GateOutcome =
  | "accepted-succeeded"
  | "accepted-failed"
  | "abstained-followed-succeeded"
  | "abstained-followed-failed"
  | "abstained-not-followed";

export interface ContextThresholdState {
  /** Learned offset added to the rule threshold. */
  readonly offset: number;
  /** Outcomes seen, by kind. */
  readonly counts: Readonly<Record<GateOutcome, number>>;
}

export interface ContextLearningOptions {
  /** Size of one learning step. Default 0.01. */
  readonly step?: number;
  /** The threshold the offset is relative to. Default 0.70. */
  readonly base?: number;
  /** base + offset never goes below this. Default 0.60. */
  readonly floor?: number;
  /** base + offset never goes above this. Default 0.80. */
  readonly ceiling?: number;
}

export const DEFAULTS = { step: 0.01, base: 0.7, floor: 0.6, ceiling: 0.8 } as const;

export const UNKNOWN = "unknown";

/** Key string for maps and stores: project, operation and domain joined by U+001F (unit separator). */
export function contextKeyString(key: ContextKey): string {
  return `${key.project}\u001f${key.operation}\u001f${key.domain}`;
}

/** The context key of a task; a missing operation or domain becomes "unknown". */
export function contextKeyOf(task: {
  readonly project?: string | undefined;
  readonly operationType?: string | undefined;
  readonly domain?: string | undefined;
}): ContextKey {
  return { project: task.project ?? UNKNOWN, operation: task.operationType ?? UNKNOWN, domain: task.domain ?? UNKNOWN };
}

export function emptyContextThreshold(): ContextThresholdState {
  return {
    offset: 0,
    counts: {
      "accepted-succeeded": 0,
      "accepted-failed": 0,
      "abstained-followed-succeeded": 0,
      "abstained-followed-failed": 0,
      "abstained-not-followed": 0,
    },
  };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** State after one outcome; offset moves by at most one step and stays within [floor − base, ceiling − base]. */
export function updateContextThreshold(
  state: ContextThresholdState,
  outcome: GateOutcome,
  options?: ContextLearningOptions,
): ContextThresholdState {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  assertInRange(MODULE, "step", o.step, 0, 1);
  assertInRange(MODULE, "floor", o.floor, 0, 1);
  assertInRange(MODULE, "ceiling", o.ceiling, o.floor, 1);
  assertInRange(MODULE, "base", o.base, o.floor, o.ceiling);
  if (!(outcome in state.counts)) {
    throw new ThresholdError(MODULE, "bad-outcome", `unknown gate outcome ${String(outcome)}`);
  }
  const move = outcome === "accepted-failed" ? o.step : outcome === "abstained-followed-succeeded" ? -o.step : 0;
  const lo = o.floor - o.base;
  const hi = o.ceiling - o.base;
  const offset = round6(Math.min(hi, Math.max(lo, state.offset + move)));
  return { offset, counts: { ...state.counts, [outcome]: state.counts[outcome] + 1 } };
}
