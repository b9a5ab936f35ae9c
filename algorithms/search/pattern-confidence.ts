/**
 * Pattern-triggered capability confidence (seed 004, "Confidence Scoring Algorithm" and "Keyword Boosting"):
 *
 *   base       = Σ_{matched patterns p} min(1, 0.3 + len(p)/100)  /  max(1, 0.3 · |patterns|)
 *   confidence = min(1, base + 0.1 · |keywords found|)             activation at confidence ≥ 0.4
 *
 * Matching is case-insensitive on the lowercased message, truncated to `maxInputLength` (2,000 chars) so
 * that a pathological input cannot run long; keywords match as whole words (or phrases). Patterns are
 * checked by `checkPattern` before use (ReDoS guard, see there).
 */

export const DEFAULTS = {
  activation: 0.4,
  keywordBonus: 0.1,
  maxInputLength: 2000,
  maxPatternLength: 200,
} as const;

export interface PatternScore {
  confidence: number;
  activated: boolean;
  matched: string[];
  keywords: string[];
  base: number;
}

/**
 * Static ReDoS guard: rejects a pattern that does not compile, is longer than 200 characters, uses a
 * backreference, or nests a quantifier inside a quantified group ("(a+)+", "(a*)*", "(\w+\s?)*") —
 * the shapes behind catastrophic backtracking. Returns the problem, or undefined when acceptable.
 */
export function checkPattern(pattern: string, maxLength: number = DEFAULTS.maxPatternLength): string | undefined {
  if (pattern.length === 0) return "pattern must not be empty";
  if (pattern.length > maxLength) return `pattern is longer than ${maxLength} characters`;
  try {
    new RegExp(pattern, "i");
  } catch (err) {
    return `invalid regular expression: ${(err as Error).message}`;
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "backreferences are not allowed (catastrophic backtracking risk)";
  // Find groups that contain a quantifier and are themselves quantified.
  const stack: { quantifiedInside: boolean; alternation: boolean }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "[") {
      // skip a character class
      i++;
      while (i < pattern.length && pattern[i] !== "]") {
        if (pattern[i] === "\\") i++;
        i++;
      }
      continue;
    }
    if (ch === "(") stack.push({ quantifiedInside: false, alternation: false });
    else if (ch === "|") {
      const top = stack[stack.length - 1];
      if (top) top.alternation = true;
    } else if (ch === ")") {
      const g = stack.pop();
      const next = pattern[i + 1];
      const quantified = next === "*" || next === "+" || (next === "{" && /^\{\d*,\d*\}|^\{\d+\}/.test(pattern.slice(i + 1)) && !/^\{1\}/.test(pattern.slice(i + 1)));
      if (g && quantified && g.quantifiedInside) return "nested quantifier (e.g. (a+)+) can backtrack catastrophically";
      if (g && quantified && g.alternation) return "quantified alternation (e.g. (a|ab)*) can backtrack catastrophically";
      const parent = stack[stack.length - 1];
      if (parent && (quantified || g?.quantifiedInside)) parent.quantifiedInside = true;
    } else if (ch === "*" || ch === "+" || ch === "{") {
      const top = stack[stack.length - 1];
      if (top) top.quantifiedInside = true;
    }
  }
  return undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Confidence of one capability's patterns and keywords for a message. */
export function patternConfidence(
  message: string,
  patterns: readonly RegExp[],
  keywords: readonly string[],
  options: { maxInputLength?: number } = {},
): PatternScore {
  const text = message.slice(0, options.maxInputLength ?? DEFAULTS.maxInputLength).toLowerCase();
  const matched: string[] = [];
  let total = 0;
  for (const p of patterns) {
    if (p.test(text)) {
      matched.push(p.source);
      total += Math.min(1, 0.3 + p.source.length / 100);
    }
  }
  const base = matched.length > 0 ? Math.min(1, total / Math.max(1, patterns.length * 0.3)) : 0;
  const found = keywords.filter((k) => new RegExp(`(^|[^a-z0-9])${escapeRegExp(k.toLowerCase())}($|[^a-z0-9])`).test(text));
  const confidence = Math.min(1, base + DEFAULTS.keywordBonus * found.length);
  return { confidence, activated: confidence >= DEFAULTS.activation, matched, keywords: found, base };
}
