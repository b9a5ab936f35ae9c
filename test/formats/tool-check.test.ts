/**
 * The hand-written tool check (src/formats/tool-check.ts) against the zod schema it stands in for: whatever the
 * input, `toolInput` accepts exactly what `toolSchema` accepts, with the same parsed tool, and the usual tools
 * an upstream lists never reach zod.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS, toolSchema } from "../../src/formats/schemas.ts";
import { toolInput, usualTool } from "../../src/formats/tool-check.ts";

const edgeText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }), // lone surrogates
  fc.constantFrom("", " padded ", "a\u0000b", "x\u200by", "line\u2028sep", "tab\there", "😀"),
  fc
    .constantFrom(LIMITS.idLength, LIMITS.nameLength, LIMITS.textItemLength)
    .chain((n) => fc.constantFrom("a".repeat(n), "a".repeat(n + 1), "😀".repeat(n / 2 + 1))),
);
const anyValue = fc.oneof(
  edgeText,
  fc.double(),
  fc.constantFrom(-0, -1, 1e12, 1e12 + 1, LIMITS.maxDurationMs, LIMITS.maxDurationMs + 1, Number.NaN),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(edgeText, { maxLength: 3 }),
  fc.constant(Array.from({ length: LIMITS.textListItems + 1 }, () => "t")),
  fc.dictionary(edgeText, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  fc.constant(JSON.parse('{"__proto__": {"type": "object"}}')),
  fc.constant(Object.create(null)),
  fc.constant(new Date(0)),
  fc.constant({ deep: JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) }),
);
const FIELDS = [
  "id",
  "name",
  "description",
  "inputSchema",
  "outputSchema",
  "tags",
  "examples",
  "antiPatterns",
  "costEstimate",
  "avgLatencyMs",
  "safetyTags",
  "server",
] as const;
/** A tool-like object: each field absent, valid or anything; sometimes an extra key. */
const toolLike = fc
  .record(
    Object.fromEntries(
      FIELDS.map((f) => [
        f,
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(Symbol.for("absent")) },
          { weight: 5, arbitrary: validField(f) },
          { weight: 1, arbitrary: anyValue },
        ),
      ]),
    ) as Record<(typeof FIELDS)[number], fc.Arbitrary<unknown>>,
  )
  .chain((fields) =>
    fc
      .oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom("extra", "Id", "input_schema") },
      )
      .map((extra) => {
        const o: Record<string, unknown> = {};
        for (const f of FIELDS) if (fields[f] !== Symbol.for("absent")) o[f] = fields[f];
        if (extra) o[extra] = 1;
        return o;
      }),
  );

function validField(f: (typeof FIELDS)[number]): fc.Arbitrary<unknown> {
  switch (f) {
    case "id":
      return fc.stringMatching(/^[a-z][a-z0-9_.-]{0,20}$/);
    case "inputSchema":
    case "outputSchema":
      return fc.constant({ type: "object", properties: { q: { type: "string", description: "the query" } } });
    case "tags":
    case "examples":
    case "antiPatterns":
    case "safetyTags":
      return fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 });
    case "costEstimate":
    case "avgLatencyMs":
      return fc.double({ min: 0, max: 1000, noNaN: true });
    default:
      return fc.string({ maxLength: 20 });
  }
}

describe("toolInput (the hand-written tool check)", () => {
  it("accepts exactly what toolSchema accepts, with the same parsed tool", () => {
    let fastAccepted = 0;
    let zodAccepted = 0;
    fc.assert(
      fc.property(fc.oneof(toolLike, anyValue), (x) => {
        const zod = toolSchema.safeParse(x);
        const fast = usualTool(x);
        if (zod.success) zodAccepted++;
        if (fast !== undefined) {
          fastAccepted++;
          expect(zod.success).toBe(true);
          expect(fast).toStrictEqual(zod.data);
        }
        const r = toolInput(x);
        expect(r.success).toBe(zod.success);
        if (r.success) expect(r.data).toStrictEqual(zod.data);
        else expect(r.error!.issues).toEqual(zod.error!.issues);
      }),
      { numRuns: 3000 },
    );
    // The property saw both sides: tools the check took itself, and others left to zod.
    expect(fastAccepted).toBeGreaterThan(50);
    expect(zodAccepted).toBeGreaterThan(fastAccepted - 1);
  });

  it("takes every usual upstream tool without zod (the hostile fixture's shape, Seal-Tools-like fields)", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            id: validField("id"),
            server: fc.constantFrom("up", "hostile"),
            description: fc.string({ maxLength: 200 }),
            inputSchema: validField("inputSchema"),
            tags: validField("tags"),
          },
          { requiredKeys: ["id", "server"] },
        ),
        (x) => {
          expect(usualTool(x)).toStrictEqual(toolSchema.parse(x));
        },
      ),
      { numRuns: 500 },
    );
  });
});
