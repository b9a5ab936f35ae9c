import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../algorithms/random/rng.ts";
import {
  DEFAULTS,
  features,
  fmix32,
  fnv1a32,
  HashingEmbedder,
  hashFeatures,
  words,
} from "../../src/embeddings/hashing.ts";
import { EmbeddingError } from "../../src/embeddings/provider.ts";
import { dot, l2Norm } from "../../src/embeddings/vector.ts";

describe("fnv1a32 / fmix32", () => {
  it("matches the published FNV-1a 32-bit test vectors", () => {
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
  });

  it("fmix32 matches MurmurHash3's finaliser (checked with an independent Python implementation)", () => {
    expect(fmix32(0)).toBe(0);
    expect(fmix32(1)).toBe(0x514e28b7);
    expect(fmix32(0xdeadbeef)).toBe(0x0de5c6a9);
  });
});

describe("features", () => {
  it("splits on non-letters, lowercases, and adds padded trigrams", () => {
    expect(words("Send an E-mail!")).toEqual(["send", "an", "e", "mail"]);
    expect(features("Go", 1, 0.5)).toEqual([
      ["w:go", 1],
      ["t:#go", 0.5],
      ["t:go#", 0.5],
    ]);
  });

  it("a one-letter word has one trigram", () => {
    expect(features("a", 1, 0.5)).toEqual([
      ["w:a", 1],
      ["t:#a#", 0.5],
    ]);
  });

  it("keeps non-ASCII letters and does not split surrogate pairs", () => {
    // NFKC folds compatibility forms: "𝒜" (U+1D49C) → "A" → "a"; "𠀀" (U+20000, outside the BMP) stays.
    expect(words("café 𝒜b 𠀀b")).toEqual(["café", "ab", "𠀀b"]);
    expect(features("𠀀b", 1, 1).map(([f]) => f)).toEqual(["w:𠀀b", "t:#𠀀b", "t:𠀀b#"]);
  });
});

describe("hashFeatures (hand-computed, d = 8)", () => {
  // h = fmix32(fnv1a32(f)) (values from an independent Python implementation):
  //   "w:a"   → 0x812a745f: bucket 0x812a745f mod 8 = 7, bit 31 set → sign −1
  //   "t:#a#" → 0x3cd97390: bucket 0,                   bit 31 clear → sign +1
  //   "w:b"   → 0x5cb5fd3d: bucket 5, sign +1
  //   "t:#b#" → 0x60e85c8b: bucket 3, sign +1
  it('"a" → −1 in bucket 7, +0.5 in bucket 0', () => {
    expect(Array.from(hashFeatures("a", 8, 1, 0.5))).toEqual([0.5, 0, 0, 0, 0, 0, 0, -1]);
  });

  it('"a b" → [0.5, 0, 0, 0.5, 0, 1, 0, −1]', () => {
    expect(Array.from(hashFeatures("a b", 8, 1, 0.5))).toEqual([0.5, 0, 0, 0.5, 0, 1, 0, -1]);
  });

  it('cosine("a", "a b") = 1/√2', async () => {
    // raw dot = 0.5·0.5 + (−1)·(−1) = 1.25; ‖a‖ = √1.25, ‖a b‖ = √(0.25+0.25+1+1) = √2.5
    // cos = 1.25 / √(1.25·2.5) = 1.25 / √3.125 = 0.70711
    const [a, ab] = await new HashingEmbedder({ dimensions: 8 }).embed(["a", "a b"]);
    expect(a![7]).toBeCloseTo(-1 / Math.sqrt(1.25), 6);
    expect(a![0]).toBeCloseTo(0.5 / Math.sqrt(1.25), 6);
    expect(dot(a!, ab!)).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it("repeated words add up", () => {
    // "a a" = 2 × "a"
    expect(Array.from(hashFeatures("a a", 8, 1, 0.5))).toEqual([1, 0, 0, 0, 0, 0, 0, -2]);
  });
});

describe("HashingEmbedder", () => {
  it("defaults to 256 dimensions and names the model with version and dimensions", () => {
    const e = new HashingEmbedder();
    expect(e.dimensions).toBe(DEFAULTS.dimensions);
    expect(e.model).toBe("hash-v1-256");
    expect(new HashingEmbedder({ dimensions: 64 }).model).toBe("hash-v1-64");
    expect(new HashingEmbedder({ trigramWeight: 0 }).model).toBe("hash-v1-256-w1-t0");
  });

  it("blank and punctuation-only texts embed to the zero vector", async () => {
    const vs = await new HashingEmbedder({ dimensions: 16 }).embed(["", "   ", "?!"]);
    for (const v of vs) expect(Array.from(v)).toEqual(new Array(16).fill(0));
  });

  it("empty input gives an empty result and no progress call", async () => {
    const calls: number[][] = [];
    const out = await new HashingEmbedder().embed([], { onProgress: (d, t) => calls.push([d, t]) });
    expect(out).toEqual([]);
    expect(calls).toEqual([]);
  });

  it("reports progress once with the total", async () => {
    const calls: number[][] = [];
    await new HashingEmbedder().embed(["a", "b", "c"], { onProgress: (d, t) => calls.push([d, t]) });
    expect(calls).toEqual([[3, 3]]);
  });

  it("rejects an aborted signal with code aborted", async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(new HashingEmbedder().embed(["a"], { signal: ac.signal })).rejects.toMatchObject({ code: "aborted" });
  });

  it("rejects bad options with bad-option naming the value", () => {
    expect(() => new HashingEmbedder({ dimensions: 0 })).toThrow(/dimensions must be a positive integer, got 0/);
    expect(() => new HashingEmbedder({ dimensions: 2.5 })).toThrow(EmbeddingError);
    expect(() => new HashingEmbedder({ wordWeight: -1 })).toThrow(/wordWeight .* got -1/);
  });

  it("texts sharing words score above unrelated texts", async () => {
    const [email, mail, sqrt] = await new HashingEmbedder().embed([
      "send an email to the team",
      "email the team a summary",
      "compute the square root of a number",
    ]);
    expect(dot(email!, mail!)).toBeGreaterThan(0);
    expect(dot(email!, mail!)).toBeGreaterThan(dot(email!, sqrt!));
  });

  it("over a seeded corpus, pairs sharing a word have positive cosine (≥ 99%) and score far above disjoint pairs", async () => {
    // Signed hashing is unbiased, so a shared-word pair's cosine is positive in expectation; collisions make
    // it a statistical, not absolute, property (see the file header of hashing.ts).
    const rng = mulberry32(7);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const count = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
    const word = () => Array.from({ length: count(3, 8) }, () => letters[Math.floor(rng() * 26)]).join("");
    const text = (n: number) => Array.from({ length: n }, word).join(" ");
    const e = new HashingEmbedder();
    let positive = 0;
    let sharedSum = 0;
    let disjointSum = 0;
    const pairs = 500;
    for (let p = 0; p < pairs; p++) {
      const shared = word();
      const [a, b, c] = await e.embed([
        `${text(count(1, 5))} ${shared}`,
        `${shared} ${text(count(1, 5))}`,
        text(count(2, 6)),
      ]);
      const cos = dot(a!, b!);
      if (cos > 0) positive++;
      sharedSum += cos;
      disjointSum += dot(a!, c!);
    }
    expect(positive / pairs).toBeGreaterThanOrEqual(0.99);
    expect(sharedSum / pairs).toBeGreaterThan(0.2); // ≈ 0.27 measured
    expect(Math.abs(disjointSum / pairs)).toBeLessThan(0.02); // ≈ 0.00 measured
  });

  it("property: deterministic, right length, unit norm or zero", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), fc.integer({ min: 1, max: 512 }), async (t, d) => {
        const e1 = new HashingEmbedder({ dimensions: d });
        const e2 = new HashingEmbedder({ dimensions: d });
        const [v1] = await e1.embed([t]);
        const [v2] = await e2.embed([t]);
        expect(v1!.length).toBe(d);
        expect(Array.from(v1!)).toEqual(Array.from(v2!));
        const n = l2Norm(v1!);
        if (words(t).length === 0) expect(n).toBe(0);
        else if (n > 0) expect(n).toBeCloseTo(1, 5); // n = 0 possible only if all features cancel
      }),
    );
  });

  it("property: a text's cosine with itself is 1, with any other in [−1, 1]", async () => {
    const e = new HashingEmbedder({ dimensions: 32 });
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 40 }), async (a, b) => {
        fc.pre(/[\p{L}\p{N}]/u.test(a));
        const [va, vb] = await e.embed([a, b]);
        if (l2Norm(va!) > 0) expect(dot(va!, va!)).toBeCloseTo(1, 5);
        const c = dot(va!, vb!);
        expect(c).toBeGreaterThanOrEqual(-1 - 1e-6);
        expect(c).toBeLessThanOrEqual(1 + 1e-6);
      }),
    );
  });
});
