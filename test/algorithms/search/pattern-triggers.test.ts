import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileTriggers,
  keywordFound,
  matchBudget,
  patternWeight,
  scoreTrigger,
  selectTrigger,
} from "../../../algorithms/search/pattern-triggers.ts";

const S = String.raw;
// The three example frameworks of BioMapper's "Framework Triggering Mechanics" documentation
// (docs/decisions/capability-scoring.md), patterns and keywords verbatim; priority order surgical > interstitial >
// circuitous.
const SEED = [
  {
    id: "surgical",
    priority: 3,
    keywords: ["fix", "internal", "logic", "counting", "statistics"],
    patterns: [
      S`surgical`,
      S`fix.*(counting|calculation|logic|statistics).*in.*(action|visualization)`,
      S`(update|refine|correct|adjust).*without.*(breaking|affecting|changing).*pipeline`,
      S`(internal|surgical|careful).*change`,
      S`preserve.*structure.*while.*(fixing|updating|correcting)`,
      S`entity.*counting.*(wrong|incorrect|inflated)`,
      S`statistics.*(show|display|count).*(wrong|incorrect|inflated|expanded)`,
      S`output.*correct.*but.*numbers.*wrong`,
      S`counting.*expanded.*records.*instead.*unique`,
      S`should.*show.*unique.*(entities|proteins|metabolites)`,
      S`\d+.*but.*should.*(be|show).*\d+`,
    ],
  },
  {
    id: "circuitous",
    priority: 1,
    keywords: ["flow", "pipeline", "parameter", "yaml", "strategy"],
    patterns: [
      S`circuitous`,
      S`parameters?.*not.*(flow|pass|work).*between`,
      S`(strategy|pipeline).*orchestration.*(broken|failing|issue)`,
      S`(step|action).*sequence.*(wrong|incorrect|broken)`,
      S`parameter.*substitution.*(failing|broken|not.*work)`,
      S`context.*(not.*pass|broken|missing).*between`,
      S`\$\{.*\}.*not.*(resolv|work|substitut)`,
      S`data.*not.*(flow|pass).*from.*to`,
      S`output.*not.*(reach|available).*next.*step`,
      S`(handoff|transfer).*between.*steps.*(fail|broken)`,
      S`yaml.*strategy.*(broken|issue|problem)`,
    ],
  },
  {
    id: "interstitial",
    priority: 2,
    keywords: ["interface", "compatibility", "backward", "contract", "api"],
    patterns: [
      S`interstitial`,
      S`(handoff|interface).*between.*actions.*(failing|broken)`,
      S`(contract|compatibility).*(issue|problem|broken)`,
      S`action.*boundary.*(change|modify|update)`,
      S`backward.*compatibility.*(maintain|preserve|break)`,
      S`parameter.*interface.*(evolve|change|update)`,
      S`output.*structure.*(modify|change).*compatibility`,
      S`version.*compatibility.*(issue|problem)`,
      S`api.*(evolution|change|update).*break`,
      S`(new|added).*parameter.*broke.*existing`,
      S`interface.*contract.*(violat|broken)`,
    ],
  },
];
const triggers = compileTriggers(SEED);
const score = (message: string, id: string) => selectTrigger(triggers, message).scores.find((s) => s.id === id)!;

describe("formula pieces", () => {
  it("pattern weight = min(1, 0.3 + len/100)", () => {
    expect(patternWeight("surgical")).toBeCloseTo(0.38, 12); // 8 characters
    expect(patternWeight(S`\d+.*but.*should.*(be|show).*\d+`)).toBeCloseTo(0.62, 12); // 32 characters
    expect(patternWeight("x".repeat(90))).toBe(1); // 0.3 + 0.9 capped
  });

  it("denominator = max(1, 0.3·|patterns|): 3.3 for the documentation's 11 patterns, 1 for ≤ 3", () => {
    expect(triggers[0]!.denominator).toBeCloseTo(3.3, 12);
    expect(compileTriggers([{ id: "x", patterns: ["a", "b"] }])[0]!.denominator).toBe(1);
  });

  it("keywords match at a word start, once each", () => {
    expect(keywordFound(`\${parameters.input_file}`, "parameter")).toBe(true);
    expect(keywordFound("a prefix", "fix")).toBe(false);
    expect(keywordFound("fix, then fix", "fix")).toBe(true);
    const [t] = compileTriggers([{ id: "k", keywords: ["fix", "FIX", "logic"] }]);
    // duplicates after lowercasing count once: 0.1·2 = 0.2
    expect(scoreTrigger(t!, "fix fix logic").confidence).toBeCloseTo(0.2, 12);
  });

  it("a single short pattern of one: 0.38, plus one keyword 0.48 (activated)", () => {
    const [t] = compileTriggers([{ id: "s", patterns: ["surgical"], keywords: ["fix"] }]);
    expect(scoreTrigger(t!, "surgical mode").confidence).toBeCloseTo(0.38, 12);
    expect(scoreTrigger(t!, "surgical mode").activated).toBe(false);
    expect(scoreTrigger(t!, "fix it in surgical mode").confidence).toBeCloseTo(0.48, 12);
    expect(scoreTrigger(t!, "fix it in surgical mode").activated).toBe(true);
  });

  it("caps at 1", () => {
    const [t] = compileTriggers([{ id: "s", patterns: ["a".repeat(80)], keywords: ["aa"] }]);
    // 1/1 + 0.1 → 1
    expect(scoreTrigger(t!, "a".repeat(80)).confidence).toBe(1);
  });
});

describe("the trigger documentation's worked examples (formula applied to its own patterns)", () => {
  it("'Fix the internal counting logic': the documentation says 0.6 + 4 keywords → 1.0; the formula gives 0.4", () => {
    // Discrepancy: no surgical pattern matches ("fix.*(counting|…).*in.*(action|visualization)" needs "in"
    // followed by action/visualization; "(internal|…).*change" needs "change"), so the pattern part is 0,
    // not the documentation's 0.6. Keywords fix, internal, counting, logic: 4 × 0.1 = 0.4 → activated (≥ 0.4).
    const s = score("Fix the internal counting logic", "surgical");
    expect(s.patternPart).toBe(0);
    expect(s.matchedKeywords).toEqual(["fix", "internal", "logic", "counting"]);
    expect(s.confidence).toBeCloseTo(0.4, 12);
    expect(s.activated).toBe(true);
    expect(selectTrigger(triggers, "Fix the internal counting logic").winner).toBe("surgical");
  });

  it("Example 1 (visualization 3675 vs 1172): documented 0.85; the formula gives 0.1879, not activated", () => {
    // Discrepancy: of the three patterns the documentation ticks, only "\d+.*but.*should.*(be|show).*\d+" (32 chars) matches:
    // "statistics.*…" needs the word statistics (absent); "should.*show.*unique.*(entities|proteins|…)" needs
    // one of those words after "unique" (the message has "ones"). The keyword "statistics" is not in the message.
    // 0.62 / 3.3 = 0.1878788
    const s = score("The visualization shows 3675 proteins but should show 1172 unique ones", "surgical");
    expect(s.matchedPatterns).toEqual([S`\d+.*but.*should.*(be|show).*\d+`]);
    expect(s.matchedKeywords).toEqual([]);
    expect(s.confidence).toBeCloseTo(0.1878788, 6);
    expect(
      selectTrigger(triggers, "The visualization shows 3675 proteins but should show 1172 unique ones").winner,
    ).toBeNull();
  });

  it("Example 2 (parameters.input_file placeholder): documented 0.85; the formula gives 0.2, not activated", () => {
    // Discrepancy: "\$\{.*\}.*not.*(…)" needs "not" (the message has "isn't"); "parameter.*substitution.*…" needs
    // "substitution" (the message has "substituted"). Keywords "parameter" (word start of "parameters") and
    // "pipeline": 2 × 0.1 = 0.2.
    const m = `The \${parameters.input_file} isn't being substituted in the pipeline`;
    const s = score(m, "circuitous");
    expect(s.matchedPatterns).toEqual([]);
    expect([...s.matchedKeywords].sort()).toEqual(["parameter", "pipeline"]);
    expect(s.confidence).toBeCloseTo(0.2, 12);
    expect(selectTrigger(triggers, m)).toMatchObject({ winner: null, reason: "below-threshold" });
  });

  it("Example 3 ('Something is wrong with the action'): 0 everywhere, as the documentation says", () => {
    const d = selectTrigger(triggers, "Something is wrong with the action");
    expect(d.scores.map((s) => s.confidence)).toEqual([0, 0, 0]);
    expect(d.winner).toBeNull();
  });

  it("Example 4 ('Fix the internal parameter flow'): documented 0.7 vs 0.65; the formula gives 0.2 vs 0.2, none activated", () => {
    // No pattern matches (the documentation's "fix.*(counting|calculation|logic)" and "parameter.*flow" are not the declared
    // patterns). Surgical keywords fix + internal = 0.2; circuitous parameter + flow = 0.2.
    const d = selectTrigger(triggers, "Fix the internal parameter flow");
    expect(score("Fix the internal parameter flow", "surgical").confidence).toBeCloseTo(0.2, 12);
    expect(score("Fix the internal parameter flow", "circuitous").confidence).toBeCloseTo(0.2, 12);
    expect(d.winner).toBeNull();
  });

  it("ambiguity example ('The action parameter handling is broken internally'): documented 0.65 vs 0.60; formula 0.1 vs 0.1", () => {
    // "internal" is found at the start of "internally"; "parameter" for circuitous. No pattern matches.
    expect(score("The action parameter handling is broken internally", "surgical").confidence).toBeCloseTo(0.1, 12);
    expect(score("The action parameter handling is broken internally", "circuitous").confidence).toBeCloseTo(0.1, 12);
  });

  it.each([
    // [message, capability, confidence, arithmetic]
    ["The statistics show wrong counts", "surgical", 0.99 / 3.3 + 0.1], // 69-char pattern 0.99/3.3 = 0.3 + "statistics" 0.1 = 0.4
    ["Fix the calculation logic in the action", "surgical", 1 / 3.3 + 0.2], // 72-char pattern → 1/3.3 = 0.30303 + fix, logic = 0.50303
    ["Parameters not flowing between steps", "circuitous", 0.73 / 3.3 + 0.2], // 43 chars → 0.22121 + parameter, flow = 0.42121
    ["Backward compatibility broken", "interstitial", 0.78 / 3.3 + 0.2], // 48 chars → 0.23636 + backward, compatibility = 0.43636
  ])("documented 'example match' %j activates %s at %f", (message, id, confidence) => {
    const d = selectTrigger(triggers, message);
    expect(d.winner).toBe(id);
    expect(score(message, id).confidence).toBeCloseTo(confidence, 12);
  });

  it("the bare framework name does not 'guarantee activation' (the documentation's claim): 0.38/3.3 + fix = 0.2152", () => {
    expect(score("Use surgical mode to fix this", "surgical").confidence).toBeCloseTo(0.38 / 3.3 + 0.1, 12);
    expect(selectTrigger(triggers, "Use surgical mode to fix this").winner).toBeNull();
  });
});

describe("ambiguity resolution", () => {
  const kw = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const msg = [...kw(6, "a"), ...kw(6, "b")].join(" ");

  it("within 0.15 the higher priority wins even with lower confidence", () => {
    const t = compileTriggers([
      { id: "low-conf-high-prio", keywords: kw(5, "a"), priority: 2 }, // 0.5
      { id: "high-conf-low-prio", keywords: kw(6, "b"), priority: 1 }, // 0.6
    ]);
    expect(selectTrigger(t, msg)).toMatchObject({ winner: "low-conf-high-prio", reason: "priority" });
  });

  it("outside the band the higher confidence wins", () => {
    const t = compileTriggers([
      { id: "a", keywords: kw(4, "a"), priority: 9 }, // 0.4
      { id: "b", keywords: kw(6, "b"), priority: 0 }, // 0.6
    ]);
    expect(selectTrigger(t, msg)).toMatchObject({ winner: "b", reason: "clear-lead" });
  });

  it("equal priority: higher confidence, then smaller id", () => {
    const t = compileTriggers([
      { id: "b", keywords: kw(5, "a") },
      { id: "a", keywords: kw(6, "b") },
    ]);
    expect(selectTrigger(t, msg)).toMatchObject({ winner: "a", reason: "confidence" });
    const tie = compileTriggers([
      { id: "z", keywords: kw(5, "a") },
      { id: "y", keywords: kw(5, "b") },
    ]);
    expect(selectTrigger(tie, msg)).toMatchObject({ winner: "y", reason: "id" });
  });

  it("no capabilities → null with a reason", () => {
    expect(selectTrigger([], "x")).toMatchObject({ winner: null, reason: "no-capabilities" });
  });
});

describe("guards", () => {
  it("an unsafe pattern is rejected at compile time naming the capability and the pattern", () => {
    expect(() => compileTriggers([{ id: "evil", patterns: ["ok", "(a+)+$"] }])).toThrow(
      expect.objectContaining({ code: "nested-quantifier", message: expect.stringMatching(/"evil".*\(a\+\)\+\$/) }),
    );
  });

  it("duplicate capability ids are rejected", () => {
    expect(() => compileTriggers([{ id: "a" }, { id: "a" }])).toThrow(
      expect.objectContaining({ code: "duplicate-id" }),
    );
  });

  it("matching sees only the first maxInputLength characters", () => {
    const [t] = compileTriggers([{ id: "t", patterns: ["needle"], keywords: ["needle"] }]);
    const late = `${"x ".repeat(1000)}needle`; // needle starts at 2000
    expect(scoreTrigger(t!, late).confidence).toBe(0);
    expect(scoreTrigger(t!, late, { maxInputLength: 3000 }).confidence).toBeGreaterThan(0);
  });
});

describe("properties", () => {
  it("confidence ∈ [0, 1], deterministic", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (m) => {
        const a = selectTrigger(triggers, m);
        for (const s of a.scores) {
          expect(s.confidence).toBeGreaterThanOrEqual(0);
          expect(s.confidence).toBeLessThanOrEqual(1);
        }
        expect(selectTrigger(triggers, m)).toEqual(a);
      }),
      { numRuns: 100 },
    );
  });
});

describe("match budget", () => {
  it("charges (L + 1) × program size per NFA run, skips what does not fit, and never runs a prefiltered pattern", () => {
    const [t] = compileTriggers([{ id: "c", patterns: ["(deploy|release)\\s+it", "\\w+\\s\\w+", "zzz"] }]);
    const text = "please deploy it now"; // 20 characters
    const p0 = t!.patterns[0]!.regex.program.length;
    const p1 = t!.patterns[1]!.regex.program.length;
    // Enough for both NFA runs: both match, "zzz" is prefiltered.
    const full = matchBudget(21 * (p0 + p1));
    const a = scoreTrigger(t!, text, {}, full);
    expect(a.matchedPatterns).toEqual(["(deploy|release)\\s+it", "\\w+\\s\\w+"]);
    expect(full).toEqual({ remaining: 0, prefiltered: 1, evaluated: 2, skipped: 0 });
    // One step short: the second run does not fit and counts as not matched.
    const short = matchBudget(21 * (p0 + p1) - 1);
    const b = scoreTrigger(t!, text, {}, short);
    expect(b.matchedPatterns).toEqual(["(deploy|release)\\s+it"]);
    expect(short).toEqual({ remaining: 21 * p1 - 1, prefiltered: 1, evaluated: 1, skipped: 1 });
    // Without a budget: the same answer as with an ample one.
    expect(scoreTrigger(t!, text).matchedPatterns).toEqual(a.matchedPatterns);
  });
});
