/**
 * Pattern triggers: capabilities may declare regex `patterns` and `keywords`; a message activates the
 * capability whose confidence is highest, above a threshold, with ties resolved by declared priority.
 *
 *   patternPart = Σ_{matched patterns p} min(1, 0.3 + len(p) / 100)  /  max(1, 0.3 · |patterns|)
 *   confidence  = min(1, patternPart + 0.1 · |keywords found|)
 *   activated   ⇔ confidence ≥ 0.4           (compared with a 1e-9 tolerance: 4 × 0.1 must reach 0.4)
 *
 * len(p) is the declared pattern source length in UTF-16 units. A keyword is "found" when it occurs in the
 * lowercased message at the start of a word (preceded by the start or a non-letter/digit), so "parameter"
 * is found in "${parameters…}" but "fix" is not found in "prefix"; each keyword counts once.
 * Ambiguity: among activated capabilities, those within 0.15 of the best confidence form the tie set; the
 * winner is the highest `priority` (default 0) in it, then the higher confidence, then the smaller id
 * (lexicographic) — deterministic. Matching runs on the message truncated to `maxInputLength` (2,000)
 * characters, with the linear-time matcher of `safe-regex.ts`; unsafe or invalid patterns are rejected by
 * `compileTriggers` (at import time) with an error naming the capability and the pattern.
 *
 * Work bound (bench/pattern-worst-case.ts): the matcher is linear, but nothing bounded the total over all
 * patterns. Each pattern is first checked against its required literals (`mayMatch`: free of NFA work); a
 * pattern that passes costs (L + 1) × program size NFA steps, charged to a per-request `MatchBudget`
 * (default `maxMatchWork` = 2·10⁷
 * steps, ≈ 0.1–0.2 s on one loaded core). A pattern whose cost exceeds what is left is not run and counts as
 * not matched; the budget reports how many were skipped. Patterns are visited in declaration order, so the
 * outcome is deterministic for a given catalog and message.
 *
 * Source: BioMapper's "Framework Triggering Mechanics" documentation (base 0.3, length/100 specificity,
 * normalisation by 0.3·|patterns|, +0.1 per keyword, 0.4 activation, 15 % ambiguity band with a priority
 * order; docs/decisions/capability-scoring.md). That document's worked examples do not follow from its own
 * formula (see the tests); we implement the formula.
 */
import {
  compileSafeRegex,
  matchCost,
  mayMatch,
  type SafeRegex,
  type SafeRegexOptions,
  safeTest,
} from "./safe-regex.ts";
import { SearchError } from "./search-error.ts";

export const DEFAULTS = {
  base: 0.3,
  lengthDivisor: 100,
  normaliser: 0.3,
  keywordBonus: 0.1,
  activation: 0.4,
  ambiguityBand: 0.15,
  maxInputLength: 2000,
  priority: 0,
  /** NFA steps (Σ (L + 1) × program size) one request may spend on patterns. */
  maxMatchWork: 20_000_000,
} as const;

/** What one request may still spend on pattern matching, and what it did (mutated by scoreTrigger). */
export interface MatchBudget {
  /** NFA steps left. */
  remaining: number;
  /** Patterns rejected by their required literals (no NFA run). */
  prefiltered: number;
  /** Patterns run on the NFA. */
  evaluated: number;
  /** Patterns not run because the budget was spent (counted as not matched). */
  skipped: number;
}

export function matchBudget(steps: number = DEFAULTS.maxMatchWork): MatchBudget {
  return { remaining: steps, prefiltered: 0, evaluated: 0, skipped: 0 };
}

const EPS = 1e-9;

export interface TriggerSpec {
  /** Capability id. */
  readonly id: string;
  /** Regex sources (JavaScript syntax, matched case-insensitively). */
  readonly patterns?: readonly string[];
  /** Words or phrases, matched at a word start, case-insensitively. */
  readonly keywords?: readonly string[];
  /** Higher wins inside the ambiguity band. Default 0. */
  readonly priority?: number;
}

export interface CompiledTrigger {
  readonly id: string;
  readonly patterns: readonly { readonly source: string; readonly regex: SafeRegex; readonly weight: number }[];
  readonly keywords: readonly string[];
  readonly priority: number;
  /** max(1, 0.3 · |patterns|). */
  readonly denominator: number;
}

export interface TriggerOptions {
  /** Confidence needed to activate. Default 0.4. */
  readonly activation?: number;
  /** Capabilities within this of the best are resolved by priority. Default 0.15. */
  readonly ambiguityBand?: number;
  /** Message characters considered. Default 2000. */
  readonly maxInputLength?: number;
}

export interface TriggerScore {
  readonly id: string;
  /** In [0, 1]. */
  readonly confidence: number;
  /** The normalised pattern part (before keywords and the cap). */
  readonly patternPart: number;
  readonly matchedPatterns: readonly string[];
  readonly matchedKeywords: readonly string[];
  readonly activated: boolean;
  readonly priority: number;
}

export interface TriggerDecision {
  /** The winning capability id, or null with a reason. */
  readonly winner: string | null;
  readonly reason: "single" | "clear-lead" | "priority" | "confidence" | "id" | "below-threshold" | "no-capabilities";
  /** Capabilities in the ambiguity band (winner included), best first. */
  readonly contenders: readonly TriggerScore[];
  /** All scores, confidence descending then id. */
  readonly scores: readonly TriggerScore[];
}

/** Weight of one matched pattern: min(1, 0.3 + len/100). */
export function patternWeight(source: string): number {
  return Math.min(1, DEFAULTS.base + source.length / DEFAULTS.lengthDivisor);
}

/** Validates and compiles trigger declarations; throws `SearchError` naming the capability and pattern. */
export function compileTriggers(specs: readonly TriggerSpec[], options: SafeRegexOptions = {}): CompiledTrigger[] {
  const seen = new Set<string>();
  return specs.map((spec) => {
    if (typeof spec.id !== "string" || spec.id.length === 0)
      throw new SearchError(
        "pattern-triggers",
        "bad-id",
        `capability id must be a non-empty string, got ${JSON.stringify(spec.id)}`,
      );
    if (seen.has(spec.id))
      throw new SearchError("pattern-triggers", "duplicate-id", `capability ${JSON.stringify(spec.id)} declared twice`);
    seen.add(spec.id);
    const priority = spec.priority ?? DEFAULTS.priority;
    if (!Number.isFinite(priority))
      throw new SearchError(
        "pattern-triggers",
        "bad-priority",
        `capability ${spec.id}: priority ${priority} is not finite`,
      );
    const patterns = (spec.patterns ?? []).map((source) => {
      try {
        return { source, regex: compileSafeRegex(source, options), weight: patternWeight(source) };
      } catch (e) {
        if (e instanceof SearchError) {
          throw new SearchError("pattern-triggers", e.code, `capability ${JSON.stringify(spec.id)}: ${e.message}`);
        }
        throw e;
      }
    });
    const keywords = [...new Set((spec.keywords ?? []).map((k) => k.trim().toLowerCase()).filter((k) => k.length > 0))];
    return {
      id: spec.id,
      patterns,
      keywords,
      priority,
      denominator: Math.max(1, DEFAULTS.normaliser * patterns.length),
    };
  });
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** True when `keyword` (lowercase) occurs in `text` (lowercase) at the start of a word. */
export function keywordFound(text: string, keyword: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf(keyword, from);
    if (i < 0) return false;
    if (i === 0 || !WORD_CHAR.test(text[i - 1]!)) return true;
    from = i + 1;
  }
}

/** Confidence of one capability for a message (see the header). */
export function scoreTrigger(
  trigger: CompiledTrigger,
  message: string,
  options: TriggerOptions = {},
  budget?: MatchBudget,
): TriggerScore {
  const maxLen = options.maxInputLength ?? DEFAULTS.maxInputLength;
  const activation = options.activation ?? DEFAULTS.activation;
  const text = message.slice(0, maxLen).toLowerCase();
  const matchedPatterns: string[] = [];
  let sum = 0;
  for (const p of trigger.patterns) {
    if (budget) {
      if (!mayMatch(p.regex, text)) {
        budget.prefiltered++;
        continue;
      }
      const cost = matchCost(p.regex, text.length);
      if (cost > budget.remaining) {
        budget.skipped++;
        continue;
      }
      budget.remaining -= cost;
      budget.evaluated++;
    }
    if (safeTest(p.regex, text)) {
      matchedPatterns.push(p.source);
      sum += p.weight;
    }
  }
  const matchedKeywords = trigger.keywords.filter((k) => keywordFound(text, k));
  const patternPart = sum / trigger.denominator;
  const confidence = Math.min(1, patternPart + DEFAULTS.keywordBonus * matchedKeywords.length);
  return {
    id: trigger.id,
    confidence,
    patternPart,
    matchedPatterns,
    matchedKeywords,
    activated: confidence >= activation - EPS,
    priority: trigger.priority,
  };
}

/** Scores every capability and picks the winner (see the header for the tie rules). */
export function selectTrigger(
  triggers: readonly CompiledTrigger[],
  message: string,
  options: TriggerOptions = {},
): TriggerDecision {
  return pickTrigger(
    triggers.map((t) => scoreTrigger(t, message, options)),
    options,
  );
}

/** Picks the winner among already computed scores (the same rules as selectTrigger). */
export function pickTrigger(
  triggerScores: readonly TriggerScore[],
  options: Pick<TriggerOptions, "ambiguityBand"> = {},
): TriggerDecision {
  const band = options.ambiguityBand ?? DEFAULTS.ambiguityBand;
  const scores = [...triggerScores].sort((a, b) =>
    a.confidence !== b.confidence ? b.confidence - a.confidence : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
  if (scores.length === 0) return { winner: null, reason: "no-capabilities", contenders: [], scores };
  const active = scores.filter((s) => s.activated);
  if (active.length === 0) return { winner: null, reason: "below-threshold", contenders: [], scores };
  const best = active[0]!.confidence;
  const contenders = active.filter((s) => best - s.confidence <= band + EPS);
  if (contenders.length === 1) {
    return { winner: contenders[0]!.id, reason: active.length === 1 ? "single" : "clear-lead", contenders, scores };
  }
  const ranked = [...contenders].sort((a, b) => {
    if (a.priority !== b.priority) return b.priority - a.priority;
    if (a.confidence !== b.confidence) return b.confidence - a.confidence;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  const w = ranked[0]!;
  const r = ranked[1]!;
  const reason = w.priority !== r.priority ? "priority" : w.confidence !== r.confidence ? "confidence" : "id";
  return { winner: w.id, reason, contenders: ranked, scores };
}
