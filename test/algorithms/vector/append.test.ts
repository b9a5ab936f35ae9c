import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dotAt } from "../../../algorithms/linalg/dot.ts";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import { syntheticEmbeddings } from "../../../algorithms/search/synthetic-embeddings.ts";
import {
  appendVectorIndex,
  appendVectorIndexSteps,
  buildVectorIndex,
  codeShortlist,
  DEFAULTS,
  exactTopK,
  searchVectorIndex,
  type VectorIndex,
} from "../../../algorithms/search/vector-index.ts";

/** The shortlist searchVectorIndex re-ranks (its default formula), for checking what the candidates hold. */
function shortlistOf(index: VectorIndex, topN: number): number {
  const minimum = Math.ceil(DEFAULTS.shortlist * Math.sqrt(Math.max(1, DEFAULTS.shortlistBits / index.bits)));
  return Math.min(index.n, Math.max(topN, minimum, Math.ceil(DEFAULTS.shortlistFraction * index.n)));
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

describe("appendVectorIndex", () => {
  it("hand-checked: a copy of an indexed row gets that row's code and scale; old rows keep theirs", () => {
    const rng = mulberry32(3);
    const data = syntheticEmbeddings(48, rng, { clusters: 4, meanWeight: 1.5 }).sample(20);
    const index = buildVectorIndex(data, 48, { vectorStore: "reference" });
    const words = index.bits >> 5;
    const copies = concat([data.subarray(5 * 48, 6 * 48), data.subarray(0, 48)]);
    const grown = appendVectorIndex(index, copies);
    expect(grown.n).toBe(22);
    expect(Array.from(grown.codes.subarray(0, 20 * words))).toEqual(Array.from(index.codes));
    expect(Array.from(grown.codes.subarray(20 * words, 21 * words))).toEqual(
      Array.from(index.codes.subarray(5 * words, 6 * words)),
    );
    expect(Array.from(grown.codes.subarray(21 * words, 22 * words))).toEqual(
      Array.from(index.codes.subarray(0, words)),
    );
    expect([grown.scales[20], grown.scales[21]]).toEqual([index.scales[5], index.scales[0]]);
    expect(grown.mean).toBe(index.mean);
    expect(Array.from(grown.vectors.subarray(20 * 48, 21 * 48))).toEqual(Array.from(data.subarray(5 * 48, 6 * 48)));
    // The input is not changed.
    expect(index.n).toBe(20);
    expect(index.codes.length).toBe(20 * words);
  });

  it("a codes-only index (vectors dropped) stays codes-only; a bad row length names the shape", () => {
    const data = syntheticEmbeddings(32, mulberry32(4), { clusters: 3 }).sample(10);
    const index = { ...buildVectorIndex(data, 32, { vectorStore: "reference" }), vectors: new Float32Array(0) };
    const grown = appendVectorIndex(index, data.subarray(0, 64));
    expect(grown.n).toBe(12);
    expect(grown.vectors.length).toBe(0);
    expect(() => appendVectorIndex(index, new Float32Array(33))).toThrow(/bad-shape|multiple of d/);
  });

  it("the steps variant pauses after every rowsPerStep rows and returns the same index", () => {
    const mix = syntheticEmbeddings(32, mulberry32(5), { clusters: 3 });
    const base = buildVectorIndex(mix.sample(12), 32, { vectorStore: "reference" });
    const added = mix.sample(10);
    const steps = appendVectorIndexSteps(base, added, 4);
    const paused: number[] = [];
    let r = steps.next();
    while (!r.done) {
      paused.push(r.value);
      r = steps.next();
    }
    expect(paused).toEqual([4, 8, 10]);
    const whole = appendVectorIndex(base, added);
    expect(Array.from(r.value.codes)).toEqual(Array.from(whole.codes));
    expect(Array.from(r.value.scales)).toEqual(Array.from(whole.scales));
    expect(() => appendVectorIndexSteps(base, added, 0).next()).toThrow(/rowsPerStep/);
  });

  it("property: appending in pieces equals appending at once; appending nothing keeps every code", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 0, max: 30 }), (seed, cut) => {
        const mix = syntheticEmbeddings(40, mulberry32(seed), { clusters: 5, meanWeight: 1 });
        const base = buildVectorIndex(mix.sample(25), 40, { vectorStore: "reference" });
        const added = mix.sample(30);
        const once = appendVectorIndex(base, added);
        const twice = appendVectorIndex(appendVectorIndex(base, added.subarray(0, cut * 40)), added.subarray(cut * 40));
        expect(Array.from(twice.codes)).toEqual(Array.from(once.codes));
        expect(Array.from(twice.scales)).toEqual(Array.from(once.scales));
        expect(Array.from(twice.prefixCodes!)).toEqual(Array.from(once.prefixCodes!));
        expect(Array.from(twice.vectors)).toEqual(Array.from(once.vectors));
        const none = appendVectorIndex(base, new Float32Array(0));
        expect(Array.from(none.codes)).toEqual(Array.from(base.codes));
        expect(Array.from(none.prefixCodes!)).toEqual(Array.from(base.prefixCodes!));
      }),
      { numRuns: 20 },
    );
  });

  it("property: after appends, scores are exact dot products, recall@10 ≥ 0.99, and answers equal a fresh build's when both candidate lists hold the true top 10", () => {
    const d = 256;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.boolean(), (seed, anisotropic) => {
        const rng = mulberry32(seed);
        const mix = syntheticEmbeddings(
          d,
          rng,
          anisotropic ? { clusters: 60, meanWeight: 1.5, spectrumDecay: 1 } : { clusters: 60 },
        );
        const first = mix.sample(3000);
        let index = buildVectorIndex(first, d);
        const parts = [first];
        // Three batches: the history grows by 60 % on the build's centre and rotation.
        for (let b = 0; b < 3; b++) {
          const batch = mix.sample(600);
          parts.push(batch);
          index = appendVectorIndex(index, batch);
        }
        const all = concat(parts);
        const fresh = buildVectorIndex(all, d);
        const queries = mix.sample(40);
        let found = 0;
        let equalWhenHeld = 0;
        let held = 0;
        for (let k = 0; k < 40; k++) {
          const q = queries.subarray(k * d, (k + 1) * d);
          const truth = exactTopK(all, d, q, 10);
          const got = searchVectorIndex(index, q, 10);
          for (const h of got) expect(h.score).toBe(dotAt(all, h.id * d, Float64Array.from(q), d));
          const ids = new Set(truth.map((h) => h.id));
          found += got.filter((h) => ids.has(h.id)).length;
          const mine = new Set(codeShortlist(index, q, shortlistOf(index, 10)));
          const theirs = new Set(codeShortlist(fresh, q, shortlistOf(fresh, 10)));
          if (truth.every((h) => mine.has(h.id) && theirs.has(h.id))) {
            held++;
            const rebuilt = searchVectorIndex(fresh, q, 10);
            expect(got).toEqual(rebuilt);
            expect(got).toEqual(truth);
            equalWhenHeld++;
          }
        }
        expect(found / 400).toBeGreaterThanOrEqual(0.99);
        expect(held).toBeGreaterThanOrEqual(36);
        expect(equalWhenHeld).toBe(held);
      }),
      { numRuns: 4 },
    );
  });
});
