/** The text half of MCP tool results: one line per item, and a gated-out answer that says why. */
import { describe, expect, it } from "vitest";
import { gateText, isGatedOut, itemLine, summarize } from "../../src/mcp/summary.ts";

const accepted = {
  tool: "git.push",
  name: "push",
  score: 0.8123,
  gate: { decision: "accepted", confidence: "high", threshold: 0.6 },
  explanation: "git.push: 0.812 = …",
};
const abstained = {
  tool: "web.get",
  score: 0.5,
  gate: { decision: "abstained", confidence: "low", threshold: 0.7, gap: 0.2 },
  explanation: "weak",
};

describe("gateText", () => {
  it("accepted shows the confidence", () => {
    expect(gateText(accepted.gate)).toBe("accepted (high)");
  });
  it("abstained shows the gap and the threshold", () => {
    expect(gateText(abstained.gate)).toBe("abstained: 0.200 below threshold 0.700");
  });
  it("no gate gives nothing", () => {
    expect(gateText(undefined)).toBeUndefined();
  });
});

describe("itemLine", () => {
  it("has rank, id, name, score, decision and the explanation", () => {
    expect(itemLine(accepted, 1)).toBe("1. git.push (push) — score 0.812 — accepted (high)\n   git.push: 0.812 = …");
  });
  it("prefers the confidence when the item has one", () => {
    expect(itemLine({ tool: "a", score: 0.1, confidence: 0.25 }, 2)).toBe("2. a — confidence 0.250");
  });
  it("clips a long explanation", () => {
    const line = itemLine({ tool: "a", explanation: "x".repeat(1000) }, 1);
    expect(line.length).toBeLessThan(300);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("isGatedOut", () => {
  it("true for the abstained flag", () => {
    expect(isGatedOut({ abstained: true, results: [accepted] })).toBe(true);
  });
  it("true for an empty accepted list", () => {
    expect(isGatedOut({ accepted: [], results: [] })).toBe(true);
  });
  it("true when every item abstained", () => {
    expect(isGatedOut({ results: [abstained] })).toBe(true);
  });
  it("false when one item is accepted", () => {
    expect(isGatedOut({ results: [abstained, accepted], accepted: ["git.push"] })).toBe(false);
  });
});

describe("summarize", () => {
  it("lists the items under a headline with the accepted ones", () => {
    const text = summarize('for "push"', { results: [accepted], accepted: ["git.push"], abstained: false });
    expect(text.split("\n")).toEqual([
      '1 results for "push"',
      "accepted: git.push",
      "1. git.push (push) — score 0.812 — accepted (high)",
      "   git.push: 0.812 = …",
    ]);
  });

  it("a gated-out answer says why and names the fallbacks", () => {
    const text = summarize("alternatives to web.search", {
      results: [abstained],
      accepted: [],
      abstained: true,
      reason: "no substitute reached the threshold",
      fallbacks: ["docs.search"],
    });
    expect(text).toContain(
      "No confident answer (gated out): no substitute reached the threshold. Fallback tools: docs.search.",
    );
    expect(text).toContain("1. web.get — score 0.500 — abstained: 0.200 below threshold 0.700");
  });

  it("an empty answer with a reason gives the reason", () => {
    const text = summarize("after git.status", {
      suggestions: [],
      accepted: [],
      abstained: true,
      reason: "no candidate follows this context",
    });
    expect(text).toContain("0 suggestions after git.status");
    expect(text).toContain("no candidate follows this context");
  });

  it("a DAG lists its layers and edges", () => {
    const text = summarize("execution DAG of 3 tools", {
      layers: [["git.commit"], ["git.push", "ci.build"]],
      edges: [{ from: "git.commit", to: "git.push" }],
    });
    expect(text).toContain("layer 1: git.commit");
    expect(text).toContain("layer 2: git.push, ci.build");
    expect(text).toContain("edges: git.commit → git.push");
  });

  it("an unknown shape falls back to compact JSON", () => {
    expect(summarize("recorded execution e1", { inserted: 1 })).toBe('recorded execution e1: {"inserted":1}');
  });
});

describe("summarize: DAG nodes and plans", () => {
  it("groups DAG nodes by their layer", () => {
    const text = summarize("execution DAG of 3 tools", {
      nodes: [
        { tool: "b", layer: 1 },
        { tool: "a", layer: 0 },
        { tool: "c", layer: 1 },
      ],
    });
    expect(text.split("\n")).toEqual(["execution DAG of 3 tools", "layer 1: a", "layer 2: b, c"]);
  });

  it("lists plan tools with why they were chosen", () => {
    const text = summarize('plan for "x"', { tools: [{ tool: "git.commit", why: "chosen by search" }] });
    expect(text).toContain("1. git.commit — chosen by search");
  });
});
