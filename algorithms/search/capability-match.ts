/**
 * Capability match: a strict multiplicative score.
 *
 *   score       = clamp(semantic × reliability, 0, 1)
 *   reliability = 0.1  if successRate < 0.5     (disqualified: a capability that fails is not proposed)
 *               = 1.2  if successRate > 0.9     (bonus)
 *               = 1.0  otherwise, and with no history (successRate undefined or 0 executions)
 *
 * semantic is the fused semantic score (or a raw cosine; negative values count as 0). The thresholds are
 * strict: exactly 0.5 and exactly 0.9 give 1.0. Clamping at 1 makes every semantic ≥ 1/1.2 ≈ 0.833 with the
 * bonus score 1.0; ranking breaks such ties by the unclamped product, then id.
 *
 * Source: docs/decisions/capability-scoring.md (where 0.5 / 0.1 / 0.9 / 1.2 come from, and that they are
 * not re-tuned).
 */
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  lowSuccess: 0.5,
  lowFactor: 0.1,
  highSuccess: 0.9,
  highFactor: 1.2,
} as const;

export interface CapabilityMatchOptions {
  /** Success rate strictly below this is penalised. Default 0.5. */
  readonly lowSuccess?: number;
  /** Penalty factor. Default 0.1. */
  readonly lowFactor?: number;
  /** Success rate strictly above this is boosted. Default 0.9. */
  readonly highSuccess?: number;
  /** Bonus factor. Default 1.2. */
  readonly highFactor?: number;
}

export interface CapabilityCandidate {
  readonly id: number;
  readonly semantic: number;
  /** Historical success rate in [0, 1]; undefined = no history. */
  readonly successRate?: number;
  /** Executions behind successRate; 0 = no history (successRate ignored). */
  readonly executions?: number;
}

export interface CapabilityMatch {
  readonly id: number;
  /** In [0, 1]. */
  readonly score: number;
  readonly reliability: number;
  /** semantic⁺ × reliability before clamping. */
  readonly raw: number;
}

const MODULE = "capability-match";

/** The reliability factor for a success rate (undefined = no history → 1.0). */
export function reliabilityFactor(successRate: number | undefined, options: CapabilityMatchOptions = {}): number {
  if (successRate === undefined) return 1;
  if (!(successRate >= 0 && successRate <= 1)) {
    throw new SearchError(MODULE, "bad-success-rate", `successRate must be in [0, 1], got ${successRate}`);
  }
  if (successRate < (options.lowSuccess ?? DEFAULTS.lowSuccess)) return options.lowFactor ?? DEFAULTS.lowFactor;
  if (successRate > (options.highSuccess ?? DEFAULTS.highSuccess)) return options.highFactor ?? DEFAULTS.highFactor;
  return 1;
}

/** Scores one capability. */
export function capabilityMatch(c: CapabilityCandidate, options: CapabilityMatchOptions = {}): CapabilityMatch {
  if (!Number.isFinite(c.semantic))
    throw new SearchError(MODULE, "bad-semantic", `semantic of capability ${c.id} is ${c.semantic}`);
  if (c.executions !== undefined && !(c.executions >= 0)) {
    throw new SearchError(
      MODULE,
      "bad-executions",
      `executions of capability ${c.id} must be ≥ 0, got ${c.executions}`,
    );
  }
  const rate = c.executions === 0 ? undefined : c.successRate;
  const reliability = reliabilityFactor(rate, options);
  const raw = Math.max(0, c.semantic) * reliability;
  return { id: c.id, score: Math.min(1, raw), reliability, raw };
}

/** Scores and ranks: score desc, then raw desc, then id asc. */
export function rankCapabilities(
  candidates: readonly CapabilityCandidate[],
  options: CapabilityMatchOptions = {},
): CapabilityMatch[] {
  return candidates
    .map((c) => capabilityMatch(c, options))
    .sort((a, b) => (a.score !== b.score ? b.score - a.score : a.raw !== b.raw ? b.raw - a.raw : a.id - b.id));
}
