import { describe, expect, it } from "vitest";
import { pinVerdict, toolHash } from "../../../algorithms/safety/tool-pin.ts";

const now = "2026-01-02T00:00:00.000Z";
const base = { description: "reads", inputSchema: { type: "object", properties: { a: {}, b: {} } } };

describe("toolHash", () => {
  it("ignores key order, and moves with the description, the schemas and the annotations", () => {
    const h = toolHash(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(toolHash({ inputSchema: { properties: { b: {}, a: {} }, type: "object" }, description: "reads" })).toBe(h);
    expect(toolHash({ ...base, description: "reads!" })).not.toBe(h);
    expect(toolHash({ ...base, annotations: { destructiveHint: true } })).not.toBe(h);
    expect(toolHash({ ...base, outputSchema: { type: "object" } })).not.toBe(h);
  });
});

describe("pinVerdict", () => {
  const pin = { hash: "h1", firstSeen: "2026-01-01T00:00:00.000Z", description: "reads" };
  const opts = { autoApprove: false, now };

  it("pins a new tool, passes an unchanged one without a write", () => {
    expect(pinVerdict(undefined, { id: "fs.read", hash: "h1", description: "reads" }, opts)).toEqual({
      verdict: { state: "new" },
      next: { hash: "h1", firstSeen: now, description: "reads" },
    });
    expect(pinVerdict(pin, { id: "fs.read", hash: "h1", description: "reads" }, opts)).toEqual({
      verdict: { state: "pinned" },
    });
  });

  it("quarantines a change once (pending written once), re-pins it with autoApprove, forgets it when changed back", () => {
    const q = pinVerdict(pin, { id: "fs.read", hash: "h2", description: "now evil" }, opts);
    expect(q.verdict.state).toBe("quarantined");
    expect(q.verdict.state === "quarantined" && q.verdict.reason).toContain("toolgraph gateway approve fs.read");
    expect(q.next?.pending).toEqual({ hash: "h2", seen: now, description: "now evil" });
    expect(pinVerdict(q.next, { id: "fs.read", hash: "h2", description: "now evil" }, opts).next).toBeUndefined();
    expect(pinVerdict(pin, { id: "fs.read", hash: "h2", description: "x" }, { autoApprove: true, now })).toEqual({
      verdict: { state: "approved-change" },
      next: { hash: "h2", firstSeen: now, description: "x" },
    });
    const back = pinVerdict(q.next, { id: "fs.read", hash: "h1", description: "reads" }, opts);
    expect(back.verdict).toEqual({ state: "pinned" });
    expect(back.next?.pending).toBeUndefined();
  });
});
