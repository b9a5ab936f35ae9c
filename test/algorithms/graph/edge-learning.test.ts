import { describe, expect, it } from "vitest";
import { learnEdges, learnSuccessions, successionCount } from "../../../algorithms/graph/edge-learning.ts";

describe("learnEdges / learnSuccessions", () => {
  it("a → b with dependsOn is one sequence and one dependency observation, but one succession", () => {
    const steps = [{ tool: "a" }, { tool: "b", dependsOn: [0] }];
    expect(learnEdges(steps)).toEqual([
      { from: "a", to: "b", type: "sequence" },
      { from: "a", to: "b", type: "dependency" },
    ]);
    expect(learnSuccessions(steps)).toEqual([{ from: "a", to: "b" }]);
  });
  it("a non-adjacent dependency is its own succession", () => {
    const steps = [{ tool: "a" }, { tool: "x" }, { tool: "b", dependsOn: [0] }];
    expect(learnSuccessions(steps)).toEqual([
      { from: "a", to: "x" },
      { from: "x", to: "b" },
      { from: "a", to: "b" },
    ]);
  });
  it("successionCount = max over the succession types (provides is not a succession)", () => {
    expect(successionCount({ sequence: 3, dependency: 3, contains: 0, provides: 9 })).toBe(3);
    expect(successionCount({ sequence: 1, dependency: 2, contains: 0, provides: 0 })).toBe(2);
    expect(successionCount({ sequence: 0, dependency: 0, contains: 0, provides: 0 })).toBe(0);
  });
});
