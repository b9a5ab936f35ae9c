/**
 * UserHistorySignalExtractor (docs/decisions/gate-thresholds.md), strongest first:
 *
 *   high_error_rate    recentErrors ≥ 3 OR successRate < 0.50 (only with ≥ 1 task)      up    High (override)
 *   new_unproven_user  taskCount < 5 OR reputation < 0.30 OR inactive                      up    Medium
 *   trusted_user       reputation ≥ 0.80 AND successRate ≥ 0.85 AND taskCount ≥ 10        down  Medium
 *   similar_success    success rate in the task's domain ≥ 0.80 (with ≥ 3 tasks there)     down  Low
 *
 * Boundaries are inclusive as the rule table writes them (reputation exactly 0.80 is trusted; exactly
 * 5 tasks is no longer new). At equal strength an "up" signal is listed before a "down" one (safety first).
 * Our changes to the starting rules: errors are counted in the last-10 window (see user-history.ts); an inactive
 * user (no task for 30 days) is treated as unproven; similar_success needs ≥ 3 tasks in the domain.
 */

import { stripUndefined } from "./options.ts";
import type { SignalReport, SimilarPastSuccess, UserContext } from "./types.ts";
import { counterOf } from "./user-history.ts";

export type UserSignal = "high_error_rate" | "new_unproven_user" | "trusted_user" | "similar_success";

export interface UserSignalOptions {
  /** Recent failures at or above which the user has a high error rate. Default 3. */
  readonly maxRecentErrors?: number;
  /** Success rate strictly below which the user has a high error rate. Default 0.50. */
  readonly minSuccessRate?: number;
  /** A user with strictly fewer tasks is new. Default 5. */
  readonly newUserTasks?: number;
  /** A user with reputation strictly below this is unproven. Default 0.30. */
  readonly newUserReputation?: number;
  /** Trusted: reputation ≥ this. Default 0.80. */
  readonly trustedReputation?: number;
  /** Trusted: success rate ≥ this. Default 0.85. */
  readonly trustedSuccessRate?: number;
  /** Trusted: at least this many tasks. Default 10. */
  readonly trustedTasks?: number;
  /** similar_success: domain success rate ≥ this. Default 0.80. */
  readonly similarSuccessRate?: number;
  /** similar_success: at least this many tasks in the domain. Default 3. */
  readonly similarMinTasks?: number;
}

export const DEFAULTS = {
  maxRecentErrors: 3,
  minSuccessRate: 0.5,
  newUserTasks: 5,
  newUserReputation: 0.3,
  trustedReputation: 0.8,
  trustedSuccessRate: 0.85,
  trustedTasks: 10,
  similarSuccessRate: 0.8,
  similarMinTasks: 3,
} as const;

/** The fields the extractor reads; scenario inputs may give only reputation, successRate and taskCount. */
export type UserSignalInput = Pick<UserContext, "reputation" | "successRate" | "taskCount"> &
  Partial<Pick<UserContext, "recentErrors" | "domains" | "inactive">>;

export interface UserSignalReport extends SignalReport<UserSignal> {
  /** Success rate in the task's domain when enough tasks exist there, else undefined. */
  readonly similarTaskSuccessRate: number | undefined;
}

const pct = (x: number): string => `${Math.round(x * 100)}%`;

export function extractUserHistorySignals(
  user: UserSignalInput,
  task?: {
    readonly domain?: string | undefined;
    /**
     * Success of similar past executions (intent memory): when given with at least `similarMinTasks`
     * executions it is the similar-task success rate, ahead of the domain counter. Given with rate null (the
     * memory found no past task similar enough), no similar_success fires, the domain counter included, and
     * the reasoning says there was no similar past task.
     */
    readonly similarPastSuccess?: SimilarPastSuccess | undefined;
  },
  options?: UserSignalOptions,
): UserSignalReport {
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const signals: UserSignal[] = [];
  const reasons: string[] = [];
  const recentErrors = user.recentErrors ?? 0;

  const errorHit = recentErrors >= o.maxRecentErrors || (user.taskCount > 0 && user.successRate < o.minSuccessRate);
  if (errorHit) {
    signals.push("high_error_rate");
    reasons.push(`high_error_rate: ${recentErrors} recent errors, success ${pct(user.successRate)}`);
  }
  const inactive = user.inactive === true;
  if (user.taskCount < o.newUserTasks || user.reputation < o.newUserReputation || inactive) {
    signals.push("new_unproven_user");
    reasons.push(
      `new_unproven_user: ${user.taskCount} tasks, reputation ${pct(user.reputation)}${inactive ? ", inactive" : ""}`,
    );
  }
  if (
    user.reputation >= o.trustedReputation &&
    user.successRate >= o.trustedSuccessRate &&
    user.taskCount >= o.trustedTasks
  ) {
    signals.push("trusted_user");
    reasons.push(
      `trusted_user: reputation ${pct(user.reputation)}, success ${pct(user.successRate)}, ${user.taskCount} tasks`,
    );
  }
  let similar: number | undefined;
  let similarFrom = "";
  const domain = task?.domain;
  const past = task?.similarPastSuccess;
  const floorText = past?.floor === undefined ? "" : ` (similarity ≥ ${past.floor.toFixed(2)})`;
  if (past !== undefined && past.rate === null) {
    const best = past.best === undefined ? "" : `, the closest reaches ${past.best.toFixed(2)}`;
    reasons.push(
      `no similar past task: no past execution is similar enough${past.floor === undefined ? "" : ` (similarity ≥ ${past.floor.toFixed(2)}${best})`}`,
    );
  } else if (past !== undefined && past.executions >= o.similarMinTasks) {
    similar = past.rate ?? undefined;
    similarFrom = ` of ${past.executions} similar past executions${floorText}`;
  } else if (domain !== undefined && user.domains !== undefined) {
    const c = counterOf(user.domains, domain);
    if (c !== undefined && c.total >= o.similarMinTasks) similar = c.successes / c.total;
    similarFrom = ` in domain ${domain}`;
  }
  if (similar !== undefined && similar >= o.similarSuccessRate) {
    signals.push("similar_success");
    reasons.push(`similar_success: ${pct(similar)} success${similarFrom}`);
  }
  const first = signals[0];
  const recommendation =
    first === undefined ? "neutral" : first === "high_error_rate" || first === "new_unproven_user" ? "up" : "down";
  return {
    signals,
    recommendation,
    reasoning:
      signals.length === 0
        ? reasons.length === 0
          ? "No user-history signal"
          : `No user-history signal; ${reasons.join("; ")}`
        : reasons.join("; "),
    similarTaskSuccessRate: similar,
  };
}
