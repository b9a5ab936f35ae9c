/**
 * Shared shapes of the adaptive-threshold gate (docs/decisions/gate-thresholds.md):
 * the user context (from user history), the environment (production flag, resource usage) and the task
 * context (urgency, complexity, domain, operation, workflow health), plus the signal record that every
 * extractor returns.
 */

/** Per-key success counters (a domain, an operation type). */
export interface SuccessCounter {
  readonly total: number;
  readonly successes: number;
}

/** What the gate knows about a user, derived from their history at a point in time (see user-history.ts). */
export interface UserContext {
  /** Tasks recorded for this user. */
  readonly taskCount: number;
  /** successes / taskCount over the whole history; 0 when taskCount = 0. */
  readonly successRate: number;
  /** Success rate over the last-10 window; 0 when empty. */
  readonly recentSuccessRate: number;
  /** 0.7 × recentSuccessRate + 0.3 × successRate; 0 for a user with no tasks. */
  readonly reputation: number;
  /** Failures inside the last-10 window (what the high_error_rate signal counts). */
  readonly recentErrors: number;
  /** Failures over the whole history. */
  readonly errorCount: number;
  /** Per-domain counters, used by the similar_success signal. */
  readonly domains: Readonly<Record<string, SuccessCounter>>;
  /** True when the last task is older than the inactivity window (treated like a new user). */
  readonly inactive: boolean;
  /** Epoch ms of the last recorded task, or null. */
  readonly lastTaskAt: number | null;
}

/** Resource usage as fractions in [0, 1]; `disk` is undefined when it could not be read. */
export interface ResourceUsage {
  readonly memory: number;
  readonly cpu: number;
  readonly disk?: number | undefined;
}

export interface EnvironmentContext {
  readonly isProduction: boolean;
  readonly isCriticalTask: boolean;
  /** Free text such as "production", "staging"; informational. */
  readonly deploymentStage?: string | undefined;
}

export type Urgency = "low" | "medium" | "high";

export interface TaskContext {
  readonly urgency: Urgency;
  /** Urgent keywords were found in the request (urgent, asap, hotfix, ...). */
  readonly hasUrgencyKeywords?: boolean | undefined;
  /** Complexity in [0, 1] (context-detection.ts documents the formula). */
  readonly complexity: number;
  readonly domain?: string | undefined;
  readonly operationType?: string | undefined;
  /** Project id; with operationType and domain it keys the learned per-context offset. */
  readonly project?: string | undefined;
  /** Workflow health flags from context detection: each makes the gate stricter by `healthPenalty`. */
  readonly atRisk?: boolean | undefined;
  readonly offTrack?: boolean | undefined;
  /** Success of similar past executions from the intent memory (similar_task_success rule). */
  readonly similarPastSuccess?: SimilarPastSuccess | undefined;
}

/**
 * Success of the similar past tasks the intent memory found: `executions` past executions whose similarity to
 * the request reached `floor`, with weighted success `rate`; rate null and executions 0 when the memory holds
 * executions but none is that similar ("no similar past task", `best` the closest one's similarity).
 */
export interface SimilarPastSuccess {
  readonly rate: number | null;
  readonly executions: number;
  /** The similarity a past execution must reach to count (when the caller applied one). */
  readonly floor?: number | undefined;
  /** The closest past execution's similarity. */
  readonly best?: number | undefined;
}

export type Direction = "up" | "down" | "neutral";

/** One extractor's answer: the signals it saw, its recommendation (up / down / neutral) and why. */
export interface SignalReport<S extends string = string> {
  /** Signals that fired, strongest first. */
  readonly signals: readonly S[];
  /** Direction of the strongest signal; "neutral" when none fired. */
  readonly recommendation: Direction;
  readonly reasoning: string;
}
