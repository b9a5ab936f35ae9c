import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Instance } from "../../../bench/convert/common.ts";
import { instanceToTrace } from "../../../bench/convert/common.ts";
import { convertNestful } from "../../../bench/convert/nestful.ts";
import { convertSealTools } from "../../../bench/convert/seal-tools.ts";
import { assertNoLeak, findLeaks, seededSplit } from "../../../bench/convert/split.ts";
import { convertToolLinkOs } from "../../../bench/convert/toollinkos.ts";

const inst = (
  id: string,
  query: string,
  steps: string[] = ["a", "b"],
  edges: [number, number][] = [[0, 1]],
): Instance => ({
  id,
  dataset: "nestful",
  part: "x",
  query,
  steps,
  edges,
  relevant: [...new Set(steps)],
  partialOrder: false,
});

describe("seededSplit", () => {
  const items = Array.from({ length: 10 }, (_, i) => inst(`i${i}`, `query ${i}`));

  it("is deterministic for a seed and keeps input order", () => {
    const a = seededSplit(items, { seed: 7 });
    expect(seededSplit(items, { seed: 7 })).toEqual(a);
    expect(a.sizes).toEqual({ train: 5, test: 5, groups: 10 });
    const idx = (xs: Instance[]) => xs.map((x) => Number(x.id.slice(1)));
    expect(idx(a.train)).toEqual(
      idx(a.train)
        .slice()
        .sort((x, y) => x - y),
    );
  });

  it("duplicate queries (case and spacing aside) land on the same side", () => {
    const dup = [...items, inst("dup", "  QUERY   3 ")];
    const s = seededSplit(dup, { seed: 3 });
    const side = (id: string) => (s.train.some((x) => x.id === id) ? "train" : "test");
    expect(side("dup")).toBe(side("i3"));
    expect(s.sizes.groups).toBe(10);
  });

  it("throws on a bad fraction or a duplicate id", () => {
    expect(() => seededSplit(items, { trainFraction: 1 })).toThrow(expect.objectContaining({ code: "bad-fraction" }));
    expect(() => seededSplit([items[0]!, items[0]!])).toThrow(expect.objectContaining({ code: "duplicate-id" }));
  });

  it("property: a partition with no query on both sides", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 40 }), fc.integer(), (qs, seed) => {
        const xs = qs.map((q, i) => inst(`x${i}`, `q${q}`));
        const s = seededSplit(xs, { seed });
        expect(s.train.length + s.test.length).toBe(xs.length);
        const trainQ = new Set(s.train.map((x) => x.query));
        for (const t of s.test) expect(trainQ.has(t.query)).toBe(false);
        expect(findLeaks(s.train.map(instanceToTrace), s.test)).toEqual([]);
      }),
    );
  });
});

describe("findLeaks / assertNoLeak", () => {
  it("a clean split has no leak", () => {
    expect(assertNoLeak([instanceToTrace(inst("a", "qa"), 0)], [inst("b", "qb")])).toEqual({
      trainTraces: 1,
      testInstances: 1,
      checkedEdges: 1,
    });
  });

  it("detects an id leak, and the gold edge it carries", () => {
    const leaks = findLeaks([instanceToTrace(inst("a", "other text"), 0)], [inst("a", "qa")]);
    expect(leaks.map((l) => l.kind).sort()).toEqual(["edge-leak", "id-leak"]);
  });

  it("detects a query leak under another id", () => {
    const leaks = findLeaks(
      [instanceToTrace(inst("t1", "Book a Car", ["x", "y"], []), 0)],
      [inst("e1", "book a  car")],
    );
    expect(leaks).toEqual([expect.objectContaining({ kind: "query-leak", testId: "e1", traceId: "t1" })]);
  });

  it("assertNoLeak throws a LeakError with the violations", () => {
    expect(() => assertNoLeak([instanceToTrace(inst("a", "qa"), 0)], [inst("a", "qa")])).toThrow(
      expect.objectContaining({ name: "LeakError", code: "id-leak" }),
    );
  });

  it("the three converted datasets are leak-free", () => {
    const sets = [convertSealTools(), convertToolLinkOs(), convertNestful()];
    for (const ds of sets) {
      for (const test of Object.values(ds.testInstances)) {
        expect(findLeaks(ds.traces, test)).toEqual([]);
        const trainIds = new Set(ds.traces.map((t) => t.id));
        for (const i of test) expect(trainIds.has(i.id)).toBe(false);
      }
    }
  });
});
