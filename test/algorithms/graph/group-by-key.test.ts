import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupByKey } from "../../../algorithms/graph/group-by-key.ts";

describe("groupByKey", () => {
  it("hand-computed: [a, b, a, c, a, b] → keys a, b, c; offsets 0, 3, 5, 6; members by index, either order", () => {
    const up = groupByKey(["a", "b", "a", "c", "a", "b"]);
    expect(up.keys).toEqual(["a", "b", "c"]);
    expect(Array.from(up.groupOf)).toEqual([0, 1, 0, 2, 0, 1]);
    expect(Array.from(up.offsets)).toEqual([0, 3, 5, 6]);
    expect(Array.from(up.members)).toEqual([0, 2, 4, 1, 5, 3]);
    expect(Array.from(groupByKey(["a", "b", "a", "c", "a", "b"], "descending").members)).toEqual([4, 2, 0, 5, 1, 3]);
    expect(Array.from(groupByKey([]).offsets)).toEqual([0]);
  });
  it("property: every item appears once, in its own group", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("x", "y", "z", "w")), (ks) => {
        const g = groupByKey(ks);
        expect([...g.members].sort((p, q) => p - q)).toEqual(ks.map((_, i) => i));
        for (let k = 0; k < g.keys.length; k++) {
          for (let m = g.offsets[k]!; m < g.offsets[k + 1]!; m++) expect(ks[g.members[m]!]).toBe(g.keys[k]);
        }
      }),
    );
  });
});
