/**
 * Valid-looking input the database cannot hold is refused at the schema, naming the field
 * (docs/decisions/text-validation.md):
 * NUL in text, dates outside 0001..9999, integers past int4, JSON nested too deep, control / format /
 * line-separator characters in ids, absurd numbers, capabilities depending on themselves or in a cycle.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { searchRequest } from "../../src/contract/requests.ts";
import {
  capabilitySchema,
  catalogSchema,
  dependencyCycle,
  executionSchema,
  idProblem,
  jsonProblem,
  LIMITS,
  safeId,
  safeIdList,
  toolSchema,
} from "../../src/formats/schemas.ts";

function fieldsOf(r: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  expect(r.success).toBe(false);
  return r.error!.issues.map((i) => i.path.map(String).join("."));
}

const exec = (over: Record<string, unknown> = {}, step: Record<string, unknown> = {}) => ({
  id: "e1",
  startedAt: "2026-11-01T12:00:00Z",
  success: true,
  steps: [{ tool: "a", ...step }],
  ...over,
});

/**
 * Strings of any code points (fast-check's "binary" unit) mixed with surrogate halves, alone or paired by chance,
 * and NUL: the "binary" unit alone never yields a lone surrogate.
 */
const anyText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "\ud83d", "\ude00", "\u0000"),
  ),
  maxLength: 20,
});

function nested(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < depth; i++) v = { p: v };
  return v;
}

describe("NUL in any text field", () => {
  it.each([
    ["tool description", toolSchema, { id: "t", description: "a\u0000b" }, "description"],
    ["tool tag", toolSchema, { id: "t", tags: ["ok", "x\u0000"] }, "tags.1"],
    [
      "tool inputSchema string",
      toolSchema,
      { id: "t", inputSchema: { properties: { q: { description: "\u0000" } } } },
      "inputSchema.properties.q.description",
    ],
    [
      "tool inputSchema key",
      toolSchema,
      { id: "t", inputSchema: { properties: { "q\u0000": {} } } },
      "inputSchema.properties.q\u0000",
    ],
    ["capability pattern", capabilitySchema, { id: "c", patterns: ["a\u0000"] }, "patterns.0"],
    ["execution intent", executionSchema, exec({ intent: "hi\u0000" }), "intent"],
    ["execution user", executionSchema, exec({ user: "u\u0000" }), "user"],
    ["search intent", searchRequest, { intent: "find\u0000" }, "intent"],
  ] as const)("%s", (_n, schema, value, field) => {
    expect(fieldsOf((schema as typeof toolSchema).safeParse(value))).toContain(field);
  });
  it("keeps newlines and tabs in descriptions", () => {
    expect(toolSchema.safeParse({ id: "t", description: "line 1\n\tline 2" }).success).toBe(true);
  });
});

describe("lone surrogates in any text field", () => {
  // A high half alone, a low half alone, and the two halves in the wrong order: each is refused, naming the field.
  it.each(["\ud800", "x\udc00", "\udc00\ud800"])("%j", (bad) => {
    const cases: [z.ZodType, unknown, string][] = [
      [toolSchema, { id: "t", description: `a${bad}` }, "description"],
      [toolSchema, { id: "t", name: bad }, "name"],
      [toolSchema, { id: "t", tags: ["ok", bad] }, "tags.1"],
      [
        toolSchema,
        { id: "t", inputSchema: { properties: { q: { description: bad } } } },
        "inputSchema.properties.q.description",
      ],
      [toolSchema, { id: "t", inputSchema: { properties: { [`q${bad}`]: {} } } }, `inputSchema.properties.q${bad}`],
      [capabilitySchema, { id: "c", patterns: [bad] }, "patterns.0"],
      [executionSchema, exec({ intent: bad }), "intent"],
      [executionSchema, exec({ id: bad }), "id"],
      [searchRequest, { intent: bad }, "intent"],
      [searchRequest, { intent: "ok", session: `s${bad}` }, "session"],
    ];
    for (const [schema, value, field] of cases) expect(fieldsOf(schema.safeParse(value))).toContain(field);
  });
  it("the message names the code unit and its index", () => {
    const r = executionSchema.safeParse(exec({ intent: "abc\udc00" }));
    expect(r.error!.issues[0]!.message).toBe("must be well-formed Unicode (found a lone surrogate U+DC00 at index 3)");
    expect(jsonProblem({ a: ["ok", "\ud83d!"] })).toEqual({
      path: ["a", 1],
      message: "must be well-formed Unicode (found a lone surrogate U+D83D at index 0)",
    });
  });
  it("property: free text is accepted iff it has no NUL and no lone surrogate (pairs, controls, any script pass)", () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const bad = s.includes("\u0000") || /[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""));
        expect(executionSchema.safeParse(exec({ intent: s })).success).toBe(!bad);
        expect(toolSchema.safeParse({ id: "t", inputSchema: { [s]: s } }).success).toBe(!bad);
      }),
      { seed: 6, numRuns: 500 },
    );
  });
});

describe("dates PostgreSQL cannot store", () => {
  it.each(["0000-01-01T00:00:00Z", "+275760-09-13T00:00:00Z", "-000001-01-01T00:00:00Z", 8.64e15, -8.64e15])(
    "%s is refused on startedAt and steps[0].at",
    (d) => {
      expect(fieldsOf(executionSchema.safeParse(exec({ startedAt: d })))).toEqual(["startedAt"]);
      expect(fieldsOf(executionSchema.safeParse(exec({}, { at: d })))).toEqual(["steps.0.at"]);
    },
  );
  it("accepts the bounds 0001-01-01 and 9999-12-31T23:59:59.999Z", () => {
    expect(executionSchema.safeParse(exec({ startedAt: "0001-01-01T00:00:00Z" })).success).toBe(true);
    expect(executionSchema.safeParse(exec({ startedAt: "9999-12-31T23:59:59.999Z" })).success).toBe(true);
  });
});

describe("numbers", () => {
  it("priority must fit int4", () => {
    expect(fieldsOf(capabilitySchema.safeParse({ id: "c", priority: 2 ** 40 }))).toEqual(["priority"]);
    expect(fieldsOf(capabilitySchema.safeParse({ id: "c", priority: -(2 ** 31) - 1 }))).toEqual(["priority"]);
    expect(capabilitySchema.safeParse({ id: "c", priority: 2 ** 31 - 1 }).success).toBe(true);
  });
  it("durations, latencies and costs are bounded", () => {
    expect(fieldsOf(executionSchema.safeParse(exec({}, { durationMs: 1e308 })))).toEqual(["steps.0.durationMs"]);
    expect(fieldsOf(toolSchema.safeParse({ id: "t", avgLatencyMs: 1e308 }))).toEqual(["avgLatencyMs"]);
    expect(fieldsOf(toolSchema.safeParse({ id: "t", costEstimate: 1e300 }))).toEqual(["costEstimate"]);
    expect(executionSchema.safeParse(exec({}, { durationMs: LIMITS.maxDurationMs })).success).toBe(true);
  });
});

describe("JSON nesting", () => {
  it(`accepts ${LIMITS.jsonDepth} levels and refuses ${LIMITS.jsonDepth + 1} (and 5,000) with the path`, () => {
    expect(toolSchema.safeParse({ id: "t", inputSchema: nested(LIMITS.jsonDepth) }).success).toBe(true);
    const f = fieldsOf(toolSchema.safeParse({ id: "t", inputSchema: nested(LIMITS.jsonDepth + 1) }));
    expect(f[0]).toMatch(/^inputSchema(\.p)+$/);
    expect(jsonProblem(nested(5000))?.message).toBe(`is nested deeper than ${LIMITS.jsonDepth} levels`);
  });
});

describe("ids", () => {
  it.each(["\u0085", "\u2028", "\u2029", "\u200b", "\u202e", "\ufeff", "\u0000", "\u001b", "\u007f", "\ud800"])(
    "refuses %j inside an id, naming the field",
    (ch) => {
      expect(idProblem(`a${ch}b`)).toBeDefined();
      expect(fieldsOf(executionSchema.safeParse(exec({ id: `a${ch}b` })))).toEqual(["id"]);
      // At the end of an id, U+2028/U+2029/U+FEFF are also white space: two problems, one field.
      expect([...new Set(fieldsOf(executionSchema.safeParse(exec({}, { tool: `t${ch}` }))))]).toEqual(["steps.0.tool"]);
    },
  );
  it("accepts letters of any script, emoji and inner spaces", () => {
    for (const s of ["résumé", "検索", "a b", "tool-😀", "ünïcødé_v2"]) expect(idProblem(s)).toBeUndefined();
  });
  it("property: an id is accepted iff it has no Cc/Cf/Zl/Zp or lone surrogate, is trimmed and 1..256 long", () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const bad =
          /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(s) ||
          /[\uD800-\uDFFF]/.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, "")) ||
          s.trim() !== s ||
          s.length === 0;
        expect(executionSchema.safeParse(exec({ id: s })).success).toBe(!bad);
      }),
      { seed: 21, numRuns: 500 },
    );
  });
});

describe("capability dependencies", () => {
  it("a capability depending on itself is refused at dependsOn[k]", () => {
    expect(fieldsOf(capabilitySchema.safeParse({ id: "c", dependsOn: ["b", "c"] }))).toEqual(["dependsOn.1"]);
  });
  it("a cycle in the file is refused at the edge that closes it", () => {
    const r = catalogSchema.safeParse({
      tools: [],
      capabilities: [
        { id: "a", dependsOn: ["b"] },
        { id: "b", dependsOn: ["c"] },
        { id: "c", dependsOn: ["a"] },
      ],
    });
    const f = fieldsOf(r);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatch(/^capabilities\.[0-2]\.dependsOn\.0$/);
    expect(r.error!.issues[0]!.message).toMatch(/closes a dependsOn cycle: (a|b|c) → .* → \1/);
  });
  it("dependencyCycle: none in a DAG, found in a cycle (hand-checked)", () => {
    expect(
      dependencyCycle(
        new Map([
          ["a", ["b", "c"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toBeUndefined();
    expect(
      dependencyCycle(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["b"]],
        ]),
      ),
    ).toEqual(["b", "c", "b"]);
  });
});

describe("safeIdList", () => {
  const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
    r.success ? [] : r.error!.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`);
  // The per-element reading it replaces (each element a safeId, then the list's bounds).
  const plain = (b: { min?: number; max: number }, idMax: number) => {
    const l = z.array(safeId(idMax));
    return (b.min !== undefined ? l.min(b.min) : l).max(b.max);
  };

  it("property: on lists of strings, accepts, outputs and reports (field and message, in order) as z.array(safeId)", () => {
    const id = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.constantFrom("", " a", "a ", "ok", "x".repeat(13), "a\u0000b", "\u2028", "tool.id"),
    );
    fc.assert(
      fc.property(
        fc.array(id, { maxLength: 8 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 3, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (ids, min, max, idMax) => {
          const a = safeIdList({ min, max }, idMax).safeParse(ids);
          const b = plain({ min, max }, idMax).safeParse(ids);
          expect(a.success).toBe(b.success);
          if (a.success && b.success) expect(a.data).toEqual(b.data);
          expect(issues(a)).toEqual(issues(b));
        },
      ),
      { seed: 22, numRuns: 1_000 },
    );
  });

  it("a list holding a non-string reports the type errors only (the first problem is the same)", () => {
    const r = safeIdList({ max: 5 }).safeParse([3, " a"]);
    expect(issues(r)).toEqual(["0: Invalid input: expected string, received number"]);
    expect(issues(plain({ max: 5 }, LIMITS.idLength).safeParse([3, " a"]))[0]).toBe(issues(r)[0]);
  });

  it("declares the same JSON Schema as the per-element form", () => {
    expect(z.toJSONSchema(safeIdList({ min: 1, max: 200 }, 256))).toEqual(
      z.toJSONSchema(plain({ min: 1, max: 200 }, 256)),
    );
  });
});
