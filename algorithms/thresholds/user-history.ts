/**
 * User history arithmetic, updated after every task (docs/decisions/gate-thresholds.md):
 *
 *   recentSuccessRate = successes in the last W outcomes / outcomes in that window      (W = 10)
 *   successRate       = successes / tasks                                                 (whole history)
 *   reputation        = 0.7 × recentSuccessRate + 0.3 × successRate                       (0 with no tasks)
 *
 * plus per-domain and per-operation success counters, a total error count, and the failures inside the
 * window (`recentErrors`, what the high_error_rate signal counts: a lifetime count would flag every
 * long-lived user forever). A user whose last task is older than `inactiveAfterMs` (30 days) is marked
 * `inactive`, and the user-history signal treats an inactive user like a new one.
 *
 * `updateUserHistory` returns a new object and never mutates its input.
 */

import { ThresholdError } from "./errors.ts";
import type { SuccessCounter, UserContext } from "./types.ts";

const MODULE = "thresholds/user-history";

export interface UserHistoryOptions {
  /** Size of the recent-outcome window. Default 10. */
  readonly recentWindow?: number;
  /** Weight of the recent success rate in the reputation (the rest goes to the overall rate). Default 0.7. */
  readonly recentWeight?: number;
  /** A user whose last task is older than this (ms) is inactive. Default 30 days. */
  readonly inactiveAfterMs?: number;
}

export const DEFAULTS = {
  recentWindow: 10,
  recentWeight: 0.7,
  inactiveAfterMs: 30 * 24 * 60 * 60 * 1000,
} as const;

export interface UserHistory {
  readonly taskCount: number;
  readonly successCount: number;
  /** Failures over the whole history. */
  readonly errorCount: number;
  /** The last `recentWindow` outcomes, oldest first (true = success). */
  readonly recent: readonly boolean[];
  readonly domains: Readonly<Record<string, SuccessCounter>>;
  readonly operations: Readonly<Record<string, SuccessCounter>>;
  /** Epoch ms of the latest task, or null when there is none. */
  readonly lastTaskAt: number | null;
  /** Message of the latest failure, when one was given. */
  readonly lastError?: string | undefined;
}

/** One completed task (what the feedback loop records after each execution). */
export interface TaskOutcome {
  readonly success: boolean;
  /** Epoch ms at which the task completed. */
  readonly at: number;
  readonly domain?: string | undefined;
  readonly operationType?: string | undefined;
  readonly errorMessage?: string | undefined;
}

export function emptyUserHistory(): UserHistory {
  return { taskCount: 0, successCount: 0, errorCount: 0, recent: [], domains: {}, operations: {}, lastTaskAt: null };
}

/** Counter for `key`, or undefined (own properties only: a domain named "constructor" is just a domain). */
export function counterOf(record: Readonly<Record<string, SuccessCounter>>, key: string): SuccessCounter | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function bump(
  record: Readonly<Record<string, SuccessCounter>>,
  key: string | undefined,
  success: boolean,
): Readonly<Record<string, SuccessCounter>> {
  if (key === undefined || key === "") return record;
  const prev = counterOf(record, key) ?? { total: 0, successes: 0 };
  return { ...record, [key]: { total: prev.total + 1, successes: prev.successes + (success ? 1 : 0) } };
}

function windowOf(options: UserHistoryOptions | undefined): number {
  const w = options?.recentWindow ?? DEFAULTS.recentWindow;
  if (!Number.isInteger(w) || w < 1) {
    throw new ThresholdError(MODULE, "bad-window", `recentWindow must be a positive integer, got ${w}`);
  }
  return w;
}

/** Returns the history after one more outcome; the input is left untouched; the window keeps the last W. */
export function updateUserHistory(
  history: UserHistory,
  outcome: TaskOutcome,
  options?: UserHistoryOptions,
): UserHistory {
  if (!Number.isFinite(outcome.at)) {
    throw new ThresholdError(MODULE, "bad-time", `outcome.at must be a finite epoch ms, got ${outcome.at}`);
  }
  const w = windowOf(options);
  const recent = [...history.recent, outcome.success];
  const trimmed = recent.length > w ? recent.slice(recent.length - w) : recent;
  return {
    taskCount: history.taskCount + 1,
    successCount: history.successCount + (outcome.success ? 1 : 0),
    errorCount: history.errorCount + (outcome.success ? 0 : 1),
    recent: trimmed,
    domains: bump(history.domains, outcome.domain, outcome.success),
    operations: bump(history.operations, outcome.operationType, outcome.success),
    lastTaskAt: history.lastTaskAt === null ? outcome.at : Math.max(history.lastTaskAt, outcome.at),
    lastError: outcome.success ? history.lastError : (outcome.errorMessage ?? history.lastError),
  };
}

function recentSlice(history: UserHistory, options: UserHistoryOptions | undefined): readonly boolean[] {
  const w = windowOf(options);
  return history.recent.length > w ? history.recent.slice(history.recent.length - w) : history.recent;
}

/** reputation = recentWeight × recent success rate + (1 − recentWeight) × overall success rate; 0 with no tasks. */
export function reputationOf(history: UserHistory, options?: UserHistoryOptions): number {
  if (history.taskCount === 0) return 0;
  const rw = options?.recentWeight ?? DEFAULTS.recentWeight;
  if (!Number.isFinite(rw) || rw < 0 || rw > 1) {
    throw new ThresholdError(MODULE, "bad-weight", `recentWeight must be in [0, 1], got ${rw}`);
  }
  const recent = recentSlice(history, options);
  const recentRate = recent.length === 0 ? 0 : recent.filter(Boolean).length / recent.length;
  const overall = history.successCount / history.taskCount;
  return rw * recentRate + (1 - rw) * overall;
}

/** The user context the signal extractors read, at time `now` (epoch ms). */
export function userContextOf(history: UserHistory, now: number, options?: UserHistoryOptions): UserContext {
  const recent = recentSlice(history, options);
  const recentSuccesses = recent.filter(Boolean).length;
  const inactiveAfter = options?.inactiveAfterMs ?? DEFAULTS.inactiveAfterMs;
  return {
    taskCount: history.taskCount,
    successRate: history.taskCount === 0 ? 0 : history.successCount / history.taskCount,
    recentSuccessRate: recent.length === 0 ? 0 : recentSuccesses / recent.length,
    reputation: reputationOf(history, options),
    recentErrors: recent.length - recentSuccesses,
    errorCount: history.errorCount,
    domains: history.domains,
    inactive: history.lastTaskAt !== null && now - history.lastTaskAt > inactiveAfter,
    lastTaskAt: history.lastTaskAt,
  };
}
