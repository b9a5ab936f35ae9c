/** SA-IS and Kasai against the definitions: sorted suffixes by comparison, and prefixes compared symbol by symbol. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lcpArray, suffixArray } from "../../../algorithms/strings/suffix-array.ts";

function naiveSuffixArray(s: Int32Array): number[] {
  const idx = Array.from({ length: s.length }, (_, i) => i);
  return idx.sort((a, b) => {
    for (let k = 0; a + k < s.length && b + k < s.length; k++) if (s[a + k] !== s[b + k]) return s[a + k]! - s[b + k]!;
    return s.length - a - (s.length - b);
  });
}

describe("suffixArray / lcpArray", () => {
  it("banana: hand-computed", () => {
    const s = Int32Array.from("banana", (c) => c.charCodeAt(0));
    // suffixes sorted: a(5) ana(3) anana(1) banana(0) na(4) nana(2)
    expect([...suffixArray(s)]).toEqual([5, 3, 1, 0, 4, 2]);
    expect([...lcpArray(s, suffixArray(s))]).toEqual([0, 1, 3, 0, 0, 2]);
  });

  it("equals the comparison sort on random strings over small and large alphabets", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 200 }), fc.boolean(), (xs, wide) => {
        const s = Int32Array.from(xs, (x) => (wide ? x * 13_000 : x));
        const sa = suffixArray(s);
        expect([...sa]).toEqual(naiveSuffixArray(s));
        const lcp = lcpArray(s, sa);
        for (let j = 1; j < s.length; j++) {
          let h = 0;
          while (sa[j - 1]! + h < s.length && sa[j]! + h < s.length && s[sa[j - 1]! + h] === s[sa[j]! + h]) h++;
          expect(lcp[j]).toBe(h);
        }
      }),
      { numRuns: 200 },
    );
  });
});
