import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSafeRegex, patternProblem, safeTest } from "../../../algorithms/search/safe-regex.ts";

describe("static ReDoS guard", () => {
  it.each([
    ["(a+)+", "nested-quantifier"],
    ["(a*)*", "nested-quantifier"],
    ["(\\w+\\s?){2,}", "nested-quantifier"],
    ["(a|a)*", "overlapping-alternation"],
    ["(a|ab)+", "overlapping-alternation"],
    ["(\\w|\\d)*", "overlapping-alternation"],
    ["(a|)*", "overlapping-alternation"],
    ["(a)\\1", "backreference"],
    ["(?<n>a)\\k<n>", "backreference"],
    ["(?<=a)b", "lookaround"],
    ["(?<!a)b", "lookaround"],
    ["a(?=b)", "lookaround"],
    ["x".repeat(201), "too-long"],
    ["(", "invalid-pattern"],
    ["", "invalid-pattern"],
    ["\\cA", "unsupported-syntax"],
    ["(?:a{100}){40}", "too-complex"],
  ])("%s → %s", (pattern, code) => {
    expect(patternProblem(pattern)?.code).toBe(code);
  });

  it("the error names the pattern", () => {
    expect(() => compileSafeRegex("(a+)+")).toThrow(/"\(a\+\)\+"/);
  });

  it.each([
    "(ab|cd)*",
    "[a-z]+(foo|bar)*",
    "a{2,5}",
    "fix.*(counting|calculation).*in.*(action|visualization)",
    String.raw`\$\{.*\}.*not`,
    "(?:x|y)+z",
  ])("accepts %s", (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });
});

describe("safeTest (linear-time matcher)", () => {
  it("is case-insensitive both ways", () => {
    expect(safeTest(compileSafeRegex("API"), "the api broke")).toBe(true);
    expect(safeTest(compileSafeRegex("[a-z]+"), "ABC")).toBe(true);
  });

  it("'.' does not cross a line break; ^ and $ are the input's ends", () => {
    expect(safeTest(compileSafeRegex("a.*b"), "a\nb")).toBe(false);
    expect(safeTest(compileSafeRegex("^b"), "a\nb")).toBe(false);
    expect(safeTest(compileSafeRegex("a$"), "b\na")).toBe(true);
  });

  it("word boundaries", () => {
    expect(safeTest(compileSafeRegex("\\bfix\\b"), "prefix")).toBe(false);
    expect(safeTest(compileSafeRegex("\\bfix\\b"), "a fix.")).toBe(true);
  });

  it("required-literal prefilter: the longest top-level literal run, lowercased", () => {
    expect(compileSafeRegex("Fix.*(a|b).*in").required).toBe("fix");
    expect(compileSafeRegex("(ab|cd)").required).toBe("");
    expect(compileSafeRegex("ab?c").required).toBe("a");
    expect(safeTest(compileSafeRegex("FIX.*in"), "please fix it in place")).toBe(true);
  });

  it("empty input matches only nullable patterns", () => {
    expect(safeTest(compileSafeRegex("a*"), "")).toBe(true);
    expect(safeTest(compileSafeRegex("a"), "")).toBe(false);
  });

  it("adversarial input for chained quantifiers completes (V8 needs seconds here)", () => {
    // /\w+.*\w+.*\w+.*x/ on "ab ab ab …" backtracks polynomially in V8 (1.6 s at 256 characters, measured);
    // the NFA simulation is linear.
    expect(safeTest(compileSafeRegex("\\w+.*\\w+.*\\w+.*x"), "ab ".repeat(700))).toBe(false);
    expect(safeTest(compileSafeRegex("a.*b.*c.*d.*e.*f.*g"), "abcdef".repeat(333))).toBe(false);
  });

  const patterns = [
    "a.*b",
    "^ab",
    "b$",
    "\\bab\\b",
    "a+b?",
    "(ab|ba)+",
    "[a-c]{2,3}",
    "[^a ]+1",
    "\\d+\\s",
    "a.b",
    "x|ab",
    "(?:a|1)b{0,2}$",
    "A",
    "\\Bb",
    "\\w+\\.",
    "[\\d.]+",
    "b{2,}",
    "(?<g>ab)?1",
    "a\\n",
    "[a\\-]1",
  ];

  it("agrees with the native RegExp (flag i) on random inputs", () => {
    const compiled = patterns.map((p) => ({ p, safe: compileSafeRegex(p), native: new RegExp(p, "i") }));
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "A", "B", "1", " ", ".", "\n", "-", "x"), maxLength: 12 }),
        (s) => {
          for (const c of compiled) expect([c.p, safeTest(c.safe, s)]).toEqual([c.p, c.native.test(s)]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("requiredAny prefilter", () => {
  it.each([
    ["(deploy|release) now", ["deploy", "release"]],
    ["(deploy|release)\\s+it", ["deploy", "release"]],
    ["^(ab|cd)x*$", ["ab", "cd"]],
    ["(foo)+bar?", ["foo"]],
    ["\\w+\\s\\w+", undefined],
    ["(a|\\d)x", ["x"]],
    ["(ab|)c", ["c"]],
  ] as const)("%s needs one of %j", (src, expected) => {
    const re = compileSafeRegex(src);
    if (expected === undefined) expect(re.requiredAny).toBeUndefined();
    else expect(re.requiredAny).toEqual(expected);
  });
  it("property: the prefilter never drops a real match (same answers as RegExp)", () => {
    const pats = ["(deploy|release)\\s+it", "(ab|cd)e+f", "x(yz|w)*q", "(fix|repair).*(bug|issue)", "^(a|b)c"];
    fc.assert(
      fc.property(
        fc.constantFrom(...pats),
        fc.string({
          unit: fc.constantFrom(..."abcdefqwxyz it deploy release fix bug repair issue".split("")),
          maxLength: 40,
        }),
        (p, s) => {
          expect(safeTest(compileSafeRegex(p), s)).toBe(new RegExp(p, "i").test(s));
        },
      ),
      { seed: 21, numRuns: 2000 },
    );
  });
});
