import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../algorithms/random/rng.ts";
import {
  bm25FullIdealScore,
  bm25IdealScore,
  BM25_DOCS_PER_STEP,
  bm25Scores,
  buildBm25Index,
  buildBm25IndexSteps,
  searchBm25,
} from "../../../algorithms/search/bm25.ts";

// Corpus: D0 = read file, D1 = write file file, D2 = read url.   N = 3, |D| = 2, 3, 2, avgdl = 7/3.
const corpus = [
  ["read", "file"],
  ["write", "file", "file"],
  ["read", "url"],
];

describe("buildBm25Index / searchBm25 (hand-computed)", () => {
  const index = buildBm25Index(corpus);

  it("idf = ln(1 + (N − df + 0.5)/(df + 0.5))", () => {
    // read: df 2 → ln(1 + 1.5/2.5) = ln 1.6 = 0.4700036292
    expect(index.idf[index.vocabulary.get("read")!]).toBeCloseTo(Math.log(1.6), 12);
    expect(index.idf[index.vocabulary.get("read")!]).toBeCloseTo(0.4700036292, 9);
    // write: df 1 → ln(1 + 2.5/1.5) = ln(8/3) = 0.9808292530
    expect(index.idf[index.vocabulary.get("write")!]).toBeCloseTo(0.980829253, 9);
    expect(index.avgdl).toBeCloseTo(7 / 3, 12);
  });

  it("query [read, file] ranks D0 > D1 > D2 with the hand-computed scores", () => {
    // D0: norm = 1 − 0.75 + 0.75·2/(7/3) = 25/28; tf 1 → 1·2.2/(1 + 1.2·25/28) = 61.6/58 = 1.0620689655
    //     score = (idf_read + idf_file)·1.0620689655 = 2·0.4700036292·1.0620689655 = 0.9983525
    // D1: norm = 0.25 + 0.75·3/(7/3) = 17/14; file tf 2 → 4.4/(2 + 1.2·17/14) = 61.6/48.4 = 1.2727272727
    //     score = 0.4700036292·1.2727272727 = 0.5981864
    // D2: read tf 1, norm 25/28 → 0.4700036292·1.0620689655 = 0.4991763
    const hits = searchBm25(index, ["read", "file"], 10);
    expect(hits.map((h) => h.id)).toEqual([0, 1, 2]);
    expect(hits[0]!.score).toBeCloseTo(0.9983525, 6);
    expect(hits[1]!.score).toBeCloseTo(0.5981864, 6);
    expect(hits[2]!.score).toBeCloseTo(0.4991763, 6);
  });

  it("repeated query terms count once", () => {
    expect(searchBm25(index, ["read", "read", "file"], 10)).toEqual(searchBm25(index, ["read", "file"], 10));
  });

  it("topN truncates", () => {
    expect(searchBm25(index, ["read", "file"], 1).map((h) => h.id)).toEqual([0]);
  });

  it("unknown terms and empty queries give []", () => {
    expect(searchBm25(index, ["zebra"])).toEqual([]);
    expect(searchBm25(index, [])).toEqual([]);
  });

  it("bm25IdealScore sums the idf of known distinct query terms", () => {
    // idf_read + idf_write = 0.4700036292 + 0.9808292530 = 1.4508328822 (zebra unknown → 0)
    expect(bm25IdealScore(index, ["read", "write", "write", "zebra"])).toBeCloseTo(1.4508328822, 9);
  });

  it("bm25FullIdealScore also counts each unknown distinct term at the idf of an unseen term", () => {
    // N = 3: unseen idf = ln(1 + 3.5 / 0.5) = ln 8 = 2.0794415417; zebra and yak once each (zebra repeated).
    expect(bm25FullIdealScore(index, ["read", "write", "zebra", "zebra", "yak"])).toBeCloseTo(
      1.4508328822 + 2 * 2.0794415417,
      9,
    );
    expect(bm25FullIdealScore(index, ["read", "write"])).toBeCloseTo(bm25IdealScore(index, ["read", "write"]), 12);
    expect(bm25FullIdealScore(index, [])).toBe(0);
  });
});

describe("edge cases", () => {
  it("empty corpus", () => {
    const index = buildBm25Index([]);
    expect(index.n).toBe(0);
    expect(searchBm25(index, ["a"])).toEqual([]);
  });

  it("all documents empty", () => {
    const index = buildBm25Index([[], []]);
    expect(index.avgdl).toBe(0);
    expect(searchBm25(index, ["a"])).toEqual([]);
  });

  it("identical documents tie and are ordered by document index", () => {
    const hits = searchBm25(buildBm25Index([["x"], ["y"], ["x"]]), ["x"]);
    expect(hits.map((h) => h.id)).toEqual([0, 2]);
    expect(hits[0]!.score).toBe(hits[1]!.score);
  });

  it("b = 0 ignores document length", () => {
    const index = buildBm25Index([["a"], ["a", "b", "c", "d"]], { b: 0 });
    const [h0, h1] = searchBm25(index, ["a"]);
    expect(h0!.score).toBe(h1!.score);
  });

  it("rejects bad parameters with a code", () => {
    expect(() => buildBm25Index([], { b: 2 })).toThrow(expect.objectContaining({ code: "bad-b" }));
    expect(() => buildBm25Index([], { k1: -1 })).toThrow(expect.objectContaining({ code: "bad-k1" }));
    expect(() => searchBm25(buildBm25Index([]), ["a"], -1)).toThrow(expect.objectContaining({ code: "bad-top-n" }));
  });
});

describe("properties", () => {
  const vocab = ["a", "b", "c", "d", "e"];
  const doc = fc.array(fc.constantFrom(...vocab), { maxLength: 8 });

  it("matches a naive implementation of the formula", () => {
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 12 }),
        fc.array(fc.constantFrom(...vocab), { maxLength: 4 }),
        (docs, q) => {
          const N = docs.length;
          const avgdl = docs.reduce((s, d) => s + d.length, 0) / N;
          const naive = docs.map((d) => {
            let s = 0;
            for (const t of new Set(q)) {
              const tf = d.filter((x) => x === t).length;
              if (tf === 0) continue;
              const df = docs.filter((x) => x.includes(t)).length;
              const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
              s += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.length) / avgdl));
            }
            return s;
          });
          const got = bm25Scores(buildBm25Index(docs), q);
          naive.forEach((s, i) => {
            expect(got[i]).toBeCloseTo(s, 10);
          });
        },
      ),
    );
  });

  it("results are sorted, positive and deterministic", () => {
    fc.assert(
      fc.property(
        fc.array(doc, { maxLength: 12 }),
        fc.array(fc.constantFrom(...vocab), { maxLength: 4 }),
        (docs, q) => {
          const index = buildBm25Index(docs);
          const hits = searchBm25(index, q, 100);
          for (let i = 0; i < hits.length; i++) {
            expect(hits[i]!.score).toBeGreaterThan(0);
            if (i > 0) {
              const a = hits[i - 1]!;
              const b = hits[i]!;
              expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true);
            }
          }
          expect(searchBm25(buildBm25Index(docs), q, 100)).toEqual(hits);
        },
      ),
    );
  });

  it("pruned top-N (both phases, list reads and galloping look-ups) equals the exhaustive top N on random Zipf-like corpora", () => {
    // Term w_r drawn with probability ∝ 1/(r+1): a few terms are in most documents (long lists looked up by
    // galloping once few candidates remain), many are rare (short lists read first); repeated words give tf > 1.
    const vocab = Array.from({ length: 40 }, (_, r) => `w${r}`);
    const weights = vocab.map((_, r) => 1 / (r + 1));
    const total = weights.reduce((a, b) => a + b, 0);
    const word = fc.double({ min: 0, max: total, noNaN: true }).map((x) => {
      let r = 0;
      for (let acc = weights[0]!; acc < x && r < vocab.length - 1; acc += weights[++r]!);
      return vocab[r]!;
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(word, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 400 }),
        fc.array(fc.constantFrom(...vocab), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 40 }),
        (docs, q, topN) => {
          const index = buildBm25Index(docs);
          const full = Array.from(bm25Scores(index, q), (score, id) => ({ id, score }))
            .filter((h) => h.score > 0)
            .sort((a, b) => b.score - a.score || a.id - b.id)
            .slice(0, topN);
          expect(searchBm25(index, q, topN)).toEqual(full);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("exact when many documents tie at the N-th score (identical documents around the cut)", () => {
    const docs = [
      ...Array.from({ length: 50 }, () => ["common", "rare"]),
      ...Array.from({ length: 300 }, () => ["common"]),
      ["rare", "rare", "common"],
    ];
    const index = buildBm25Index(docs);
    for (const topN of [1, 10, 50, 51, 60, 400]) {
      const full = Array.from(bm25Scores(index, ["rare", "common"]), (score, id) => ({ id, score }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || a.id - b.id)
        .slice(0, topN);
      expect(searchBm25(index, ["common", "rare"], topN)).toEqual(full);
    }
  });

  it("MaxScore pruning is exact: top-N equals the top N of the full score array, for every N", () => {
    // A skewed vocabulary (one term in most documents, rare terms elsewhere) so that pruning really triggers.
    const skewed = fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant("common") },
        { weight: 1, arbitrary: fc.constantFrom("r1", "r2", "r3", "r4", "r5", "r6") },
      ),
      {
        minLength: 1,
        maxLength: 6,
      },
    );
    fc.assert(
      fc.property(
        fc.array(skewed, { minLength: 1, maxLength: 60 }),
        fc.subarray(["common", "r1", "r2", "r3", "r4"], { minLength: 1 }),
        fc.integer({ min: 1, max: 20 }),
        (docs, q, topN) => {
          const index = buildBm25Index(docs);
          const full = Array.from(bm25Scores(index, q), (score, id) => ({ id, score }))
            .filter((h) => h.score > 0)
            .sort((a, b) => b.score - a.score || a.id - b.id)
            .slice(0, topN);
          expect(searchBm25(index, q, topN)).toEqual(full);
        },
      ),
      { numRuns: 300 },
    );
  });
  it("exact on a 12,000-document corpus shaped like the unique-intent memory (thousands of candidates before θ closes; one query term in every document, skipped by the completion)", () => {
    const rng = mulberry32(3);
    const base = Array.from({ length: 60 }, (_, i) => [`verb${i % 7}`, `object${i % 13}`, `thing${i}`]);
    const qualifiers = Array.from({ length: 45 }, (_, i) => `q${i}`);
    const pick = () => qualifiers[Math.floor(rng() * qualifiers.length)]!;
    const docs = Array.from({ length: 12_000 }, (_, d) => [
      ...base[d % base.length]!,
      pick(),
      pick(),
      "batch",
      `n${d}`,
    ]);
    const index = buildBm25Index(docs);
    for (let k = 0; k < 25; k++) {
      const q = [...docs[Math.floor(rng() * docs.length)]!, pick(), "please"];
      for (const topN of [1, 20, 60]) {
        const full = Array.from(bm25Scores(index, q), (score, id) => ({ id, score }))
          .filter((h) => h.score > 0)
          .sort((a, b) => b.score - a.score || a.id - b.id)
          .slice(0, topN);
        expect(searchBm25(index, q, topN)).toEqual(full);
      }
    }
  });
});

describe("buildBm25IndexSteps", () => {
  it("pauses every BM25_DOCS_PER_STEP documents of each pass and builds the same index", () => {
    const rng = mulberry32(7);
    const words = ["alpha", "beta", "gamma", "delta", "eps"];
    const docs = Array.from({ length: 600 }, () =>
      Array.from({ length: 1 + Math.floor(rng() * 6) }, () => words[Math.floor(rng() * words.length)]!),
    );
    const steps = buildBm25IndexSteps(docs);
    const pauses: number[] = [];
    let r = steps.next();
    while (!r.done) {
      pauses.push(r.value);
      r = steps.next();
    }
    // 600 documents: pauses after 256 and 512 counted, then after 256 and 512 posted (offset by n).
    expect(BM25_DOCS_PER_STEP).toBe(256);
    expect(pauses).toEqual([256, 512, 600 + 256, 600 + 512]);
    const whole = buildBm25Index(docs);
    expect(r.value.postingDocs).toEqual(whole.postingDocs);
    expect(r.value.postingImpact).toEqual(whole.postingImpact);
    expect(r.value.idf).toEqual(whole.idf);
    expect(searchBm25(r.value, ["beta", "eps"], 5)).toEqual(searchBm25(whole, ["beta", "eps"], 5));
  });
});
