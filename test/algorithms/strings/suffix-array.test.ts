/** SA-IS and Kasai against the definitions: sorted suffixes by comparison, and prefixes compared symbol by symbol. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  lcpArray,
  lcpArraySteps,
  STEP_SYMBOLS,
  suffixArray,
  suffixArraySteps,
} from "../../../algorithms/strings/suffix-array.ts";

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

  it("in steps: pauses within each long pass, and sorts a 100,000-symbol string by the definition", () => {
    let seed = 7;
    const s = Int32Array.from({ length: 100_000 }, () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed >>> 30; // 0..3
    });
    let pauses = 0;
    const sa = (function drainCounting() {
      const g = suffixArraySteps(s);
      for (;;) {
        const r = g.next();
        if (r.done) return r.value;
        pauses++;
      }
    })();
    // At least one pause per STEP_SYMBOLS symbols of each of SA-IS's induced passes.
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(s.length / STEP_SYMBOLS) * 2);
    expect(new Set(sa).size).toBe(s.length);
    const steps = lcpArraySteps(s, sa);
    let r = steps.next();
    let lcpPauses = 0;
    while (!r.done) {
      lcpPauses++;
      r = steps.next();
    }
    expect(lcpPauses).toBeGreaterThanOrEqual(Math.floor(s.length / STEP_SYMBOLS));
    const lcp = r.value;
    expect([...lcp]).toEqual([...lcpArray(s, sa)]);
    // Adjacent suffixes agree on lcp[j] symbols, then the earlier one is smaller (or ends there).
    let wrong = 0;
    for (let j = 1; j < s.length; j++) {
      const a = sa[j - 1]!;
      const b = sa[j]!;
      const h = lcp[j]!;
      for (let k = 0; k < h; k++) if (s[a + k] !== s[b + k]) wrong++;
      if (b + h >= s.length || (a + h < s.length && s[a + h]! >= s[b + h]!)) wrong++;
    }
    expect(wrong).toBe(0);
  });
});
