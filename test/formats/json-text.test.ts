/**
 * The depth-bounded JSON reader (src/formats/json-text.ts): hand-checked paths and offsets, and properties
 * against an independent reading (the depth and path computed by recursion over JSON.parse's value).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextDepthProblem, jsonValueDepthProblem, parseJsonText } from "../../src/formats/json-text.ts";
import { LIMITS } from "../../src/formats/schemas.ts";

/** Depth of a parsed value (a scalar is 0, `[]` is 1) and the path of its first container past `max`, by recursion. */
function reference(
  v: unknown,
  max: number,
  depth = 1,
  path: (string | number)[] = [],
): { depth: number; first?: (string | number)[] } {
  if (v === null || typeof v !== "object") return { depth: 0 };
  if (depth > max) return { depth, first: path };
  let deepest = depth;
  let first: (string | number)[] | undefined;
  for (const [k, x] of Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v)) {
    const r = reference(x, max, depth + 1, [...path, k]);
    deepest = Math.max(deepest, r.depth);
    first ??= r.first;
  }
  return first ? { depth: deepest, first } : { depth: deepest };
}

describe("jsonTextDepthProblem", () => {
  it("names the path and offset of the first container past the bound (the outermost value is level 1)", () => {
    expect(jsonTextDepthProblem("[[1]]", 2)).toBeUndefined();
    expect(jsonTextDepthProblem("[[[1]]]", 2)).toEqual({
      index: 2,
      path: [0, 0],
      message: "is nested deeper than 2 levels",
    });
    expect(jsonTextDepthProblem('{"a": 1, "b": [0, {"c": [ ]}]}', 2)).toEqual({
      index: 18,
      path: ["b", 1],
      message: "is nested deeper than 2 levels",
    });
    // Brackets inside strings and escaped quotes do not count; keys are decoded.
    expect(jsonTextDepthProblem('{"[[[": "\\"[[[", "k\\u00e9y": [[]]}', 2)?.path).toEqual(["kéy", 0]);
    expect(jsonTextDepthProblem('["]]]]", [[0]]]', 2)?.path).toEqual([1, 0]);
    // An escaped backslash before a quote ends the string; an escaped quote does not.
    expect(jsonTextDepthProblem('["a\\\\", [[0]]]', 2)?.path).toEqual([1, 0]);
    expect(jsonTextDepthProblem('["a\\\\\\"[[", [[0]]]', 2)?.path).toEqual([1, 0]);
  });

  it("reads 1,000,000 levels without overflowing the stack", () => {
    const d = 1_000_000;
    const p = jsonTextDepthProblem(`${"[".repeat(d)}${"]".repeat(d)}`);
    expect(p?.index).toBe(LIMITS.documentDepth);
    expect(p?.path).toEqual(new Array(LIMITS.documentDepth).fill(0));
  });

  it("agrees with a recursive reading of JSON.parse's value on random documents", () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.jsonValue({ maxDepth: 0 }),
        fc.array(tie("v"), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie("v"), { maxKeys: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 6 }), fc.boolean(), (v, max, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 1 : undefined);
        const ref = reference(JSON.parse(text), max);
        const got = jsonTextDepthProblem(text, max);
        expect(got?.path).toEqual(ref.first);
        if (got) expect("[{").toContain(text[got.index]);
        expect(jsonValueDepthProblem(JSON.parse(text), max)?.path).toEqual(ref.first);
      }),
      { seed: 7, numRuns: 400 },
    );
  });
});

describe("parseJsonText", () => {
  it("parses what is within the bound, refuses what is deeper, reports malformed text with its position", () => {
    expect(parseJsonText('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    const deep = parseJsonText(`{"x": ${"[".repeat(200)}${"]".repeat(200)}}`);
    expect(deep.ok).toBe(false);
    if (!deep.ok) expect(deep.problem.path).toEqual(["x", ...new Array(LIMITS.documentDepth - 1).fill(0)]);
    const bad = parseJsonText('{"a": }');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problem).toMatchObject({ path: [], message: expect.stringMatching(/^malformed JSON \(/) });
  });
});

describe("jsonValueDepthProblem", () => {
  it("walks a 100,000-deep value iteratively", () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = { k: v };
    expect(jsonValueDepthProblem(v, 3)?.path).toEqual(["k", "k", "k"]);
    expect(jsonValueDepthProblem({ a: [[{}]] }, 4)).toBeUndefined();
  });
});
