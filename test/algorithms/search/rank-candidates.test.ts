/**
 * The ranking core on hand-built data: a tool that shares the query's words and direction ranks first; `top`
 * is exactly a prefix of the full ranking; `restrictTo` keeps the hits inside the subset; the derived signals are
 * read only when used (property-tested with fast-check over random catalogs and queries).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr } from "../../../algorithms/graph/csr.ts";
import { buildBm25Index } from "../../../algorithms/search/bm25.ts";
import { globalSignal } from "../../../algorithms/search/global-signal.ts";
import { type RankingData, rankCandidates } from "../../../algorithms/search/rank-candidates.ts";
import { tokenize } from "../../../algorithms/search/tokenize.ts";
import { buildVectorIndex } from "../../../algorithms/search/vector-index.ts";

const WORDS = ["send", "email", "read", "file", "create", "issue", "list", "repo", "weather", "song"];

function data(texts: string[], dirs: number[][], edges: [number, number][], counts: { global: number; coh: number }) {
  const n = texts.length;
  const dims = dirs[0]!.length;
  const vectors = new Float32Array(n * dims);
  dirs.forEach((v, i) => {
    const norm = Math.hypot(...v) || 1;
    v.forEach((x, j) => {
      vectors[i * dims + j] = x / norm;
    });
  });
  const executions = Uint32Array.from(texts, (_, i) => i % 3);
  const d: RankingData = {
    n,
    csr: buildCsr(
      n,
      edges.map(([from, to]) => ({ from, to, weight: 1 })),
    ),
    executions,
    addedAt: new Float64Array(n),
    bm25: buildBm25Index(texts.map((t) => tokenize(t))),
    vectors,
    vectorIndex: buildVectorIndex(vectors, dims),
    dims,
    globalSignal: () => {
      counts.global++;
      return globalSignal(new Float64Array(n).fill(1 / n), executions, n);
    },
    coherence: () => {
      counts.coh++;
      return new Float64Array(n).fill(0.5);
    },
  };
  return d;
}

const catalog = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    texts: fc.array(
      fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(" ")),
      {
        minLength: n,
        maxLength: n,
      },
    ),
    dirs: fc.array(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }), {
      minLength: n,
      maxLength: n,
    }),
    edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 2 * n }),
    query: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(" ")),
    qdir: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }),
    top: fc.integer({ min: 1, max: 5 }),
  }),
);

const unit = (v: number[]) => {
  const norm = Math.hypot(...v) || 1;
  return Float32Array.from(v, (x) => x / norm);
};

describe("rankCandidates", () => {
  it("ranks first the tool that matches the query's words and direction", () => {
    const counts = { global: 0, coh: 0 };
    const d = data(
      ["send an email", "read a file", "play a song"],
      [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
      [],
      counts,
    );
    const hits = rankCandidates(d, "send an email", unit([1, 0, 0]));
    expect(hits[0]!.index).toBe(0);
    expect(hits[0]!.cosine).toBeCloseTo(1, 6);
    expect(counts).toEqual({ global: 1, coh: 1 });
    // No graph term: neither derived signal is read.
    rankCandidates(d, "send an email", unit([1, 0, 0]), {}, { noGraph: true });
    expect(counts).toEqual({ global: 1, coh: 1 });
  });

  it("top is exactly a prefix of the full ranking; restrictTo keeps the hits in the subset", () => {
    fc.assert(
      fc.property(catalog, ({ texts, dirs, edges, query, qdir, top }) => {
        const d = data(texts, dirs, edges, { global: 0, coh: 0 });
        const q = unit(qdir);
        const full = rankCandidates(d, query, q);
        expect(rankCandidates(d, query, q, { top })).toEqual(full.slice(0, top));
        const subset = Int32Array.from({ length: Math.ceil(texts.length / 2) }, (_, i) => 2 * i).filter(
          (i) => i < texts.length,
        );
        const inside = new Set(subset);
        for (const h of rankCandidates(d, query, q, { restrictTo: subset })) expect(inside.has(h.index)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
