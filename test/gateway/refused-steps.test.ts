import { describe, expect, it } from "vitest";
import type { RecordedExecution } from "../../src/gateway/recorded-execution.ts";
import { catalogCanHold, withoutRefusedSteps } from "../../src/gateway/refused-steps.ts";

const step = (tool: string, dependsOn: number[] = [], success = true) => ({
  tool,
  success,
  durationMs: 1,
  at: "2026-01-01T00:00:00.000Z",
  dependsOn,
});
const exec = (steps: RecordedExecution["steps"], success = true): RecordedExecution => ({
  id: "x",
  startedAt: "2026-01-01T00:00:00.000Z",
  success,
  steps,
});

describe("withoutRefusedSteps", () => {
  it("drops refused steps and renumbers the edges of the others (worked by hand)", () => {
    // a0 ← b1 (refused) ← c2, a0 ← c2, d3 ← c2: without b, c depends on a (0) only, d on c (now 1).
    const e = exec([step("s.a"), step("s.b", [0]), step("s.c", [0, 1]), step("s.d", [2])], false);
    const out = withoutRefusedSteps(e, (t) => t !== "s.b")!;
    expect(out.steps.map((s) => [s.tool, s.dependsOn])).toEqual([
      ["s.a", []],
      ["s.c", [0]],
      ["s.d", [1]],
    ]);
    expect(out.success).toBe(false); // the execution keeps its own outcome
    expect(e.steps).toHaveLength(4); // the input is not changed
  });

  it("returns the same object when every step is usable, undefined when none is", () => {
    const e = exec([step("s.a"), step("s.b", [0])]);
    expect(withoutRefusedSteps(e, () => true)).toBe(e);
    expect(withoutRefusedSteps(e, () => false)).toBeUndefined();
  });
});

describe("catalogCanHold", () => {
  it("refuses control and format characters, padding, empty and over-long ids", () => {
    expect(catalogCanHold("fs.read_file")).toBe(true);
    expect(catalogCanHold("évaluer.données")).toBe(true);
    for (const bad of ["evil.ctl\u0001name", "a\u200bb", " fs.x", "", "x".repeat(257), "a\u2028b"])
      expect(catalogCanHold(bad)).toBe(false);
  });
});
