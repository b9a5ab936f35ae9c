import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  groupFolds,
  type IntentItem,
  intentGroups,
  intentGroupsSteps,
} from "../../../algorithms/evaluation/intent-groups.ts";
import { tokenize } from "../../../algorithms/search/tokenize.ts";

const members = (g: ReturnType<typeof intentGroups>, i: number) => g.group[i];

describe("intentGroups", () => {
  it("groups exact repeats and near-duplicates, keeps different requests apart (hand-checked Jaccard)", () => {
    const items: IntentItem[] = [
      { intent: "delete an old file from the workspace" }, // {delet, old, file, workspac}
      { intent: "Delete the old file from the workspace" }, // same tokens: J = 1
      { intent: "delete old file in workspace now" }, // {delet, old, file, workspac, now}: J = 4/5
      { intent: "describe the columns of the users table" }, // {describ, column, user, tabl}
      { intent: "merge the approved pull request" }, // {merg, approv, pull, request}
      { intent: "open a pull request" }, // {open, pull, request}: J with 4 = 2/5 = 0.4 < 0.5, no tools
    ];
    const g = intentGroups(items);
    expect(g.count).toBe(4);
    expect(members(g, 1)).toBe(members(g, 0));
    expect(members(g, 2)).toBe(members(g, 0));
    expect(new Set([g.group[0], g.group[3], g.group[4], g.group[5]]).size).toBe(4);
    expect([...g.group]).toEqual([0, 0, 0, 1, 2, 3]);
  });

  it("groups a looser paraphrase only when the same tools ran (J = 0.4 ≥ 0.25)", () => {
    const a = { intent: "merge the approved pull request", tools: ["github.merge_pull_request"] };
    const b = { intent: "open a pull request", tools: ["github.merge_pull_request"] };
    const c = { intent: "open a pull request", tools: ["github.create_pull_request"] };
    expect(intentGroups([a, b]).count).toBe(1);
    expect(intentGroups([a, c]).count).toBe(2);
    // Tool order and repeats do not matter; no tools never counts as "the same tools".
    expect(
      intentGroups([
        { ...a, tools: ["x", "y", "x"] },
        { ...b, tools: ["y", "x"] },
      ]).count,
    ).toBe(1);
    expect(
      intentGroups([
        { intent: a.intent, tools: [] },
        { intent: b.intent, tools: [] },
      ]).count,
    ).toBe(2);
  });

  it("chains near-duplicates transitively (connected components)", () => {
    // a~b: {x,y,z,w} vs {x,y,z,v} J = 3/5; b~c: {x,y,z,v} vs {x,y,v,u} J = 3/5; a vs c: 2/6 < 0.5.
    const g = intentGroups([
      { intent: "xray yak zebra wolf" },
      { intent: "xray yak zebra viper" },
      { intent: "xray yak viper urchin" },
    ]);
    expect(g.count).toBe(1);
  });

  it("an intent of stopwords only groups with the same text only", () => {
    const g = intentGroups([{ intent: "do it" }, { intent: " DO IT " }, { intent: "it is" }]);
    expect([...g.group]).toEqual([0, 0, 1]);
  });

  it("rejects bad thresholds naming the field", () => {
    expect(() => intentGroups([], { duplicateJaccard: 0 })).toThrow(/duplicateJaccard/);
    expect(() => intentGroups([], { duplicateJaccard: 0.5, sameToolsJaccard: 0.6 })).toThrow(/sameToolsJaccard/);
    expect(() => groupFolds(intentGroups([]), 1)).toThrow(/folds/);
  });

  const word = fc.constantFrom(
    "deploy",
    "prod",
    "file",
    "delete",
    "merge",
    "pull",
    "request",
    "table",
    "users",
    "now",
    "old",
    "alert",
  );
  const item = fc.record({
    intent: fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(" ")),
    tools: fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 2 }),
  });

  it("property: matches a brute-force all-pairs union–find, whatever the order of the items", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 25 }), (items) => {
        const g = intentGroups(items);
        // Brute force: every pair compared.
        const tok = items.map((x) => new Set(tokenize(x.intent)));
        const same = (x: IntentItem, y: IntentItem) => {
          const a = [...new Set(x.tools)].sort().join(",");
          return a !== "" && a === [...new Set(y.tools)].sort().join(",");
        };
        for (let i = 0; i < items.length; i++)
          for (let j = i + 1; j < items.length; j++) {
            const inter = [...tok[i]!].filter((w) => tok[j]!.has(w)).length;
            const jac = inter / (tok[i]!.size + tok[j]!.size - inter);
            if (jac >= 0.5 || (jac >= 0.25 && same(items[i]!, items[j]!))) expect(g.group[i]).toBe(g.group[j]);
          }
        // Order independence: the partition of a reversed list is the same partition.
        const r = intentGroups([...items].reverse());
        for (let i = 0; i < items.length; i++)
          for (let j = 0; j < items.length; j++) {
            const n = items.length - 1;
            expect(g.group[i] === g.group[j]).toBe(r.group[n - i] === r.group[n - j]);
          }
      }),
      { numRuns: 150 },
    );
  });

  it("property: groupFolds keeps a group in one fold, balances, fills every fold, ignores item order", () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 40 }), fc.integer({ min: 2, max: 6 }), (items, k) => {
        const g = intentGroups(items);
        const f = groupFolds(g, k);
        const foldOfGroup = new Map<number, number>();
        for (let i = 0; i < items.length; i++) {
          const prev = foldOfGroup.get(g.group[i]!);
          if (prev !== undefined) expect(f[i]).toBe(prev);
          foldOfGroup.set(g.group[i]!, f[i]!);
          expect(f[i]).toBeGreaterThanOrEqual(0);
          expect(f[i]).toBeLessThan(k);
        }
        if (g.count >= k) expect(new Set(f).size).toBe(k);
        const r = [...items].reverse();
        const fr = groupFolds(intentGroups(r), k);
        for (let i = 0; i < items.length; i++) expect(fr[items.length - 1 - i]).toBe(f[i]);
      }),
      { numRuns: 150 },
    );
  });
});

describe("intentGroupsSteps", () => {
  it("returns what intentGroups returns, yielding between steps (1,200 items of 40 repeated requests)", () => {
    const verbs = ["delete", "merge", "describe", "open", "rename", "archive", "copy", "list"];
    const things = ["file", "pull request", "table", "branch", "folder"];
    const items: IntentItem[] = Array.from({ length: 1200 }, (_, i) => ({
      intent: `${verbs[i % 8]} the ${things[(i >> 3) % 5]}${i % 3 === 0 ? " now" : ""}`,
      tools: [`t${i % 7}`],
    }));
    const steps = intentGroupsSteps(items);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    expect(yields).toBeGreaterThan(2);
    expect(r.value).toEqual(intentGroups(items));
  });

  it("property: stepping never changes the groups", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            intent: fc.constantFrom("open a file", "open the file now", "close a branch", "merge it", "", "list all"),
            tools: fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 2 }),
          }),
          { maxLength: 1200 },
        ),
        (items) => {
          const steps = intentGroupsSteps(items);
          let r = steps.next();
          while (!r.done) r = steps.next();
          expect(r.value).toEqual(intentGroups(items));
        },
      ),
      { numRuns: 30 },
    );
  });

  it("pauses inside a node's candidates: 1,000 distinct intents sharing a word meet ~500k pairs", () => {
    const items: IntentItem[] = Array.from({ length: 1000 }, (_, i) => ({ intent: `w${i} shared`, tools: ["a"] }));
    const steps = intentGroupsSteps(items);
    let yields = 0;
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    // One per 500 items in each of the two passes over the items, one per 500 nodes, one between each of the
    // three passes, and one per 2,000 of the 499,500 pairs compared (249).
    expect(yields).toBe(1 + 1 + 1 + 2 + Math.floor(499_500 / 2000));
    expect(r.value).toEqual(intentGroups(items));
  });
});
