import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildMentionIndex,
  editDistance,
  findMentions,
  withinOneEdit,
} from "../../../algorithms/search/explicit-mentions.ts";

const idx = buildMentionIndex([
  { index: 0, id: "github.create_pull_request", name: "create_pull_request" },
  { index: 1, id: "slack.post_message", name: "postMessage" },
  { index: 2, id: "fs.read", name: "read" },
]);

describe("explicit mentions", () => {
  it("finds tools named by id or by a code-like name, in order, once each", () => {
    const m = findMentions("use slack.post_message then create_pull_request, and slack.post_message again", idx);
    expect(m).toEqual([
      { index: 1, word: "slack.post_message", match: "id" },
      { index: 0, word: "create_pull_request", match: "name" },
    ]);
  });

  it("accepts one typo in a long identifier", () => {
    expect(findMentions("call creat_pull_request now", idx)).toEqual([
      { index: 0, word: "creat_pull_request", match: "close-spelling" },
    ]);
  });

  it("never matches plain words", () => {
    expect(findMentions("please read the file and create a pull request", idx)).toEqual([]);
  });

  it("computes edit distances by hand", () => {
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("abc", "abc", 1)).toBe(0);
    expect(editDistance("abcdef", "abc", 1)).toBe(2); // early exit above max reports max + 1
  });

  it("withinOneEdit is editDistance ≤ 1 (hand cases and a property over a small alphabet)", () => {
    expect(withinOneEdit("github_create_issue", "github_create_isue")).toBe(true); // one deletion
    expect(withinOneEdit("github_create_issue", "github_create_issuf")).toBe(true); // one substitution
    expect(withinOneEdit("github_create_issue", "github_cerate_issue")).toBe(false); // transposition = 2
    expect(withinOneEdit("abc", "abc")).toBe(true);
    expect(withinOneEdit("abcd", "ab")).toBe(false);
    expect(withinOneEdit("", "a")).toBe(true);
    const word = fc.string({ unit: fc.constantFrom("a", "b", "c", "_"), maxLength: 7 });
    fc.assert(
      fc.property(word, word, (a, b) => withinOneEdit(a, b) === editDistance(a, b, 1) <= 1),
      { numRuns: 2000 },
    );
    // Near pairs (one random edit of a word) exercise the true side more often.
    fc.assert(
      fc.property(
        word,
        fc.nat(8),
        fc.constantFrom("a", "b", "c", "_"),
        fc.constantFrom("ins", "del", "sub"),
        (a, at, ch, op) => {
          const k = Math.min(at, a.length);
          const b =
            op === "ins"
              ? a.slice(0, k) + ch + a.slice(k)
              : op === "del"
                ? a.slice(0, k) + a.slice(k + 1)
                : a.slice(0, k) + ch + a.slice(k + 1);
          return withinOneEdit(a, b) === editDistance(a, b, 1) <= 1 && withinOneEdit(b, a) === withinOneEdit(a, b);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
