import { describe, expect, it } from "vitest";
import { globalSignal } from "../../../algorithms/search/global-signal.ts";

describe("globalSignal", () => {
  it("mixes PageRank and log-scaled successes by hand", () => {
    // successes 0, 1, 3 → max 3, ln 4; usage = 0, ln2/ln4 = 0.5, 1
    const g = globalSignal([0.2, 0.4, 1], [0, 1, 3], 3);
    expect(g[0]).toBeCloseTo(0.1, 12);
    expect(g[1]).toBeCloseTo(0.5 * 0.4 + 0.5 * 0.5, 12);
    expect(g[2]).toBe(1);
  });

  it("has no usage term when no tool succeeded", () => {
    expect(Array.from(globalSignal([0.6, 0], [0, 0], 2))).toEqual([0.3, 0]);
  });

  it("uses the given maximum (leave-one-out) instead of the array's", () => {
    // ln(1+1)/ln(1+3) = 0.5 with max 3 although the array's max is 1
    expect(globalSignal([0], [1], 1, 3)[0]).toBeCloseTo(0.25, 12);
  });

  it("a tool with successes never scores below the same PageRank without", () => {
    const g = globalSignal([0.3, 0.3], [0, 5], 2);
    expect(g[1]!).toBeGreaterThan(g[0]!);
  });
});
