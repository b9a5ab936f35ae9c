import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { noisyOr } from "../../../algorithms/memory/noisy-or.ts";
import { fuseChannels } from "../../../algorithms/search/channel-fusion.ts";

const unit = fc.double({ min: 0, max: 1, noNaN: true });

describe("fuseChannels", () => {
  it("hand-computed: 1 − (1 − 0.5·0.6)(1 − 0.8·0.5) = 1 − 0.7·0.6 = 0.58", () => {
    expect(fuseChannels(0.6, 0.5, 0.5, 0.8)).toBeCloseTo(0.58, 12);
  });
  it("no vote: the weighted content, 0.25·0.6 = 0.15", () => {
    expect(fuseChannels(0.6, 0.25, undefined, 0.8)).toBeCloseTo(0.15, 12);
    expect(fuseChannels(0.6, 0.25, 0, 0.8)).toBeCloseTo(0.15, 12);
  });
  it("content weight 0: the memory channel alone, μ·vote = 0.8·0.5 = 0.4", () => {
    expect(fuseChannels(0.9, 0, 0.5, 0.8)).toBeCloseTo(0.4, 12);
    expect(fuseChannels(0.9, 0, undefined, 0.8)).toBe(0);
  });
  it("property: content weight 1 is the plain memory lift bit for bit", () => {
    fc.assert(
      fc.property(
        unit,
        unit,
        fc.option(unit, { nil: undefined }),
        (s, mu, v) => fuseChannels(s, 1, v, mu) === noisyOr(s, mu, v),
      ),
      { seed: 20 },
    );
  });
  it("property: in [0, 1], ≥ each weighted channel, non-decreasing in content, vote and both weights", () => {
    fc.assert(
      fc.property(unit, unit, unit, unit, unit, (s, wc, v, mu, d) => {
        const x = fuseChannels(s, wc, v, mu);
        const eps = 1e-12;
        return (
          x >= 0 &&
          x <= 1 + eps &&
          x >= wc * s - eps &&
          x >= mu * v - eps &&
          fuseChannels(Math.min(1, s + d), wc, v, mu) >= x - eps &&
          fuseChannels(s, Math.min(1, wc + d), v, mu) >= x - eps &&
          fuseChannels(s, wc, Math.min(1, v + d), mu) >= x - eps &&
          fuseChannels(s, wc, v, Math.min(1, mu + d)) >= x - eps
        );
      }),
      { seed: 20 },
    );
  });
});
