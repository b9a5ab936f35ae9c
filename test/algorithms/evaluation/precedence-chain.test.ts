import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { precedenceChain, precedenceCounts } from "../../../algorithms/evaluation/precedence-chain.ts";

describe("precedence-sorted chain", () => {
  // Executions: [a, b, c] twice, [c, a] once.
  // before: a>b 2, a>c 2, b>c 2, c>a 1.  share a>b = 3/4, a>c = 3/5, b>a = 1/4, b>c = 3/4, c>a = 2/5, c>b = 1/4.
  // score a = 0.75 + 0.6 = 1.35, b = 0.25 + 0.75 = 1.0, c = 0.4 + 0.25 = 0.65 → a, b, c.
  const counts = precedenceCounts([
    ["a", "b", "c"],
    ["a", "b", "c"],
    ["c", "a"],
  ]);

  it("counts each ordered pair once per execution", () => {
    expect(counts.get("a\u0000b")).toBe(2);
    expect(counts.get("c\u0000a")).toBe(1);
    expect(precedenceCounts([["a", "b", "a", "b"]]).get("a\u0000b")).toBe(1);
  });

  it("orders by score whatever the input order", () => {
    for (const tools of [
      ["c", "b", "a"],
      ["b", "a", "c"],
      ["a", "b", "c"],
    ]) {
      expect(precedenceChain(tools, counts)).toEqual({
        order: ["a", "b", "c"],
        edges: [
          ["a", "b"],
          ["b", "c"],
        ],
      });
    }
  });

  it("without evidence the order is by id", () => {
    expect(precedenceChain(["z", "m", "a"], new Map()).order).toEqual(["a", "m", "z"]);
  });

  it("property: permuting the tools never changes the chain", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 6 }), { maxLength: 8 }),
        fc.shuffledSubarray(["a", "b", "c", "d", "e"], { minLength: 5, maxLength: 5 }),
        (execs, tools) => {
          const c = precedenceCounts(execs);
          expect(precedenceChain(tools, c)).toEqual(precedenceChain(["a", "b", "c", "d", "e"], c));
        },
      ),
      { numRuns: 200, seed: 20 },
    );
  });
});
