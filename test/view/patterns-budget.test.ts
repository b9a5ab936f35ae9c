/**
 * One request's pattern work is bounded and does not hold the event loop (algorithms/search/pattern-triggers.ts): on a
 * catalog of literal-free patterns that never match a long intent, scorePatterns spends at most the match budget,
 * reports what it skipped, and lets other callbacks run while it works.
 */
import { describe, expect, it } from "vitest";
import { DEFAULTS, matchBudget } from "../../algorithms/search/pattern-triggers.ts";
import { compileSafeRegex, matchCost } from "../../algorithms/search/safe-regex.ts";
import type { CapabilityRow } from "../../src/store/reads.ts";
import { GraphSnapshot } from "../../src/view/graph-snapshot.ts";
import { scorePatterns } from "../../src/view/patterns.ts";

function pattern(i: number): string {
  let s = "";
  for (let k = 0; s.length < 185; k++) s += `\\w{1,${20 + ((i + k) % 10)}}\\s`;
  return `${s}\\d{${5 + (i % 3)}}`;
}

describe("scorePatterns under the match budget", () => {
  it("spends at most the budget, skips the rest (reported), and yields to the event loop", async () => {
    const caps = Array.from({ length: 10 }, (_, c) => ({
      id: `cap${c}`,
      name: `cap${c}`,
      description: "",
      patterns: Array.from({ length: 50 }, (_, k) => pattern(c * 50 + k)),
      keywords: [],
      priority: 0,
    })) as unknown as CapabilityRow[];
    const intent = Array.from({ length: 1000 }, (_, i) => `w${i % 97}`).join(" ");
    const s = new GraphSnapshot({ project: "p", version: 1, tools: [], edges: [], stats: [], capabilities: caps });
    await scorePatterns(s, "warm", matchBudget()); // compile once
    let ticks = 0;
    let on = true;
    const tick = () => {
      ticks++;
      if (on) setImmediate(tick);
    };
    setImmediate(tick);
    const budget = matchBudget();
    const { scores, work } = await scorePatterns(s, intent, budget);
    on = false;
    // Each pattern costs (L + 1) × program size on the first 2,000 characters; none matches, none is prefiltered.
    const costs = caps.flatMap((c) => c.patterns.map((p) => matchCost(compileSafeRegex(p), DEFAULTS.maxInputLength)));
    let left = DEFAULTS.maxMatchWork;
    let evaluated = 0;
    for (const c of costs) {
      if (c <= left) {
        left -= c;
        evaluated++;
      }
    }
    expect(work).toEqual({ patterns: 500, prefiltered: 0, evaluated, skipped: 500 - evaluated });
    expect(budget.remaining).toBe(left);
    expect(work.skipped).toBeGreaterThan(0);
    expect([...scores.values()].every((s) => s.matchedPatterns.length === 0)).toBe(true);
    // Other callbacks ran while it worked (it yields every few ms; the work takes far longer than one slice).
    expect(ticks).toBeGreaterThan(0);
  }, 120_000);
});
