/**
 * toolIdRank: each tool's position in the ascending order of tool ids (JavaScript `<` on strings, the order the
 * next-step answer breaks ties by), built once per catalog and kept across in-place patches.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toolIdRank } from "../../src/jobs/next.ts";
import type { ToolRow } from "../../src/store/reads.ts";
import { GraphSnapshot } from "../../src/view/graph-snapshot.ts";

function tool(id: string): ToolRow {
  return {
    id,
    name: id,
    description: "",
    inputSchema: null,
    outputSchema: null,
    tags: [],
    examples: [],
    antiPatterns: [],
    costEstimate: null,
    avgLatencyMs: null,
    safetyTags: [],
    server: null,
    autoRegistered: false,
    available: true,
    textHash: "",
    addedAt: 0,
  };
}

describe("toolIdRank", () => {
  it("ranks hand-picked ids by code unit order (uppercase before lowercase, 'a.b' before 'a_b', shorter prefix first)", () => {
    const ids = ["git.push", "Git.push", "a_b", "a.b", "a", "é", "z"];
    const s = new GraphSnapshot({
      project: "p",
      version: 1,
      tools: ids.map(tool),
      edges: [],
      stats: [],
      capabilities: [],
    });
    const rank = toolIdRank(s);
    // Sorted: "Git.push" < "a" < "a.b" < "a_b" < "git.push" < "z" < "é"
    expect(Array.from(rank)).toEqual([4, 0, 3, 2, 1, 6, 5]);
    expect(toolIdRank(s)).toBe(rank); // derived state: built once
  });

  it("property: rank[i] < rank[j] exactly when id i < id j, and the ranks are 0..n-1", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ unit: "binary", minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 40 }),
        (ids) => {
          const s = new GraphSnapshot({
            project: "p",
            version: 1,
            tools: ids.map(tool),
            edges: [],
            stats: [],
            capabilities: [],
          });
          const rank = toolIdRank(s);
          expect([...rank].sort((a, b) => a - b)).toEqual(ids.map((_, i) => i));
          for (let i = 0; i < ids.length; i++)
            for (let j = 0; j < ids.length; j++) if (i !== j) expect(rank[i]! < rank[j]!).toBe(ids[i]! < ids[j]!);
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});
