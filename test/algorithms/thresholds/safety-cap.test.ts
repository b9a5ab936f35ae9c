import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capForSafety, SUSPICIOUS_REASON } from "../../../algorithms/thresholds/safety-cap.ts";

const tier = (decision: "accepted" | "accepted-with-caution" | "abstained", confidence: "high" | "medium" | "low") => ({
  decision,
  confidence,
  caution: decision === "accepted-with-caution",
  threshold: 0.7,
});

describe("capForSafety", () => {
  it("turns an accepted suspicious tool into accepted-with-caution, medium, with the reason", () => {
    expect(capForSafety(tier("accepted", "high"), ["destructive", "suspicious"])).toEqual({
      decision: "accepted-with-caution",
      confidence: "medium",
      caution: true,
      threshold: 0.7,
      reason: SUSPICIOUS_REASON,
    });
  });

  it("leaves other tools and other decisions as they are (the same object)", () => {
    const a = tier("accepted", "high");
    expect(capForSafety(a, ["destructive"])).toBe(a);
    const c = tier("accepted-with-caution", "medium");
    expect(capForSafety(c, ["suspicious"])).toBe(c);
    const x = tier("abstained", "low");
    expect(capForSafety(x, ["suspicious"])).toBe(x);
  });

  it("property: never raises a decision, never leaves a suspicious tool accepted, idempotent", () => {
    const order = { abstained: 0, "accepted-with-caution": 1, accepted: 2 } as const;
    fc.assert(
      fc.property(
        fc.constantFrom("accepted", "accepted-with-caution", "abstained" as const),
        fc.constantFrom("high", "medium", "low" as const),
        fc.subarray(["suspicious", "destructive", "network"]),
        (d, c, tags) => {
          const t = tier(d as "accepted", c as "high");
          const once = capForSafety(t, tags);
          expect(order[once.decision]).toBeLessThanOrEqual(order[t.decision]);
          if (tags.includes("suspicious")) expect(once.decision).not.toBe("accepted");
          expect(capForSafety(once, tags)).toEqual(once);
        },
      ),
    );
  });
});
