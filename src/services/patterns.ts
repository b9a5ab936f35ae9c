/**
 * Capability trigger patterns (seed 004): checked at import (they must compile and pass the ReDoS guard)
 * and scored against a request's text.
 */
import { checkPattern, type PatternScore, patternConfidence } from "../../algorithms/search/pattern-confidence.ts";
import type { CapabilityRow } from "../store/reads.ts";

/** Returns a problem description, or undefined when the pattern is acceptable. */
export function validatePattern(pattern: string): string | undefined {
  const problem = checkPattern(pattern);
  return problem ? `pattern ${JSON.stringify(pattern)} rejected: ${problem}` : undefined;
}

const compiled = new WeakMap<CapabilityRow, RegExp[]>();

/** Pattern confidence of every capability that declares patterns or keywords. */
export function scorePatterns(caps: readonly CapabilityRow[], text: string): Map<string, PatternScore> {
  const out = new Map<string, PatternScore>();
  for (const c of caps) {
    if (c.patterns.length === 0 && c.keywords.length === 0) continue;
    let res = compiled.get(c);
    if (!res) {
      res = c.patterns.filter((p) => checkPattern(p) === undefined).map((p) => new RegExp(p, "i"));
      compiled.set(c, res);
    }
    out.set(c.id, patternConfidence(text, res, c.keywords));
  }
  return out;
}
