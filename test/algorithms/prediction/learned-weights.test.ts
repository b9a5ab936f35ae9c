import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  learnWeights,
  learnWeightsSteps,
  rankingMetrics,
  type TrainingExample,
} from "../../../algorithms/prediction/learned-weights.ts";
import type { NextStepTerms } from "../../../algorithms/prediction/next-step.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";

const t = (cooc: number, community = 0, recency = 0, pagerank = 0): NextStepTerms => ({
  cooc,
  community,
  recency,
  pagerank,
});

/** Only cooc separates the true next tool from the negatives; the other three terms are pure noise. */
function coocOnlySet(count: number, seed: number): TrainingExample[] {
  const rng = mulberry32(seed);
  const noise = (cooc: number) => t(cooc, rng() < 0.5 ? 1 : 0, rng() < 0.3 ? 1 : 0, rng());
  return Array.from({ length: count }, () => ({
    positive: noise(0.35 + 0.65 * rng()),
    negatives: Array.from({ length: 9 }, () => noise(0.5 * rng())),
  }));
}

describe("rankingMetrics by hand", () => {
  it("MRR, Hit@1 and loss with a tie", () => {
    const ex: TrainingExample[] = [
      { positive: t(0.5), negatives: [t(0.2), t(0.7)] }, // rank 2 → 1/2, no hit
      { positive: t(0.5), negatives: [t(0.5)] }, // tie → rank 1.5 → 2/3, hit 1/2
    ];
    const m = rankingMetrics(ex, { cooc: 1, community: 0, recency: 0, pagerank: 0 });
    expect(m.mrr).toBeCloseTo((0.5 + 2 / 3) / 2, 12);
    expect(m.hitAt1).toBeCloseTo(0.25, 12);
    const lossA = -0.5 + Math.log(Math.exp(0.5) + Math.exp(0.2) + Math.exp(0.7));
    const lossB = Math.log(2); // −0.5 + log(2·e^0.5)
    expect(m.loss).toBeCloseTo((lossA + lossB) / 2, 12);
  });
});

describe("learnWeights", () => {
  it("one projected gradient step by hand", () => {
    // w0 = 0 → scores (0, 0), p = (½, ½); x_pos = (1,0,0,0), x_neg = (0,1,0,0)
    // ∇ = −x_pos + ½x_pos + ½x_neg = (−½, ½, 0, 0); w1 = max(0, w0 − 1·∇) = (½, 0, 0, 0)
    const r = learnWeights([{ positive: t(1), negatives: [t(0, 1)] }], {
      initialWeights: { cooc: 0, community: 0, recency: 0, pagerank: 0 },
      learningRate: 1,
      epochs: 1,
      batchSize: 1,
      l2: 0,
      validationFraction: 0,
    });
    expect(r.rawWeights).toEqual({ cooc: 0.5, community: 0, recency: 0, pagerank: 0 });
    expect(r.weights).toEqual({ cooc: 1, community: 0, recency: 0, pagerank: 0 });
    expect(r.report.iterations).toBe(1);
    expect(r.report.bestEpoch).toBe(1);
    expect(r.report.heldOut).toBe(false);
    expect(r.report.validationBefore.mrr).toBeCloseTo(2 / 3, 12); // tie at w0: rank 1 + 0 + ½ → 1/1.5
    expect(r.report.validationAfter.mrr).toBe(1); // 0.5 > 0
  });

  it("learns a dominant cooc weight when only cooc is informative", () => {
    const r = learnWeights(coocOnlySet(400, 7), { rng: mulberry32(1) });
    const w = r.weights;
    expect(w.cooc).toBeGreaterThan(0.7);
    expect(w.cooc).toBeGreaterThan(3 * Math.max(w.community, w.recency, w.pagerank));
    expect(r.report.heldOut).toBe(true);
    expect(r.report.validationExamples).toBe(80);
    expect(r.report.trainExamples).toBe(320);
    expect(r.report.trainAfter.loss).toBeLessThan(r.report.trainBefore.loss);
    expect(r.report.validationAfter.mrr).toBeGreaterThan(r.report.validationBefore.mrr);
    expect(r.reason).toBeUndefined();
  });

  it("is deterministic for a seed", () => {
    const data = coocOnlySet(100, 3);
    const a = learnWeights(data, { rng: mulberry32(9), epochs: 20 });
    const b = learnWeights(data, { rng: mulberry32(9), epochs: 20 });
    expect(a).toEqual(b);
  });

  it("never returns weights worse on the held-out slice than the start", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 5, max: 60 }), (seed, count) => {
        const rng = mulberry32(seed);
        const rnd = () => t(rng(), rng() < 0.5 ? 1 : 0, rng(), rng());
        const data = Array.from({ length: count }, () => ({ positive: rnd(), negatives: [rnd(), rnd(), rnd()] }));
        const r = learnWeights(data, { rng: mulberry32(seed), epochs: 15 });
        expect(r.report.validationAfter.mrr).toBeGreaterThanOrEqual(r.report.validationBefore.mrr);
        const ws = [r.weights.cooc, r.weights.community, r.weights.recency, r.weights.pagerank];
        for (const x of ws) {
          expect(Number.isFinite(x)).toBe(true);
          expect(x).toBeGreaterThanOrEqual(0);
        }
        const s = ws.reduce((a, b) => a + b, 0);
        expect(s === 0 || Math.abs(s - 1) < 1e-12).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("no examples → initial weights rescaled, with reason", () => {
    const r = learnWeights([]);
    expect(r.reason).toBe("no training examples");
    expect(r.weights.cooc).toBeCloseTo(0.6 / 1.1, 12);
    expect(r.report.iterations).toBe(0);
  });

  it("examples without negatives teach nothing (epoch 0 kept)", () => {
    const r = learnWeights([{ positive: t(1), negatives: [] }], { validationFraction: 0, epochs: 5 });
    expect(r.report.bestEpoch).toBe(0);
    expect(r.rawWeights).toEqual({ cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 });
  });

  it("misuse throws PredictionError with a code", () => {
    const ex = [{ positive: t(1), negatives: [t(0)] }];
    expect(() => learnWeights(ex, { learningRate: 0 })).toThrow(expect.objectContaining({ code: "bad-option" }));
    expect(() => learnWeights(ex, { validationFraction: 1 })).toThrow(expect.objectContaining({ code: "bad-option" }));
    expect(() => learnWeights(ex, { initialWeights: { cooc: -1, community: 0, recency: 0, pagerank: 0 } })).toThrow(
      expect.objectContaining({ code: "bad-weights" }),
    );
    expect(() => learnWeights([{ positive: t(Number.NaN), negatives: [] }])).toThrow(
      expect.objectContaining({ code: "bad-example" }),
    );
  });
});

describe("learnWeightsSteps", () => {
  it("yields each epoch once, in order, and returns exactly what learnWeights returns", () => {
    const examples = coocOnlySet(60, 7);
    const steps = learnWeightsSteps(examples, { epochs: 12, rng: mulberry32(3) });
    const epochs: number[] = [];
    let r = steps.next();
    while (!r.done) {
      epochs.push(r.value);
      r = steps.next();
    }
    expect(epochs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(r.value).toEqual(learnWeights(examples, { epochs: 12, rng: mulberry32(3) }));
  });

  it("on 5,000 examples pauses within each epoch too, and returns bit for bit what learnWeights returns", () => {
    const examples = coocOnlySet(5000, 11);
    const steps = learnWeightsSteps(examples, { epochs: 4, rng: mulberry32(5) });
    const yields: number[] = [];
    let r = steps.next();
    while (!r.done) {
      yields.push(r.value);
      r = steps.next();
    }
    // Preparing 5,000 examples (4 pauses) and measuring 4,000 training and 1,000 held-out ones (3) before epoch 1;
    // each epoch's 4,000 examples in 32-example batches pause every 1,024 examples (3), then the epoch's end.
    expect(yields.filter((e) => e === 0).length).toBe(4 + 3 + 3);
    expect(yields.filter((e, i) => e !== yields[i + 1] && e > 0)).toEqual([1, 2, 3, 4]);
    expect([...yields].sort((a, b) => a - b)).toEqual(yields);
    const once = learnWeights(examples, { epochs: 4, rng: mulberry32(5) });
    expect(r.value).toEqual(once);
    expect(Object.is(r.value.rawWeights.cooc, once.rawWeights.cooc)).toBe(true);
    expect(r.value.report.validationAfter.loss).toBe(once.report.validationAfter.loss);
  });
});
