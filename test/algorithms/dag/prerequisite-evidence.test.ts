import { describe, expect, it } from "vitest";
import { describeEvidence, prerequisiteEvidence, ranBefore } from "../../../algorithms/dag/prerequisite-evidence.ts";

const none = { declared: () => false, past: [] as string[][] };

describe("prerequisiteEvidence", () => {
  it("a learned edge alone is no evidence", () => {
    expect(prerequisiteEvidence("github.get_issue", "fs.search_files", none)).toBeUndefined();
  });

  it("a declared edge comes first", () => {
    const e = prerequisiteEvidence("a", "b", {
      ...none,
      declared: (u, v) => u === "a" && v === "b",
      capability: { id: "cap", tools: new Set(["a", "b"]) },
    });
    expect(e).toEqual({ kind: "declared" });
    expect(describeEvidence(e!, "b")).toBe("declared dependency edge");
  });

  it("the matched capability must list both ends", () => {
    const capability = { id: "edit-code", tools: new Set(["fs.search_files", "fs.read_file"]) };
    expect(prerequisiteEvidence("fs.search_files", "fs.read_file", { ...none, capability })).toEqual({
      kind: "capability",
      capability: "edit-code",
    });
    expect(prerequisiteEvidence("github.get_issue", "fs.search_files", { ...none, capability })).toBeUndefined();
    expect(describeEvidence({ kind: "capability", capability: "edit-code" }, "fs.read_file")).toBe(
      "both in the matched capability edit-code",
    );
  });

  it("matched past requests count when the prerequisite ran before the dependent", () => {
    const past = [
      ["a", "x", "b"], // a before b
      ["b", "a"], // a after b only
      ["b", "a", "b"], // a before the second b
      ["x"],
    ];
    const e = prerequisiteEvidence("a", "b", { ...none, past });
    expect(e).toEqual({ kind: "memory", executions: 2, of: 4 });
    expect(describeEvidence(e!, "b")).toBe("ran before b in 2 of 4 matched past requests");
    expect(describeEvidence({ kind: "memory", executions: 1, of: 1 }, "b")).toBe(
      "ran before b in 1 of 1 matched past request",
    );
  });

  it("ranBefore: u's first occurrence before v's last", () => {
    expect(ranBefore(["a", "b"], "a", "b")).toBe(true);
    expect(ranBefore(["b", "a"], "a", "b")).toBe(false);
    expect(ranBefore(["a"], "a", "b")).toBe(false);
    expect(ranBefore([], "a", "b")).toBe(false);
  });
});
