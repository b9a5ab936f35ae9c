/**
 * The threshold adjustment rules (six user and context rules) plus two complexity rules (complex_task → 0.72,
 * Medium; simple_task → 0.65, Low); where the numbers come from and what was changed:
 * docs/decisions/gate-thresholds.md.
 *
 *   rule                   fires on signal        threshold  priority  category
 *   critical_production    critical_production    0.80       10        up
 *   error_rate_high        high_error_rate        0.75       10        up
 *   task_urgency_high      urgent_task            0.62        9        down
 *   new_user               new_unproven_user      0.75        9        up
 *   user_history_positive  trusted_user           0.65        8        down
 *   complex_task           complex_task           0.72        8        up
 *   similar_task_success   similar_success        0.60        7        down
 *   simple_task            simple_task            0.65        7        down
 *
 * The signals' priorities map onto the rule table's numbers as the six rules' do (Highest/High 10 or 9,
 * Medium 9 or 8, Low 7): complex_task is Medium (8, up: it beats user_history_positive on a tie), simple_task
 * Low (7, after similar_task_success, which wins their tie by table order).
 *
 * Selection: only the highest-priority matching rule applies; on equal priority an "up" (strict) rule beats a
 * "down" (lenient) one; remaining ties go to the earlier rule in the table (so critical_production beats
 * error_rate_high: a new user with errors on a critical production task gets 0.80). No matching rule → the
 * base threshold 0.70. The rule first named similar_past_success is similar_task_success: the success of
 * similar past tasks is a property of the task (computed over every user's executions for an anonymous request, over
 * the user's own when a user is given), not a claim about a user.
 *
 * RESOURCE_RULES (resource_critical 0.75 / 9 up, low_resources 0.72 / 8 up, resource_healthy 0.65 / 7 down,
 * from the starting design's resource signal table) are not in the default table: the host's load and free
 * memory say nothing about which tool fits a request, and they would make the same request accepted or
 * abstained depending on what else runs on the machine (measured: bench/results/resource-signals.json).
 * Pass `[...RULES, ...RESOURCE_RULES]` to apply them.
 * A custom rule table may fire on any signal name.
 */

import { ThresholdError } from "./errors.ts";

const MODULE = "thresholds/adjustment-rules";

export interface ThresholdRule {
  readonly id: string;
  /** Name of the signal (from any extractor) that triggers the rule. */
  readonly signal: string;
  /** Threshold the rule sets, in [0, 1]. */
  readonly threshold: number;
  readonly priority: number;
  readonly category: "up" | "down";
  /** One sentence shown after "Reason:" in the adjustment reasoning. */
  readonly reason: string;
}

export const RULES: readonly ThresholdRule[] = [
  {
    id: "critical_production",
    signal: "critical_production",
    threshold: 0.8,
    priority: 10,
    category: "up",
    reason: "Critical production environment - maximum validation required",
  },
  {
    id: "error_rate_high",
    signal: "high_error_rate",
    threshold: 0.75,
    priority: 10,
    category: "up",
    reason: "User has a high error rate (≥3 recent errors or <50% success) - stricter validation",
  },
  {
    id: "task_urgency_high",
    signal: "urgent_task",
    threshold: 0.62,
    priority: 9,
    category: "down",
    reason: "High urgency task detected - prioritize speed over strictness",
  },
  {
    id: "new_user",
    signal: "new_unproven_user",
    threshold: 0.75,
    priority: 9,
    category: "up",
    reason: "New, inactive or unproven user (<5 tasks, <30% reputation or no task for 30 days) - stricter validation",
  },
  {
    id: "user_history_positive",
    signal: "trusted_user",
    threshold: 0.65,
    priority: 8,
    category: "down",
    reason: "User has proven track record (≥80% reputation, ≥85% success, ≥10 tasks)",
  },
  {
    id: "complex_task",
    signal: "complex_task",
    threshold: 0.72,
    priority: 8,
    category: "up",
    reason: "Complex task (complexity > 0.7) - stricter validation",
  },
  {
    id: "similar_task_success",
    signal: "similar_success",
    threshold: 0.6,
    priority: 7,
    category: "down",
    reason:
      "Similar tasks succeeded before (≥80% success of similar past executions — the user's own when a user is given)",
  },
  {
    id: "simple_task",
    signal: "simple_task",
    threshold: 0.65,
    priority: 7,
    category: "down",
    reason: "Simple task (complexity < 0.3) - a lighter check is enough",
  },
];

/** The resource rules of the starting design; not applied by default (see the header). */
export const RESOURCE_RULES: readonly ThresholdRule[] = [
  {
    id: "resource_critical",
    signal: "resource_critical",
    threshold: 0.75,
    priority: 9,
    category: "up",
    reason: "Critical resource usage (memory or CPU > 95%) - stricter routing",
  },
  {
    id: "low_resources",
    signal: "low_resources",
    threshold: 0.72,
    priority: 8,
    category: "up",
    reason: "Low resources (memory > 85% or CPU > 90%)",
  },
  {
    id: "resource_healthy",
    signal: "resource_healthy",
    threshold: 0.65,
    priority: 7,
    category: "down",
    reason: "Resources healthy (memory < 60% and CPU < 70%)",
  },
];

/** Throws on a rule whose threshold is outside [0, 1] or whose priority is not finite. */
export function validateRules(rules: readonly ThresholdRule[]): void {
  for (const r of rules) {
    if (!Number.isFinite(r.threshold) || r.threshold < 0 || r.threshold > 1) {
      throw new ThresholdError(MODULE, "bad-rule", `rule ${r.id} threshold must be in [0, 1], got ${r.threshold}`);
    }
    if (!Number.isFinite(r.priority)) {
      throw new ThresholdError(MODULE, "bad-rule", `rule ${r.id} priority must be finite, got ${r.priority}`);
    }
  }
}

/** Rules whose signal fired, in selection order (priority desc, then up before down, then table order). */
export function matchingRules(signals: ReadonlySet<string>, rules: readonly ThresholdRule[] = RULES): ThresholdRule[] {
  const hits: { rule: ThresholdRule; index: number }[] = [];
  rules.forEach((rule, index) => {
    if (signals.has(rule.signal)) hits.push({ rule, index });
  });
  hits.sort((a, b) => {
    if (a.rule.priority !== b.rule.priority) return b.rule.priority - a.rule.priority;
    if (a.rule.category !== b.rule.category) return a.rule.category === "up" ? -1 : 1;
    return a.index - b.index;
  });
  return hits.map((h) => h.rule);
}

/** The rule that applies, or undefined when none fired (the base threshold stands). */
export function selectRule(
  signals: ReadonlySet<string>,
  rules: readonly ThresholdRule[] = RULES,
): ThresholdRule | undefined {
  return matchingRules(signals, rules)[0];
}
