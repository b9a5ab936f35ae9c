/**
 * The catalog parsed in steps (src/formats/parse.ts `parseCatalogSteps`) against the one-shot parse it stands
 * in for: the same catalog, byte for byte once serialized (key order included), or the same errors.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ImportError, parseCatalog, parseCatalogSteps } from "../../src/formats/parse.ts";

function drain<R>(steps: Generator<void, R>): { value: R; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

/** The one-shot answer: the parsed catalog serialized, or the error's line errors. */
function oneShot(input: string | { json: unknown }): string {
  try {
    return JSON.stringify(parseCatalog(input, "catalog.json"));
  } catch (err) {
    return JSON.stringify({ errors: (err as ImportError).errors });
  }
}

function stepped(input: string | { json: unknown }): string {
  try {
    return JSON.stringify(drain(parseCatalogSteps(input, "catalog.json")).value);
  } catch (err) {
    return JSON.stringify({ errors: (err as ImportError).errors });
  }
}

const tool = fc.record(
  {
    id: fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_.-]{0,12}$/), fc.constantFrom("", " pad", "dup")),
    name: fc.string({ maxLength: 12 }),
    description: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(7)),
    tags: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
    inputSchema: fc.constant({ type: "object", properties: { q: { type: "string" } } }),
    costEstimate: fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(-1)),
    extra: fc.constant(1),
  },
  { requiredKeys: ["id"] },
);
const capability = fc.record(
  {
    id: fc.stringMatching(/^cap[a-z0-9]{0,6}$/),
    description: fc.string({ maxLength: 12 }),
    tools: fc.array(fc.stringMatching(/^[a-z]{1,4}$/), { maxLength: 3 }),
    priority: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(0.5)),
  },
  { requiredKeys: ["id"] },
);
const catalog = fc.record(
  {
    tools: fc.oneof(fc.array(tool, { maxLength: 260 }), fc.constant("not a list")),
    capabilities: fc.array(capability, { maxLength: 4 }),
    settings: fc.oneof(fc.constant({ fallbackTools: ["a"] }), fc.constant({ other: 1 })),
    unknown: fc.constant(true),
  },
  { requiredKeys: [] },
);

describe("parseCatalogSteps", () => {
  it("answers exactly what parseCatalog answers, as a value or as JSON text", () => {
    fc.assert(
      fc.property(catalog, (c) => {
        expect(stepped({ json: c })).toBe(oneShot({ json: c }));
        const text = JSON.stringify(c, null, 1);
        expect(stepped(text)).toBe(oneShot(text));
      }),
      { numRuns: 150 },
    );
  });

  it("parses a valid 1,000-tool catalog in steps, to the same bytes", () => {
    const tools = Array.from({ length: 1000 }, (_, i) => ({
      id: `t${i}`,
      description: `tool ${i}`,
      tags: i % 3 === 0 ? ["x"] : [],
      ...(i % 2 === 0 ? { inputSchema: { type: "object", properties: { q: { type: "string" } } } } : {}),
    }));
    const c = { tools, capabilities: [{ id: "c", tools: ["t1", "t2"], dependsOn: [] }], settings: {} };
    const { value, yields } = drain(parseCatalogSteps({ json: c }, "catalog.json"));
    expect(JSON.stringify(value)).toBe(oneShot({ json: c }));
    expect(value.tools).toHaveLength(1000);
    // One yield per 100 tools after the first hundred.
    expect(yields).toBe(9);
  });

  it("a duplicate id, a bad tool or text that is not JSON: parseCatalog's own errors", () => {
    for (const input of [
      { json: { tools: [{ id: "a" }, { id: "a" }] } },
      { json: { tools: [{ id: "a" }, { id: 3 }] } },
      { json: { tools: [], capabilities: [{ id: "c", dependsOn: ["c"] }] } },
      '{"tools": [',
    ]) {
      expect(stepped(input)).toBe(oneShot(input));
      expect(stepped(input)).toContain('"errors"');
    }
  });
});
