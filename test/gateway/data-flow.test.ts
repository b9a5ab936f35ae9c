/** Data-flow evidence between calls (src/gateway/data-flow.ts): hand-checked cases and properties. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dataFlowDependencies, leafValues, occursAsWord, stepOutput } from "../../src/gateway/data-flow.ts";

const textResult = (text: string) => ({ content: [{ type: "text", text }] });

describe("leafValues", () => {
  it("keeps strings of ≥ 4 characters (trimmed) and numbers of ≥ 2 characters, through arrays and objects", () => {
    expect(leafValues({ a: "abc", b: " abcd ", c: [7, 42, -1, 3.5], d: { e: true, f: null, g: "path/x" } })).toEqual(["abcd", 42, -1, 3.5, "path/x"]);
  });
  it("ignores non-finite numbers and caps the count", () => {
    expect(leafValues([Number.NaN, Number.POSITIVE_INFINITY, 10])).toEqual([10]);
    expect(leafValues(Array.from({ length: 500 }, (_, i) => 100 + i), { maxValues: 3 })).toEqual([100, 101, 102]);
  });
});

describe("occursAsWord", () => {
  it("matches at word boundaries only", () => {
    expect(occursAsWord("The sum of 17 and 25 is 42.", "42")).toBe(true);
    expect(occursAsWord("id 1420", "42")).toBe(false);
    expect(occursAsWord("x42", "42")).toBe(false);
    expect(occursAsWord("found /tmp/a/notes.txt\n", "/tmp/a/notes.txt")).toBe(true);
    expect(occursAsWord("database", "data")).toBe(false);
    expect(occursAsWord("data, base", "data")).toBe(true);
    expect(occursAsWord("", "data")).toBe(false);
  });
  it("a needle starting or ending with punctuation needs no boundary on that side", () => {
    expect(occursAsWord("path=/tmp/x", "/tmp/x")).toBe(true);
  });
});

describe("dataFlowDependencies", () => {
  it("finds the step whose text returned a number the arguments use", () => {
    const s0 = stepOutput({ a: 17, b: 25 }, textResult("The sum of 17 and 25 is 42."));
    expect(dataFlowDependencies({ a: 42, b: 100 }, [s0])).toEqual([0]);
    // 17 was s0's own argument: an echo, not its output.
    expect(dataFlowDependencies({ a: 17, b: 1 }, [s0])).toEqual([]);
  });

  it("matches structuredContent leaves exactly and text at word boundaries", () => {
    const s0 = stepOutput({}, { structuredContent: { files: [{ path: "/data/report.csv", size: 1234 }] }, content: [] });
    const s1 = stepOutput({ q: "weather" }, textResult("Forecast for Lisbon: sunny"));
    expect(dataFlowDependencies({ file: "/data/report.csv" }, [s0, s1])).toEqual([0]);
    expect(dataFlowDependencies({ bytes: 1234 }, [s0, s1])).toEqual([0]);
    expect(dataFlowDependencies({ city: "Lisbon" }, [s0, s1])).toEqual([1]);
    expect(dataFlowDependencies({ city: "Lisb" }, [s0, s1])).toEqual([]); // inside a word
    expect(dataFlowDependencies({ a: "/data/report.csv", b: "Lisbon" }, [s0, s1])).toEqual([0, 1]);
  });

  it("short strings, small numbers and failed steps never count", () => {
    const s0 = stepOutput({}, textResult("ok 7 yes"));
    expect(dataFlowDependencies({ flag: "ok", n: 7, w: "yes" }, [s0])).toEqual([]);
    expect(dataFlowDependencies({ x: "Lisbon" }, [undefined, stepOutput({}, textResult("Lisbon"))])).toEqual([1]);
  });

  it("property: a value planted in an earlier step's text is found, and only steps that returned it are listed", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{4,12}$/), fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 6 }), (word, at, n) => {
        const k = at % n;
        const outs = Array.from({ length: n }, (_, i) => stepOutput({}, textResult(i === k ? `result: ${word}.` : "nothing here 0")));
        expect(dataFlowDependencies({ v: word }, outs)).toEqual([k]);
      }),
      { seed: 18, numRuns: 200 },
    );
  });
});
