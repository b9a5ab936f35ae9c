/**
 * Edge quality: weight = typeWeight(type) × sourceMultiplier(source) (why: docs/decisions/edge-quality.md).
 *
 * Type weights: dependency 1.0, contains 0.8, provides 0.7, sequence 0.5.
 * Source multipliers: observed 1.0, inferred 0.7, template 0.5.
 * A learned observation starts `inferred` and becomes `observed` at 3 observations (of that type).
 *
 * An edge may carry several types at once (e.g. observed as `sequence` 5 times and declared as a
 * `dependency` template). Counts are kept per type, so a later observation never overwrites a type.
 * The edge's effective quality is the maximum over its types of typeWeight × multiplier(level), where
 * a type's level is the better of its declared level and its learned level; the edge's type and
 * source are that maximising type's (ties go to the stronger type). The same formula is a generated
 * column in migrations/2026-11-22-001-initial.ts; a test checks that both agree.
 */

export type EdgeType = "dependency" | "contains" | "provides" | "sequence";
export type EdgeSource = "observed" | "inferred" | "template";

export const EDGE_TYPES: readonly EdgeType[] = ["dependency", "contains", "provides", "sequence"];

export const DEFAULTS = {
  typeWeights: { dependency: 1.0, contains: 0.8, provides: 0.7, sequence: 0.5 } as Readonly<Record<EdgeType, number>>,
  sourceMultipliers: { observed: 1.0, inferred: 0.7, template: 0.5 } as Readonly<Record<EdgeSource, number>>,
  /** Observations of one type at which a learned edge is promoted from inferred to observed. */
  promotionThreshold: 3,
} as const;

/** 0 none, 1 template, 2 inferred, 3 observed. */
export type SourceLevel = 0 | 1 | 2 | 3;

export const LEVEL_OF: Readonly<Record<EdgeSource, SourceLevel>> = { template: 1, inferred: 2, observed: 3 };
const SOURCE_OF: readonly (EdgeSource | undefined)[] = [undefined, "template", "inferred", "observed"];

export interface TypeEvidence {
  /** Learned observations of this type. */
  readonly count: number;
  /** Declared level of this type (from imported edges / templates), 0 when none. */
  readonly declared: SourceLevel;
}

export type EdgeEvidence = Readonly<Record<EdgeType, TypeEvidence>>;

export interface EdgeQuality {
  readonly weight: number;
  readonly type: EdgeType | undefined;
  readonly source: EdgeSource | undefined;
}

export function learnedLevel(count: number, promotionThreshold: number = DEFAULTS.promotionThreshold): SourceLevel {
  if (count >= promotionThreshold) return 3;
  if (count >= 1) return 2;
  return 0;
}

/** Effective quality of an edge from its per-type evidence. */
export function edgeQuality(evidence: EdgeEvidence): EdgeQuality {
  let best = 0;
  let bestType: EdgeType | undefined;
  let bestSource: EdgeSource | undefined;
  for (const t of EDGE_TYPES) {
    const e = evidence[t];
    const level = Math.max(e.declared, learnedLevel(e.count)) as SourceLevel;
    const src = SOURCE_OF[level];
    if (src === undefined) continue;
    const q = DEFAULTS.typeWeights[t] * DEFAULTS.sourceMultipliers[src];
    if (q > best) {
      best = q;
      bestType = t;
      bestSource = src;
    }
  }
  return { weight: best, type: bestType, source: bestSource };
}

export const NO_EVIDENCE: EdgeEvidence = {
  dependency: { count: 0, declared: 0 },
  contains: { count: 0, declared: 0 },
  provides: { count: 0, declared: 0 },
  sequence: { count: 0, declared: 0 },
};
