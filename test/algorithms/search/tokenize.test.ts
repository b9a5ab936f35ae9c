import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FIELD_WEIGHTS,
  splitWords,
  stem,
  tokenize,
  toolText,
  toolTextInput,
  toolTokens,
} from "../../../algorithms/search/tokenize.ts";

describe("splitWords", () => {
  it.each([
    ["readFile", ["read", "file"]],
    ["ReadFile", ["read", "file"]],
    ["HTTPServer", ["http", "server"]],
    ["getURLs", ["get", "urls"]],
    ["read_file", ["read", "file"]],
    ["read-file", ["read", "file"]],
    ["fs.read.file", ["fs", "read", "file"]],
    ["github:create_issue", ["github", "create", "issue"]],
    ["utf8", ["utf", "8"]],
    ["v2beta", ["v", "2", "beta"]],
    ["café", ["cafe"]],
    ["", []],
    ["  --  ", []],
  ])("%s", (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });
});

describe("splitWords against the plain regex split (fast path for lowercase and digit chunks)", () => {
  /** The header's rule written out: NFKD, marks dropped, split on non-alphanumerics, then at case and digit changes. */
  function reference(text: string): string[] {
    return text
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .split(/[^\p{L}\p{N}]+/u)
      .filter((c) => c.length > 0)
      .flatMap((c) =>
        c
          .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
          .replace(/(\p{Lu})(\p{Lu}\p{Ll}{2})/gu, "$1 $2")
          .replace(/(\p{L})(\p{N})/gu, "$1 $2")
          .replace(/(\p{N})(\p{L})/gu, "$1 $2")
          .split(" "),
      )
      .map((p) => p.toLowerCase());
  }

  it("property: the same words for text of lower and upper case, digits, accents, separators", () => {
    const char = fc.constantFrom(..."abcxyzABCXYZ0189 _-./éÉßİı٣\u00a0".split(""));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (cs) => {
        const text = cs.join("");
        expect(splitWords(text)).toEqual(reference(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("stem", () => {
  it.each([
    ["queries", "query"],
    ["classes", "class"],
    ["indexes", "index"],
    ["matches", "match"],
    ["files", "file"],
    ["status", "status"],
    ["analysis", "analysis"],
    ["copied", "copy"],
    ["reading", "read"],
    ["running", "run"],
    ["calling", "call"],
    ["stopped", "stop"],
    ["added", "add"],
    ["parsed", "pars"],
    ["parse", "pars"],
    ["create", "creat"],
    ["created", "creat"],
    ["creates", "creat"],
    ["creating", "creat"],
    ["file", "file"],
    ["use", "use"],
    ["s3", "s3"],
    ["v2", "v2"],
  ])("%s → %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe("tokenize", () => {
  it("drops stopwords, keeps negations, stems", () => {
    expect(tokenize("Read the files from a repository, not the cache")).toEqual([
      "read",
      "file",
      "repository",
      "not",
      "cach",
    ]);
  });

  it("keeps a case-split chunk whole as well", () => {
    expect(tokenize("GitHub")).toEqual(["github", "git", "hub"]);
    expect(tokenize("GitHub", { keepCompounds: false })).toEqual(["git", "hub"]);
  });

  it("without stemming returns the lowercase words", () => {
    expect(tokenize("Creating Files", { stem: false })).toEqual(["creating", "files"]);
  });

  it("empty text gives no tokens", () => {
    expect(tokenize("")).toEqual([]);
  });

  it("property: tokens are non-empty lowercase letters/digits only, and deterministic", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (s) => {
        const a = tokenize(s);
        for (const t of a) {
          expect(t.length).toBeGreaterThan(0);
          expect(t).toMatch(/^[\p{L}\p{N}]+$/u);
          expect(t).toBe(t.toLowerCase());
        }
        expect(tokenize(s)).toEqual(a);
      }),
    );
  });
});

describe("toolText / toolTokens", () => {
  const tool = {
    id: "github:create_issue",
    name: "createIssue",
    description: "Open a new issue",
    parameters: [{ name: "repo_name", description: "owner and repository" }, { name: "title" }],
    tags: ["tracker"],
    examples: ["report a bug"],
  };

  it("toolText lists each field once with identifiers split", () => {
    expect(toolText(tool)).toBe(
      "create issue: Open a new issue. Parameters: repo name (owner and repository), title. Tags: tracker. Examples: report a bug",
    );
  });

  it("toolText falls back to the id's words when there is no name", () => {
    expect(toolText({ id: "fs:read_file" })).toBe("fs read file");
  });

  it("toolTokens repeats fields by FIELD_WEIGHTS", () => {
    const toks = toolTokens(tool);
    const count = (t: string) => toks.filter((x) => x === t).length;
    // "issu": id once (1) + name ×3 + description once = 5
    expect(count("issu")).toBe(FIELD_WEIGHTS.id + FIELD_WEIGHTS.name + FIELD_WEIGHTS.description);
    // "tracker": tags ×2
    expect(count("tracker")).toBe(FIELD_WEIGHTS.tags);
    // "repo": parameter name ×1
    expect(count("repo")).toBe(1);
  });

  it("a field weight of 0 removes the field", () => {
    expect(toolTokens(tool, { fieldWeights: { tags: 0 } })).not.toContain("tracker");
  });
});

describe("toolTextInput", () => {
  it("takes the parameters from inputSchema.properties in order, a description only when it is a string", () => {
    const input = toolTextInput({
      id: "fs.read",
      name: "read",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { description: "file path" }, mode: { description: 3 } } },
      tags: ["files"],
      examples: ["read notes.txt"],
    });
    expect(input).toEqual({
      id: "fs.read",
      name: "read",
      description: "Read a file",
      parameters: [
        { name: "path", description: "file path" },
        { name: "mode", description: undefined },
      ],
      tags: ["files"],
      examples: ["read notes.txt"],
    });
    expect(
      toolTextInput({ id: "x", name: "x", description: "", inputSchema: null, tags: [], examples: [] }).parameters,
    ).toEqual([]);
  });
});
