/**
 * explainTerms gives the explanation explainSuggestion has always given (its numbers through formatFixed,
 * test/formats/fixed.test.ts).
 */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { explainSuggestion, explainTerms } from "../../src/jobs/next-scoring.ts";

describe("explainTerms", () => {
  it("gives explainSuggestion's text", () => {
    const term = (value: number, weight: number) => ({ value, weight, contribution: value * weight });
    const rng = mulberry32(7);
    for (let i = 0; i < 200; i++) {
      const terms = {
        cooc: term(i % 5 === 0 ? 0 : rng(), 0.6),
        community: term(i % 2, 0.3),
        recency: term(i % 3 === 0 ? 1 : 0, 0.1),
        pagerank: term(rng(), 0.1),
      };
      const score =
        0.6 * terms.cooc.value + 0.3 * terms.community.value + 0.1 * terms.recency.value + 0.1 * terms.pagerank.value;
      const sug = {
        tool: "git.push",
        name: "push",
        score,
        confidence: Math.min(1, score / 1.1),
        terms,
        coocFrom: i % 4 === 0 ? null : "git.commit",
      };
      for (const last of ["git.commit", undefined]) {
        const t = sug.terms;
        const parts = [
          `cooc ${t.cooc.value.toFixed(2)}${sug.coocFrom ? ` (after ${sug.coocFrom})` : ""}`,
          `community ${t.community.value ? `shared with ${last ?? "context"}` : "different"}`,
          `recency ${t.recency.value.toFixed(2)}`,
          `pagerank ${t.pagerank.value.toFixed(2)}`,
        ];
        const expected = `${sug.tool}: score ${sug.score.toFixed(3)} (confidence ${sug.confidence.toFixed(2)}) = ${parts.join(", ")}`;
        expect(explainTerms(sug.tool, sug.score, sug.confidence, sug.terms, sug.coocFrom, last)).toBe(expected);
        expect(explainSuggestion(sug, last)).toBe(expected);
      }
    }
  });
});
