import { describe, expect, it } from "vitest";
import { learnEdges, learnSuccessions, successionsOf } from "../../../algorithms/graph/edge-learning.ts";

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
  it("successionsOf: each (from, to) once, provides is not a succession", () => {
    expect(
      successionsOf([
        { from: "a", to: "b", type: "sequence" },
        { from: "a", to: "b", type: "dependency" },
        { from: "a", to: "b", type: "contains" },
        { from: "a", to: "c", type: "provides" },
        { from: "b", to: "a", type: "sequence" },
      ]),
    ).toEqual([
      { from: "a", to: "b" },
      { from: "b", to: "a" },
    ]);
    expect(successionsOf([])).toEqual([]);
  });
});
