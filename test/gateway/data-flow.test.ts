/**
 * Data-flow evidence between calls (algorithms/strings/data-flow.ts): hand-checked cases, properties against a
 * straightforward reference (a scan of every occurrence), and the worst case's work.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DATA_FLOW_DEFAULTS,
  type DataFlowOptions,
  dataFlowDependencies,
  dataFlowDependenciesDetailed,
  indexText,
  leafValues,
  occursAsWord,
  stepOutput,
} from "../../algorithms/strings/data-flow.ts";

const textResult = (text: string) => ({ content: [{ type: "text", text }] });

describe("leafValues", () => {
  it("keeps strings of ≥ 4 characters (trimmed) and numbers of ≥ 2 characters, through arrays and objects", () => {
    expect(leafValues({ a: "abc", b: " abcd ", c: [7, 42, -1, 3.5], d: { e: true, f: null, g: "path/x" } })).toEqual([
      "abcd",
      42,
      -1,
      3.5,
      "path/x",
    ]);
  });
  it("ignores non-finite numbers and caps the count", () => {
    expect(leafValues([Number.NaN, Number.POSITIVE_INFINITY, 10])).toEqual([10]);
    expect(
      leafValues(
        Array.from({ length: 500 }, (_, i) => 100 + i),
        { maxValues: 3 },
      ),
    ).toEqual([100, 101, 102]);
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
    const s0 = stepOutput(
      {},
      { structuredContent: { files: [{ path: "/data/report.csv", size: 1234 }] }, content: [] },
    );
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
      fc.property(
        fc.stringMatching(/^[a-z]{4,12}$/),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        (word, at, n) => {
          const k = at % n;
          const outs = Array.from({ length: n }, (_, i) =>
            stepOutput({}, textResult(i === k ? `result: ${word}.` : "nothing here 0")),
          );
          expect(dataFlowDependencies({ v: word }, outs)).toEqual([k]);
        },
      ),
      { seed: 18, numRuns: 200 },
    );
  });
});

// ---- A straightforward reference: the rules of the module's header, read literally. ----

const refIsWord = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** Every position where `needle` starts, checked with the boundary rule. */
function refOccursAsWord(hay: string, needle: string): boolean {
  if (needle.length === 0) return false;
  for (let at = 0; at + needle.length <= hay.length; at++) {
    if (hay.slice(at, at + needle.length) !== needle) continue;
    const okBefore = !refIsWord(needle[0]) || !refIsWord(hay[at - 1]);
    const okAfter = !refIsWord(needle[needle.length - 1]) || !refIsWord(hay[at + needle.length]);
    if (okBefore && okAfter) return true;
  }
  return false;
}

interface RefStep {
  args: unknown;
  result: { content?: { type: string; text: string }[]; structuredContent?: unknown };
  ok: boolean;
}

function refDependencies(args: unknown, steps: RefStep[], options?: DataFlowOptions): number[] {
  const maxTextChars = options?.maxTextChars ?? DATA_FLOW_DEFAULTS.maxTextChars;
  const values = leafValues(args, options);
  const deps: number[] = [];
  steps.forEach((step, i) => {
    if (!step.ok) return;
    const leaves = leafValues(step.result.structuredContent, options);
    const own = leafValues(step.args, options);
    const text = (step.result.content ?? [])
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("\n")
      .slice(0, maxTextChars);
    const hit = values.some((v) => {
      if (own.some((o) => typeof o === typeof v && o === v)) return false; // an echo of i's own argument
      if (leaves.some((l) => typeof l === typeof v && l === v)) return true;
      return refOccursAsWord(text, String(v));
    });
    if (hit) deps.push(i);
  });
  return deps;
}

const outputsOf = (steps: RefStep[], options?: DataFlowOptions) =>
  steps.map((s) => (s.ok ? stepOutput(s.args, s.result, options) : undefined));

// Texts over an alphabet that exercises the boundary rule: letters (one non-ASCII), digits, punctuation, a
// space, an astral letter (a surrogate pair: neither half is a word character) and a lone surrogate.
const PIECES = [
  "a",
  "b",
  "ab",
  "é",
  "1",
  "42",
  "3.5",
  " ",
  ".",
  "-",
  "/",
  ":",
  "\u{1D49C}",
  "\uD835",
  "aaaa",
  "Lisbon",
  "\n",
];
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 30 }).map((p) => p.join(""));
const numberArb = fc.constantFrom(7, 10, 42, 3.5, -12, 100, 1e21, 0.5);

describe("linear-time matching agrees with the straightforward reference", () => {
  it("property: occursAsWord equals a scan of every occurrence", () => {
    let found = 0;
    fc.assert(
      fc.property(textArb, textArb, fc.nat(40), fc.nat(12), fc.boolean(), (hay, other, at, len, fromHay) => {
        const needle = fromHay
          ? hay.slice(at % (hay.length + 1), (at % (hay.length + 1)) + len)
          : other.slice(0, len + 1);
        const expected = refOccursAsWord(hay, needle);
        if (expected) found++;
        expect(occursAsWord(hay, needle)).toBe(expected);
      }),
      { seed: 7, numRuns: 3000 },
    );
    // Both answers are well represented (a property that only ever says "no" would prove little).
    expect(found).toBeGreaterThan(300);
    expect(found).toBeLessThan(2400);
  });

  it("property: dataFlowDependencies equals the reference on random steps, arguments and options", () => {
    const valueArb = fc.oneof(textArb, numberArb);
    let withDeps = 0;
    const stepArb = fc.record({
      args: fc.dictionary(fc.constantFrom("a", "b", "c"), valueArb, { maxKeys: 3 }),
      text: fc.array(textArb, { maxLength: 3 }),
      structured: fc.option(fc.array(valueArb, { maxLength: 3 }), { nil: undefined }),
      ok: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 6 }),
        // Call values: cut from some step's text (to hit), copied from its arguments (echoes), or random.
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.nat(60),
            fc.integer({ min: 1, max: 14 }),
            fc.constantFrom("cut", "arg", "random"),
            valueArb,
          ),
          { maxLength: 6 },
        ),
        fc.constantFrom<DataFlowOptions | undefined>(
          undefined,
          { minStringLength: 1, minNumberDigits: 1 },
          { minStringLength: 2, maxTextChars: 20 },
        ),
        (raw, picks, options) => {
          const steps: RefStep[] = raw.map((r) => ({
            args: r.args,
            result: {
              content: r.text.map((t) => ({ type: "text", text: t })),
              ...(r.structured ? { structuredContent: { v: r.structured } } : {}),
            },
            ok: r.ok,
          }));
          const values = picks.map(([s, at, len, kind, random]) => {
            const step = raw[s % raw.length]!;
            if (kind === "arg") return Object.values(step.args)[0] ?? random;
            if (kind === "random") return random;
            const text = step.text.join("\n");
            const from = at % (text.length + 1);
            return text.slice(from, from + len);
          });
          const args = { values, nested: { first: values[0] ?? null } };
          const detail = dataFlowDependenciesDetailed(args, outputsOf(steps, options), options);
          const expected = refDependencies(args, steps, options);
          if (expected.length > 0) withDeps++;
          expect(detail.dependsOn).toEqual(expected);
          expect(detail.truncated).toBe(false);
        },
      ),
      { seed: 11, numRuns: 1500 },
    );
    expect(withDeps).toBeGreaterThan(150);
    expect(withDeps).toBeLessThan(1200);
  });
});

describe("worst case: long repetitive results, then many values that occur everywhere but never as words", () => {
  const message = "a".repeat(65_000);
  const echo = (m: string) => stepOutput({ message: m }, textResult(`Echo: ${m}`));
  const fourLetters = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`k${i}`, "aaaa"]));
  /**
   * Units one lookup may spend at most: one per binary-search probe, plus each symbol of the pattern
   * (⟨M⟩aaaa⟨M⟩, 6 symbols) matched at most once.
   */
  const probes = (suffixes: number) => Math.ceil(Math.log2(suffixes + 1));
  const perLookup = (suffixes: number) => probes(suffixes) + 6;

  it("3 × 65,000-character echoes, then 256 four-letter arguments: no dependency, bounded work", () => {
    const steps = [echo(message), echo(message), echo(message)];
    // The index keeps only where a pattern can start: in ⟨M⟩Echo⟨M⟩: ⟨M⟩aaa…⟨M⟩ the 2 markers before a
    // word and the 2 non-word characters.
    expect(steps[0]!.text.suffixes.length).toBe(4);
    const d = dataFlowDependenciesDetailed(fourLetters, steps);
    expect(d.dependsOn).toEqual([]);
    expect(d.truncated).toBe(false);
    // A scan finds "aaaa" at 64,997 places in each text (3 × 256 × 64,997 ≈ 50 M boundary checks). The
    // repeated value is looked up once per step: one unit for the pair, at most 3 probes + 6 symbols.
    expect(d.work).toBeLessThanOrEqual(3 * (1 + perLookup(4)));
    expect(d.work).toBeGreaterThanOrEqual(3 * 2);
  });

  it("10 such steps, the 8th of which returned the word: only that one is found", () => {
    const steps = Array.from({ length: 10 }, (_, i) =>
      i === 7 ? stepOutput({}, textResult(`${message} aaaa.`)) : echo(message),
    );
    const d = dataFlowDependenciesDetailed(fourLetters, steps);
    expect(d.dependsOn).toEqual([7]);
    expect(d.truncated).toBe(false);
    expect(d.work).toBeLessThanOrEqual(10 * (1 + perLookup(4)));
    expect(dataFlowDependencies({ a: "aaaa" }, steps)).toEqual([7]);
  });

  it("256 distinct four-letter words, each hundreds of times inside one 65,000-letter word, 10 steps", () => {
    // Every word over a, b, c, d; the text a pseudo-random sequence of those letters (no boundary inside).
    const letters = "abcd";
    const distinct = Object.fromEntries(
      Array.from({ length: 256 }, (_, i) => [`k${i}`, [6, 4, 2, 0].map((s) => letters[(i >> s) & 3]).join("")]),
    );
    let x = 1;
    const long = Array.from({ length: 65_000 }, () => {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      return letters[x >> 29];
    }).join("");
    const steps = Array.from({ length: 10 }, () => echo(long));
    const d = dataFlowDependenciesDetailed(distinct, steps);
    expect(d.dependsOn).toEqual([]);
    expect(d.truncated).toBe(false);
    expect(d.work).toBeLessThanOrEqual(10 * 256 * (1 + perLookup(4)));
    // Set one occurrence apart with spaces and that word, only, is found (the runs either side are longer).
    const at = long.indexOf("dcba");
    expect(at).toBeGreaterThan(4);
    const cut = [...steps.slice(0, 3), echo(`${long.slice(0, at)} dcba ${long.slice(at + 4)}`)];
    expect(dataFlowDependencies(distinct, cut)).toEqual([3]);
  });

  it("a long value that is the text apart from its last character, against a text of one repeated letter", () => {
    // A plain binary search could compare the whole value at every probe; this one matches each pattern
    // symbol (⟨M⟩ + 65,000 + ⟨M⟩) at most once.
    const steps = [stepOutput({}, textResult(message))];
    const needle = `${"a".repeat(64_999)}b`;
    const d = dataFlowDependenciesDetailed({ v: needle }, steps);
    expect(d.dependsOn).toEqual([]);
    expect(d.work).toBeLessThanOrEqual(1 + probes(steps[0]!.text.suffixes.length) + needle.length + 2);
  });
});

describe("work cap", () => {
  it("a value longer than maxTextChars is only compared with structured leaves", () => {
    const long = `x${"y".repeat(99)}`;
    const steps = [
      stepOutput({}, textResult(long), { maxTextChars: 100 }),
      stepOutput({}, { structuredContent: { v: long } }, { maxTextChars: 10 }),
    ];
    expect(dataFlowDependencies({ v: long }, steps, { maxTextChars: 100 })).toEqual([0, 1]);
    // Step 0's text was indexed with a larger maxTextChars on purpose: with 99 it is not searched at all.
    expect(dataFlowDependenciesDetailed({ v: long }, steps, { maxTextChars: 99 })).toEqual({
      dependsOn: [1],
      work: 2,
      truncated: false,
    });
  });

  const lisbon = Array.from({ length: 5 }, () => stepOutput({}, textResult("Forecast for Lisbon: sunny")));

  it("examines the most recent steps first and stops when maxWork is spent", () => {
    expect(dataFlowDependenciesDetailed({ city: "Lisbon" }, lisbon)).toMatchObject({
      dependsOn: [0, 1, 2, 3, 4],
      truncated: false,
    });
    const capped = dataFlowDependenciesDetailed({ city: "Lisbon" }, lisbon, { maxWork: 1 });
    // The first pair (step 4) is started with the whole budget; the next finds it spent.
    expect(capped.dependsOn).toEqual([4]);
    expect(capped.truncated).toBe(true);
  });

  it("a call with nothing to look up spends nothing", () => {
    expect(dataFlowDependenciesDetailed({ flag: "ok", n: 3 }, lisbon)).toEqual({
      dependsOn: [],
      work: 0,
      truncated: false,
    });
  });

  it("a text holding every code unit has no spare one for the marker: 65,536 in 32-bit storage, same answers", () => {
    const all = Array.from({ length: 65_536 }, (_, c) => String.fromCharCode(c)).join("");
    const ix = indexText(all);
    expect(ix.marker).toBe(65_536);
    expect(ix.chars).toBeInstanceOf(Int32Array);
    const options = { maxTextChars: 70_000, minStringLength: 1 };
    const steps = [stepOutput({}, textResult(`${all} Lisbon \u0000x`), options)];
    expect(steps[0]!.text.marker).toBe(65_536);
    for (const [v, hit] of [
      ["Lisbon", true],
      ["Lisb", false],
      ["\u0000x", true],
      ["xyz", false],
      ["/0123456789", true],
      ["0123", false],
    ] as const) {
      expect(dataFlowDependencies({ v }, steps, options), v).toEqual(hit ? [0] : []);
      expect(refOccursAsWord(`${all} Lisbon \u0000x`, v), v).toBe(hit);
    }
  });

  it("indexText: the marked text has a marker around every run, and one for an empty text", () => {
    const ix = indexText("ab, c");
    const shown = Array.from(ix.chars, (c) => (c === ix.marker ? "|" : String.fromCharCode(c))).join("");
    expect(shown).toBe("|ab|, |c|");
    expect(indexText("").chars.length).toBe(1);
    // Kept: the markers before "ab" (0) and "c" (6), "," (4) and " " (5). The marker sorts below every
    // character and " " below ",": "|ab|, |c|" < "|c|" < " |c|" < ", |c|".
    expect(Array.from(ix.suffixes)).toEqual([0, 6, 5, 4]);
  });
});
