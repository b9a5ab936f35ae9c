import { describe, expect, it } from "vitest";
import { alternativeScore, schemaJaccard } from "../../../algorithms/search/alternative-score.ts";

describe("alternativeScore", () => {
  it("0.5·cos⁺ + 0.2·community + 0.2·capability + 0.1·schema by hand", () => {
    expect(alternativeScore({ cosine: 0.8, sameCommunity: true, sharesCapability: false, schema: 0.5 })).toBeCloseTo(
      0.4 + 0.2 + 0.05,
      12,
    );
    expect(alternativeScore({ cosine: -0.3, sameCommunity: false, sharesCapability: false, schema: 0 })).toBe(0);
    expect(alternativeScore({ cosine: 1.2, sameCommunity: true, sharesCapability: true, schema: 1 })).toBeCloseTo(
      1,
      12,
    );
  });

  it("schemaJaccard: shared / union, 0 when both empty", () => {
    expect(schemaJaccard(new Set(["url", "timeout"]), new Set(["url", "headers", "body"]))).toBe(0.25);
    expect(schemaJaccard(new Set(), new Set())).toBe(0);
  });
});
