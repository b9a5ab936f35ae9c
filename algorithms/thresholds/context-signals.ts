/**
 * ContextSignalExtractor (docs/decisions/gate-thresholds.md), strongest first:
 *
 *   critical_production  isProduction AND isCriticalTask              up    Highest (override)
 *   urgent_task          urgency = "high" OR urgent keywords found     down  High
 *   complex_task         complexity > 0.7                              up    Medium
 *   simple_task          complexity < 0.3                              down  Low
 *
 * Bounds are strict (complexity exactly 0.7 or 0.3 fires neither).
 */

import { assertInRange } from "./errors.ts";
import { stripUndefined } from "./options.ts";
import type { EnvironmentContext, SignalReport, TaskContext } from "./types.ts";

const MODULE = "thresholds/context-signals";

export type ContextSignal = "critical_production" | "urgent_task" | "complex_task" | "simple_task";

export interface ContextSignalOptions {
  /** complex_task when complexity is strictly above this. Default 0.7. */
  readonly complexAbove?: number;
  /** simple_task when complexity is strictly below this. Default 0.3. */
  readonly simpleBelow?: number;
}

export const DEFAULTS = { complexAbove: 0.7, simpleBelow: 0.3 } as const;

export function extractContextSignals(
  task: Pick<TaskContext, "urgency" | "hasUrgencyKeywords" | "complexity">,
  environment: Pick<EnvironmentContext, "isProduction" | "isCriticalTask">,
  options?: ContextSignalOptions,
): SignalReport<ContextSignal> {
  assertInRange(MODULE, "task complexity", task.complexity, 0, 1);
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const signals: ContextSignal[] = [];
  const reasons: string[] = [];
  if (environment.isProduction && environment.isCriticalTask) {
    signals.push("critical_production");
    reasons.push("critical_production: critical task in production");
  }
  if (task.urgency === "high" || task.hasUrgencyKeywords === true) {
    signals.push("urgent_task");
    reasons.push(`urgent_task: urgency ${task.urgency}${task.hasUrgencyKeywords === true ? ", urgent keywords" : ""}`);
  }
  if (task.complexity > o.complexAbove) {
    signals.push("complex_task");
    reasons.push(`complex_task: complexity ${task.complexity.toFixed(2)}`);
  } else if (task.complexity < o.simpleBelow) {
    signals.push("simple_task");
    reasons.push(`simple_task: complexity ${task.complexity.toFixed(2)}`);
  }
  const first = signals[0];
  const recommendation =
    first === undefined ? "neutral" : first === "critical_production" || first === "complex_task" ? "up" : "down";
  return { signals, recommendation, reasoning: reasons.length === 0 ? "No context signal" : reasons.join("; ") };
}
