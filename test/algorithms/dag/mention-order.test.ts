import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MENTION_CHAIN_STRENGTH,
  mentionChain,
  mentionLean,
  mentionPositions,
} from "../../../algorithms/dag/mention-order.ts";

describe("mentionPositions", () => {
  it("finds each tool by its distinctive name words, in intent token order", () => {
    // tokenize drops the stopwords (please, the, in, then, for, these): list(0) wildlife(1) specie(2) african(3)
    // forest(4) give(5) conservation(6) project(7) …
    const intent =
      "Please list the wildlife species in African forests, then give the conservation projects for these species.";
    expect(mentionPositions(intent, ["getConservationProjectDetails", "getWildlifeSpecies"])).toEqual([6, 1]);
  });

  it("ignores words the selected tools share and generic verbs", () => {
    // "search" and "sky scrapper" are shared; "airport" is not mentioned, "flight" is (token 1: find flight …).
    expect(
      mentionPositions("Find flights from New York", ["SkyScrapperSearchAirport", "SkyScrapperFlightSearch"]),
    ).toEqual([undefined, 1]);
    expect(mentionPositions("get the list", ["getList"])).toEqual([undefined]);
  });

  it("does not depend on the order of the names", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(["getWeather", "findCity", "bookHotel", "convertCurrency"], { minLength: 2 }),
        (names) => {
          const intent = "convert the currency, find a city with good weather and book a hotel";
          const pos = mentionPositions(intent, names);
          const ref = mentionPositions(intent, ["getWeather", "findCity", "bookHotel", "convertCurrency"]);
          const refOf = new Map(["getWeather", "findCity", "bookHotel", "convertCurrency"].map((n, k) => [n, ref[k]]));
          // Distinctive words depend on the selection, but here no two names share a word: same positions.
          expect(pos).toEqual(names.map((n) => refOf.get(n)));
        },
      ),
      { numRuns: 50, seed: 20 },
    );
  });
});

describe("mentionLean", () => {
  it("is 1 when a comes first, −1 when b does, 0 when either is not mentioned", () => {
    expect(mentionLean(0, 4)).toBe(1);
    expect(mentionLean(4, 0)).toBe(-1);
    expect(mentionLean(undefined, 0)).toBe(0);
    expect(mentionLean(3, undefined)).toBe(0);
  });
});

describe("mentionChain", () => {
  // Mentioned: 2 at word 1, 0 at word 5, 3 at word 9; 1 not mentioned. Chain 2 → 0 → 3, each one hop of 0.1.
  const at = (v: number) => ({ 0: 5, 2: 1, 3: 9 })[v];
  it("chains the mentioned tools in mention order, never by the order of the selection", () => {
    expect(mentionChain([0, 1, 2, 3], at).map((e) => [e.from, e.to])).toEqual([
      [2, 0],
      [0, 3],
    ]);
    expect(mentionChain([3, 2, 1, 0], at).map((e) => [e.from, e.to])).toEqual([
      [2, 0],
      [0, 3],
    ]);
    const [first] = mentionChain([0, 1, 2, 3], at, 1);
    expect(first).toEqual({
      from: 2,
      to: 0,
      path: [2, 0],
      hops: 1,
      cost: 10,
      meanWeight: 0.1,
      strength: 0.1,
      direct: false,
      mentioned: { from: 1, to: 5 },
    });
    expect(MENTION_CHAIN_STRENGTH).toBe(0.1);
  });
  it("proposes nothing with fewer than two mentioned tools", () => {
    expect(mentionChain([0, 1], (v) => (v === 0 ? 3 : undefined))).toEqual([]);
  });
});
