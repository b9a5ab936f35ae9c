import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExecutionMemoryRow } from "../../src/store/reads.ts";
import { type MemoryIndex, memoryRow, toMemoryRows } from "../../src/view/intent-memory.ts";
import { appendMemoryRowsSteps } from "../../src/view/memory-rows.ts";

const row = (
  id: string,
  user: string | null,
  capability: string | null,
  at: number,
  success: boolean,
  steps: [string, boolean][],
): ExecutionMemoryRow => ({
  id,
  user,
  intent: `intent of ${id}`,
  intentHash: "h",
  capability,
  startedAt: new Date(at),
  recordedAt: at + 1,
  success,
  steps: steps.map(([tool, ok]) => ({ tool, success: ok })),
});

/** A memory index holding just the rows (texts: one per row, in order). */
function withRows(rows: ExecutionMemoryRow[]): MemoryIndex {
  return {
    rows: toMemoryRows(rows),
    texts: rows.map((r) => r.intent),
    textOf: Int32Array.from(rows.keys()),
  } as unknown as MemoryIndex;
}

describe("memory rows in columns", () => {
  it("interns users, capabilities and tools and lays steps out in CSR order", () => {
    const rows = [
      row("e1", "ann", null, 1000, true, [
        ["a", true],
        ["b", false],
      ]),
      row("e2", null, "cap", 2000, false, []),
      row("e3", "ann", "cap", 3000, true, [["b", true]]),
    ];
    const c = toMemoryRows(rows);
    expect(c.length).toBe(3);
    expect(c.users).toEqual(["ann"]);
    expect([...c.userOf]).toEqual([0, -1, 0]);
    expect(c.capabilities).toEqual(["cap"]);
    expect([...c.capabilityOf]).toEqual([-1, 0, 0]);
    expect([...c.stepOffsets]).toEqual([0, 2, 2, 3]);
    expect(c.stepTools).toEqual(["a", "b"]);
    expect([...c.stepTool]).toEqual([0, 1, 1]);
    expect([...c.stepSuccess]).toEqual([1, 0, 1]);
    expect([...c.startedAt]).toEqual([1000, 2000, 3000]);
    expect([...c.recordedAt]).toEqual([1001, 2001, 3001]);
    expect([...c.success]).toEqual([1, 0, 1]);
  });

  it("memoryRow gives back every field of every row (property)", () => {
    const arbRow = fc.record({
      user: fc.option(fc.constantFrom("u1", "u2", "u3"), { nil: null }),
      capability: fc.option(fc.constantFrom("c1", "c2"), { nil: null }),
      at: fc.integer({ min: 0, max: 2 ** 40 }),
      success: fc.boolean(),
      steps: fc.array(fc.tuple(fc.constantFrom("t1", "t2", "t3", "t4"), fc.boolean()), { maxLength: 6 }),
    });
    fc.assert(
      fc.property(fc.array(arbRow, { maxLength: 12 }), (spec) => {
        const rows = spec.map((s, i) => row(`e${i}`, s.user, s.capability, s.at, s.success, s.steps));
        const mem = withRows(rows);
        rows.forEach((r, i) => {
          expect(memoryRow(mem, i)).toEqual({
            id: r.id,
            intent: r.intent,
            user: r.user,
            capability: r.capability,
            startedAt: r.startedAt.getTime(),
            success: r.success,
            steps: r.steps,
          });
        });
      }),
    );
  });

  it("in steps: 5,000 rows pause twice and give back every row, as toMemoryRows lays them out", () => {
    const rows = Array.from({ length: 5000 }, (_, i) =>
      row(`e${i}`, i % 3 === 0 ? null : `u${i % 7}`, i % 5 === 0 ? "cap" : null, 1000 * i, i % 2 === 0, [
        [`t${i % 11}`, true],
        [`t${(i * 7) % 13}`, i % 4 !== 0],
      ]),
    );
    const steps = appendMemoryRowsSteps(undefined, rows);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBe(2);
    expect(r.value).toEqual(toMemoryRows(rows));
    const mem = { rows: r.value, texts: rows.map((x) => x.intent), textOf: Int32Array.from(rows.keys()) };
    rows.forEach((x, i) => {
      expect(memoryRow(mem as unknown as MemoryIndex, i)).toEqual({
        id: x.id,
        intent: x.intent,
        user: x.user,
        capability: x.capability,
        startedAt: x.startedAt.getTime(),
        success: x.success,
        steps: x.steps,
      });
    });
  });
});
