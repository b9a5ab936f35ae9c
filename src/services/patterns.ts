/**
 * Capability trigger patterns (seed 004): checked at import (they must parse and pass the ReDoS guard of
 * algorithms/search/safe-regex.ts, whose matcher runs in time linear in the input) and scored against a
 * request's text with algorithms/search/pattern-triggers.ts.
 */
import { type CompiledTrigger, compileTriggers, scoreTrigger, type TriggerScore } from "../../algorithms/search/pattern-triggers.ts";
import { patternProblem } from "../../algorithms/search/safe-regex.ts";
import type { CapabilityRow } from "../store/reads.ts";

/** Returns a problem description, or undefined when the pattern is acceptable. */
export function validatePattern(pattern: string): string | undefined {
  const problem = patternProblem(pattern);
  return problem ? `pattern ${JSON.stringify(pattern)} rejected (${problem.code}): ${problem.message}` : undefined;
}

const compiled = new WeakMap<readonly CapabilityRow[], CompiledTrigger[]>();

/** Pattern confidence of every capability that declares patterns or keywords. */
export function scorePatterns(caps: readonly CapabilityRow[], text: string): Map<string, TriggerScore> {
  let triggers = compiled.get(caps);
  if (!triggers) {
    const specs = caps
      .filter((c) => c.patterns.length > 0 || c.keywords.length > 0)
      .map((c) => ({ id: c.id, patterns: c.patterns.filter((p) => patternProblem(p) === undefined), keywords: c.keywords, priority: c.priority }));
    triggers = compileTriggers(specs);
    compiled.set(caps, triggers);
  }
  const out = new Map<string, TriggerScore>();
  for (const t of triggers) out.set(t.id, scoreTrigger(t, text));
  return out;
}
