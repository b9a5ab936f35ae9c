/**
 * formatFixed spells x.toFixed(2|3) byte for byte: random values, every 2- and 3-digit boundary and tie ± an
 * ulp, grids of cents and half cents, values outside [0, 1] and special values.
 */
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import { formatFixed } from "../../src/formats/fixed.ts";

const ULP = 2 ** -52;

function expectToFixed(x: number) {
  expect(formatFixed(x, 2)).toBe(x.toFixed(2));
  expect(formatFixed(x, 3)).toBe(x.toFixed(3));
}

describe("formatFixed", () => {
  it("equals toFixed on 300k random values in [0, 1], small values and values outside [0, 1]", () => {
    const rng = mulberry32(22);
    const bad: number[] = [];
    for (let i = 0; i < 100_000; i++) {
      for (const x of [rng(), rng() * 0.01, rng() * 1e-4]) {
        if (formatFixed(x, 2) !== x.toFixed(2) || formatFixed(x, 3) !== x.toFixed(3)) bad.push(x);
      }
    }
    expect(bad).toEqual([]);
    for (const x of [
      0,
      -0,
      1,
      1.1,
      1.0049,
      1.0051,
      2.5,
      -0.004,
      -0.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e-300,
      1 - ULP / 2,
    ])
      expectToFixed(x);
  });

  it("equals toFixed at every boundary k/1000 and tie (k + ½)/1000, (k + ½)/100, each ± an ulp", () => {
    for (let k = 0; k <= 1000; k++) {
      for (const base of [k / 1000, (k + 0.5) / 1000, (k + 0.5) / 100]) {
        if (base > 1.1) continue;
        for (const f of [1 - 2 * ULP, 1 - ULP, 1, 1 + ULP, 1 + 2 * ULP]) expectToFixed(base * f);
      }
    }
  });
});

describe("formatFixed, the DAG's cases", () => {
  it("equals toFixed(2) on ties, bounds and special values", () => {
    const xs = [
      0,
      -0,
      0.005,
      0.015,
      0.025,
      0.125,
      0.375,
      1.005,
      0.995,
      0.9949999999,
      2.675,
      1.45,
      99.995,
      999999.995,
      999999.99,
      1e6,
      1e21,
      -1,
      -0.001,
      5e-324,
      0.49999999999999994,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (const x of xs) expect(formatFixed(x, 2)).toBe(x.toFixed(2));
  });

  it("equals toFixed(2) on grids of cents, half cents and random values", () => {
    const rng = mulberry32(3);
    for (let i = 0; i < 200_000; i++) {
      for (const x of [i / 100, i / 200, i / 1000, i * 0.005, rng(), 100 * rng(), 2e6 * rng()]) {
        if (formatFixed(x, 2) !== x.toFixed(2)) expect(formatFixed(x, 2)).toBe(x.toFixed(2));
      }
    }
  });
});
