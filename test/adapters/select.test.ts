/** The adapters' shared choice from one gated answer, on hand-made answers (no database). */
import { describe, expect, it } from "vitest";
import { defaultToolId, NameMap, selectFrom } from "../../src/adapters/select.ts";
import type { SearchResult } from "../../src/index.ts";

const gate = (decision: string) => ({ decision, confidence: "low", caution: false, threshold: 0.7 });
/** A search answer with these tools, best first (scores 0.9, 0.8, …), the first one accepted. */
function answer(tools: string[], abstained: boolean, fallbacks?: string[]): SearchResult {
  const results = tools.map((tool, i) => ({
    tool,
    score: 0.9 - i / 10,
    explanation: `${tool} why`,
    gate: gate(i === 0 && !abstained ? "accepted" : "abstained"),
  }));
  return {
    results,
    abstained,
    ...(fallbacks ? { fallbacks } : {}),
    recommendationId: "rec_1",
  } as unknown as SearchResult;
}

const names = new NameMap(["git__commit", "git__push", "github__create_pull_request", "files__read"]);

describe("selectFrom", () => {
  it("takes the top k offered tools, skipping tools the caller does not offer, with 1-based ranks of the answer", () => {
    const s = selectFrom(
      answer(["git.commit", "slack.post_message", "git.push", "files.read"], false),
      "search",
      names,
      2,
      "all",
    );
    expect(s.names).toEqual(["git__commit", "git__push"]);
    expect(s.picked.map((p) => [p.tool, p.rank, p.score, p.decision])).toEqual([
      ["git.commit", 1, 0.9, "accepted"],
      ["git.push", 3, 0.7, "abstained"],
    ]);
    expect(s).toMatchObject({ source: "search", abstained: false, recommendationId: "rec_1" });
  });

  it("on an abstained answer: every tool, the answer's own, or the project's fallbacks then the named ones", () => {
    const a = answer(["git.push", "git.commit"], true, ["files.read", "not.offered"]);
    expect(selectFrom(a, "search", names, 1, "all")).toMatchObject({
      source: "fallback",
      abstained: true,
      names: names.names,
    });
    expect(selectFrom(a, "search", names, 1, "answer")).toMatchObject({
      source: "search",
      abstained: true,
      names: ["git__push"],
    });
    expect(selectFrom(a, "search", names, 1, ["git__commit", "files__read", "unknown"]).names).toEqual([
      "files__read",
      "git__commit",
    ]);
  });

  it("maps a name's first __ to the id's first dot, and refuses two names on one id", () => {
    expect(defaultToolId("github__create_pull_request")).toBe("github.create_pull_request");
    expect(defaultToolId("a__b__c")).toBe("a.b__c");
    expect(defaultToolId("__x")).toBe("__x");
    expect(defaultToolId("plain")).toBe("plain");
    expect(() => new NameMap(["a__b", "x"], { toolId: () => "same" })).toThrow(
      /^tools: the tools "a__b" and "x" map to the same toolgraph id "same"/,
    );
  });
});
