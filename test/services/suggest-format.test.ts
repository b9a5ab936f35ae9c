/**
 * The next-step explanation's number formatting: formatFixed spells x.toFixed(2|3) byte for byte (random
 * values, every 2- and 3-digit boundary and tie ± an ulp, values outside [0, 1]), and explainTerms gives the
 * explanation explainSuggestion has always given.
 */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { explainSuggestion, explainTerms, formatFixed } from "../../src/services/suggest.ts";

const ULP = 2 ** -52;

function expectToFixed(x: number) {
  expect(formatFixed(x, 2)).toBe(x.toFixed(2));
  expect(formatFixed(x, 3)).toBe(x.toFixed(3));
}

describe("formatFixed", () => {
  it("equals toFixed on 300k random values in [0, 1], small values and values outside [0, 1]", () => {
    const rng = mulberry32(22);
    const bad: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      for (const x of [rng(), rng() * 0.01, rng() * 1e-4]) {
        if (formatFixed(x, 2) !== x.toFixed(2) || formatFixed(x, 3) !== x.toFixed(3)) bad.push(x);
      }
    }
    expect(bad).toEqual([]);
    for (const x of [0, -0, 1, 1.1, 1.0049, 1.0051, 2.5, -0.004, -0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e-300, 1 - ULP / 2]) expectToFixed(x);
  });

  it("equals toFixed at every boundary k/1000 and tie (k + ½)/1000, (k + ½)/100, each ± an ulp", () => {
    for (let k = 0; k <= 1000; k++) {
      for (const base of [k / 1000, (k + 0.5) / 1000, (k + 0.5) / 100]) {
        if (base > 1.1) continue;
        for (const f of [1 - 2 * ULP, 1 - ULP, 1, 1 + ULP, 1 + 2 * ULP]) expectToFixed(base * f);
      }
    }
  });
});

describe("explainTerms", () => {
  it("gives explainSuggestion's text", () => {
    const term = (value: number, weight: number) => ({ value, weight, contribution: value * weight });
    const rng = mulberry32(7);
    for (let i = 0; i < 200; i++) {
      const terms = { cooc: term(i % 5 === 0 ? 0 : rng(), 0.6), community: term(i % 2, 0.3), recency: term(i % 3 === 0 ? 1 : 0, 0.1), pagerank: term(rng(), 0.1) };
      const score = 0.6 * terms.cooc.value + 0.3 * terms.community.value + 0.1 * terms.recency.value + 0.1 * terms.pagerank.value;
      const sug = { tool: "git.push", name: "push", score, confidence: Math.min(1, score / 1.1), terms, coocFrom: i % 4 === 0 ? null : "git.commit" };
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
