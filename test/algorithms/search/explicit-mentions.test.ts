import { describe, expect, it } from "vitest";
import { buildMentionIndex, editDistance, findMentions } from "../../../algorithms/search/explicit-mentions.ts";

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
    expect(findMentions("call creat_pull_request now", idx)).toEqual([{ index: 0, word: "creat_pull_request", match: "close-spelling" }]);
  });

  it("never matches plain words", () => {
    expect(findMentions("please read the file and create a pull request", idx)).toEqual([]);
  });

  it("computes edit distances by hand", () => {
    expect(editDistance("kitten", "sitting", 5)).toBe(3);
    expect(editDistance("abc", "abc", 1)).toBe(0);
    expect(editDistance("abcdef", "abc", 1)).toBe(2); // early exit above max reports max + 1
  });
});
