import { describe, expect, it } from "vitest";
import { baseRate, blendedWeight, consumerRate, firstShare } from "../../../algorithms/dag/rates.ts";

describe("DAG rates", () => {
  it("consumerRate = min(1, consumed / executions), 0 without runs", () => {
    expect(consumerRate(3, 4)).toBe(0.75);
    expect(consumerRate(6, 4)).toBe(1);
    expect(consumerRate(2, 0)).toBe(0);
  });

  it("baseRate = dependencies / executions, 0 without runs", () => {
    expect(baseRate(5, 20)).toBe(0.25);
    expect(baseRate(0, 0)).toBe(0);
  });

  it("firstShare = out / (out + in), ½ with no succession", () => {
    expect(firstShare(3, 1)).toBe(0.75);
    expect(firstShare(0, 2)).toBe(0);
    expect(firstShare(0, 0)).toBe(0.5);
  });

  it("blendedWeight = max(dependency, 0.5·history)", () => {
    expect(blendedWeight(0.3, 0.8)).toBe(0.4);
    expect(blendedWeight(0.6, 0.8)).toBe(0.6);
  });
});
