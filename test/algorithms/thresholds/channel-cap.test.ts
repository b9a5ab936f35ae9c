import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capForChannels, LEXICAL_ONLY_REASON } from "../../../algorithms/thresholds/channel-cap.ts";
import { capForSafety, SUSPICIOUS_REASON } from "../../../algorithms/thresholds/safety-cap.ts";

const tier = (decision: "accepted" | "accepted-with-caution" | "abstained", confidence: "high" | "medium" | "low") => ({
  decision,
  confidence,
  caution: decision === "accepted-with-caution",
  threshold: 0.7,
});
const lexicalOnly = { lexical: true, embedding: false, graph: true };
const all = { lexical: true, embedding: true, graph: true };

describe("capForChannels", () => {
  it("turns an accepted lexical-only answer into accepted-with-caution, medium, with the reason", () => {
    expect(capForChannels(tier("accepted", "high"), lexicalOnly)).toEqual({
      decision: "accepted-with-caution",
      confidence: "medium",
      caution: true,
      threshold: 0.7,
      reason: LEXICAL_ONLY_REASON,
    });
    expect(capForChannels(tier("accepted", "low"), lexicalOnly).confidence).toBe("low");
  });

  it("leaves full-channel answers and other decisions as they are (the same object)", () => {
    const a = tier("accepted", "high");
    expect(capForChannels(a, all)).toBe(a);
    const c = tier("accepted-with-caution", "medium");
    expect(capForChannels(c, lexicalOnly)).toBe(c);
    const x = tier("abstained", "low");
    expect(capForChannels(x, lexicalOnly)).toBe(x);
  });

  it("keeps the safety cap's reason when both apply (the first cap wins)", () => {
    const both = capForChannels(capForSafety(tier("accepted", "high"), ["suspicious"]), lexicalOnly);
    expect(both).toMatchObject({ decision: "accepted-with-caution", reason: SUSPICIOUS_REASON });
  });

  it("property: never raises a decision, never leaves a lexical-only answer accepted, idempotent", () => {
    const order = { abstained: 0, "accepted-with-caution": 1, accepted: 2 } as const;
    fc.assert(
      fc.property(
        fc.constantFrom("accepted", "accepted-with-caution", "abstained" as const),
        fc.constantFrom("high", "medium", "low" as const),
        fc.boolean(),
        (d, c, embedding) => {
          const t = tier(d as "accepted", c as "high");
          const live = { lexical: true, embedding, graph: true };
          const once = capForChannels(t, live);
          expect(order[once.decision]).toBeLessThanOrEqual(order[t.decision]);
          if (!embedding) expect(once.decision).not.toBe("accepted");
          expect(capForChannels(once, live)).toEqual(once);
        },
      ),
    );
  });
});
