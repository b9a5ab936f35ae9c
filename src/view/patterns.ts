/**
 * Capability trigger patterns (docs/decisions/capability-scoring.md): checked at import (they must parse and pass the
 * ReDoS guard of algorithms/search/safe-regex.ts, whose matcher runs in time linear in the input) and scored against a
 * request's text with algorithms/search/pattern-triggers.ts.
 */
import {
  type CompiledTrigger,
  compileTriggers,
  type MatchBudget,
  matchBudget,
  scoreTrigger,
  type TriggerScore,
} from "../../algorithms/search/pattern-triggers.ts";
import { patternProblem } from "../../algorithms/search/safe-regex.ts";
import type { CapabilityRow } from "../store/reads.ts";
import { derivedKey } from "./derived.ts";
import type { GraphSnapshot } from "./graph-snapshot.ts";

/** Returns a problem description, or undefined when the pattern is acceptable. */
export function validatePattern(pattern: string): string | undefined {
  const problem = patternProblem(pattern);
  return problem ? `pattern ${JSON.stringify(pattern)} rejected (${problem.code}): ${problem.message}` : undefined;
}

/** The compiled triggers of the catalog's capabilities: derived state of the snapshot's catalog. */
const TRIGGERS = derivedKey<{ compiled: Promise<CompiledTrigger[]> | undefined }>("compiled triggers", "catalog");

/** How long pattern work runs before it lets other requests in (ms). */
const SLICE_MS = 5;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Compiles the triggers of a snapshot's capabilities once, yielding to the event loop between slices. */
function triggersOf(s: GraphSnapshot): Promise<CompiledTrigger[]> {
  const slot = s.derived(TRIGGERS, () => ({ compiled: undefined }));
  let p = slot.compiled;
  if (!p) {
    p = compileAll(s.capabilities);
    slot.compiled = p;
    p.catch(() => {
      if (slot.compiled === p) slot.compiled = undefined;
    });
  }
  return p;
}

async function compileAll(caps: readonly CapabilityRow[]): Promise<CompiledTrigger[]> {
  const out: CompiledTrigger[] = [];
  let t = performance.now();
  for (const c of caps) {
    if (c.patterns.length === 0 && c.keywords.length === 0) continue;
    // Stored patterns passed the guard at import; the check stays as a safety net, one pattern at a time.
    const ok: string[] = [];
    for (const x of c.patterns) {
      if (patternProblem(x) === undefined) ok.push(x);
      if (performance.now() - t > SLICE_MS) {
        await yieldToLoop();
        t = performance.now();
      }
    }
    out.push(...compileTriggers([{ id: c.id, patterns: ok, keywords: c.keywords, priority: c.priority }]));
    if (performance.now() - t > SLICE_MS) {
      await yieldToLoop();
      t = performance.now();
    }
  }
  return out;
}

export interface PatternWork {
  patterns: number;
  prefiltered: number;
  evaluated: number;
  skipped: number;
}

/**
 * Pattern confidence of every capability that declares patterns or keywords, within one request's match
 * budget (algorithms/search/pattern-triggers.ts), yielding to the event loop every few ms so that a long
 * match never stalls other requests.
 */
export async function scorePatterns(
  s: GraphSnapshot,
  text: string,
  budget: MatchBudget = matchBudget(),
): Promise<{ scores: Map<string, TriggerScore>; work: PatternWork }> {
  const triggers = await triggersOf(s);
  const scores = new Map<string, TriggerScore>();
  let patterns = 0;
  let t = performance.now();
  for (const tr of triggers) {
    scores.set(tr.id, scoreTrigger(tr, text, {}, budget));
    patterns += tr.patterns.length;
    if (performance.now() - t > SLICE_MS) {
      await yieldToLoop();
      t = performance.now();
    }
  }
  return {
    scores,
    work: { patterns, prefiltered: budget.prefiltered, evaluated: budget.evaluated, skipped: budget.skipped },
  };
}
