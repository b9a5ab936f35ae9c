import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25IdealScore, bm25Scores, buildBm25Index } from "../../../algorithms/search/bm25.ts";
import { fuseScores } from "../../../algorithms/search/fusion.ts";
import {
  buildNamespaceIndex,
  decideRoute,
  groupNamespaces,
  namespaceOf,
  scoreNamespaces,
  selectNamespaces,
} from "../../../algorithms/search/namespace-routing.ts";
import { SearchError } from "../../../algorithms/search/search-error.ts";

describe("namespaceOf", () => {
  it("takes the catalog server when present", () => {
    expect(namespaceOf({ id: "fs.read_file", server: "files" })).toBe("files");
  });
  it("falls back to the id prefix before . : / or __", () => {
    expect(namespaceOf({ id: "fs.read_file" })).toBe("fs");
    expect(namespaceOf({ id: "seal:getWeather" })).toBe("seal");
    expect(namespaceOf({ id: "github/create_issue" })).toBe("github");
    expect(namespaceOf({ id: "mcp__github__create_issue" })).toBe("mcp");
    expect(namespaceOf({ id: "a/b.c" })).toBe("a");
  });
  it("a blank server is ignored", () => {
    expect(namespaceOf({ id: "git.push", server: "  " })).toBe("git");
    expect(namespaceOf({ id: "git.push", server: null })).toBe("git");
  });
  it("an id without a prefix is its own namespace", () => {
    expect(namespaceOf({ id: "search" })).toBe("search");
    expect(namespaceOf({ id: "snake_case_tool" })).toBe("snake_case_tool");
    expect(namespaceOf({ id: "trailing." })).toBe("trailing.");
    expect(namespaceOf({ id: ".hidden" })).toBe(".hidden");
  });
});

describe("groupNamespaces", () => {
  it("groups tools in order of first appearance, members ascending", () => {
    const g = groupNamespaces(["fs", "git", "fs", "solo", "git"]);
    expect(g.names).toEqual(["fs", "git", "solo"]);
    expect([...g.toolNamespace]).toEqual([0, 1, 0, 2, 1]);
    expect([...g.offsets]).toEqual([0, 2, 4, 5]);
    expect([...g.members]).toEqual([0, 2, 1, 4, 3]);
  });
  it("no tools, no namespaces", () => {
    const g = groupNamespaces([]);
    expect(g.names).toEqual([]);
    expect([...g.offsets]).toEqual([0]);
  });
});

// Four tools in three namespaces, 2-d vectors:
//   t0 fs.read  (1, 0) ["read", "file"]      t1 fs.write (0, 1) ["write", "file"]
//   t2 git.push (1, 0) ["push", "branch"]    t3 solo     (0.6, 0.8) ["solo"]
const VECTORS = new Float32Array([1, 0, 0, 1, 1, 0, 0.6, 0.8]);
const DOCS = [["read", "file"], ["write", "file"], ["push", "branch"], ["solo"]];
const GROUPS = groupNamespaces(["fs", "fs", "git", "solo"]);
const INDEX = buildNamespaceIndex(GROUPS, VECTORS, 2, buildBm25Index(DOCS));

describe("buildNamespaceIndex (hand-computed)", () => {
  it("centroids are the normalised sums of the member vectors", () => {
    const c = [...INDEX.centroids];
    // fs: (1,1)/√2; git: (1,0); solo: (0.6, 0.8)
    expect(c[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(c[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(c.slice(2, 4)).toEqual([1, 0]);
    expect(c[4]).toBeCloseTo(0.6, 6);
    expect(c[5]).toBeCloseTo(0.8, 6);
  });
  it("keeps the tools' BM25 index for the lexical part", () => {
    expect(INDEX.toolBm25.n).toBe(4);
  });
  it("a namespace whose members have zero vectors has a zero centroid", () => {
    const idx = buildNamespaceIndex(
      groupNamespaces(["a", "b"]),
      new Float32Array([0, 0, 1, 0]),
      2,
      buildBm25Index([["x"], ["y"]]),
    );
    expect([...idx.centroids]).toEqual([0, 0, 1, 0]);
  });
  it("rejects vectors of the wrong size, naming the module", () => {
    expect(() => buildNamespaceIndex(GROUPS, new Float32Array(3), 2, buildBm25Index(DOCS))).toThrow(
      /namespace-routing: vectors has 3 values, expected 4 tools × 2/,
    );
    expect(() => buildNamespaceIndex(GROUPS, VECTORS, 2, buildBm25Index(DOCS.slice(0, 3)))).toThrow(SearchError);
  });
});

describe("scoreNamespaces (hand-computed)", () => {
  // Query "file", vector (1, 0). cos: fs 0.70711, git 1, solo 0.6.
  // Tool BM25 of "file": N 4, df 2 → idf = ln(1 + 2.5/2.5) = ln 2 = 0.693147; avgdl 7/4;
  // t0 and t1: tf 1, |D| 2 → norm = 0.25 + 0.75·2/1.75 = 1.107143; impact = idf·2.2/(1 + 1.2·1.107143)
  // = 0.654875 < ideal 0.693147 → lex: fs = 0.654875/0.693147 = 0.944785 (its best member), git 0, solo 0.
  const query = { tokens: ["file"], vector: [1, 0] };
  it("semantic part: β·cos⁺ + (1−β)·bm25ⁿ", () => {
    const r = scoreNamespaces(INDEX, query, { usageWeight: 0 });
    expect(r.cosine[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(r.bm25Norm[0]).toBeCloseTo(0.944785, 5);
    expect([r.bm25Norm[1], r.bm25Norm[2]]).toEqual([0, 0]);
    // fs 0.5·0.707107 + 0.5·0.944785 = 0.825946; git 0.5; solo 0.3
    expect(r.score[0]).toBeCloseTo(0.825946, 5);
    expect(r.score[1]).toBeCloseTo(0.5, 6);
    expect(r.score[2]).toBeCloseTo(0.3, 6);
  });
  it("the memory vote of a member lifts its namespace by the noisy-or", () => {
    // solo: 1 − (1 − 0.3)(1 − 0.8·0.5) = 1 − 0.7·0.6 = 0.58; the best member vote counts (max).
    const r = scoreNamespaces(INDEX, { ...query, toolVotes: new Map([[3, 0.5]]) }, { usageWeight: 0 });
    expect(r.memory[2]).toBe(0.5);
    expect(r.score[2]).toBeCloseTo(0.58, 6);
    const two = scoreNamespaces(
      INDEX,
      {
        ...query,
        toolVotes: new Map([
          [0, 0.2],
          [1, 0.6],
        ]),
      },
      { usageWeight: 0 },
    );
    expect(two.memory[0]).toBeCloseTo(0.6, 12);
  });
  it("the usage prior: ln(1 + successes) over the namespace, max-normalised", () => {
    // successes [3, 0, 7, 0] → fs 3, git 7, solo 0 → use fs = ln 4 / ln 8 = 2/3, git 1, solo 0.
    // λ 0.1: fs = 0.9·0.825946 + 0.1·2/3 = 0.810018; git = 0.9·0.5 + 0.1 = 0.55; solo = 0.27.
    const r = scoreNamespaces(INDEX, { ...query, successes: [3, 0, 7, 0] });
    expect(r.usage[0]).toBeCloseTo(2 / 3, 12);
    expect(r.usage[1]).toBe(1);
    expect(r.score[0]).toBeCloseTo(0.810018, 5);
    expect(r.score[1]).toBeCloseTo(0.55, 6);
    expect(r.score[2]).toBeCloseTo(0.27, 6);
  });
  it("a query vector of another dimension scores cosines 0; no known token scores BM25 0", () => {
    const r = scoreNamespaces(INDEX, { tokens: ["unknown"], vector: [1, 0, 0] }, { usageWeight: 0 });
    expect([...r.score]).toEqual([0, 0, 0]);
  });
  it("rejects weights outside [0, 1] and votes for unknown tools", () => {
    expect(() => scoreNamespaces(INDEX, query, { beta: 1.5 })).toThrow(/beta must be in \[0, 1\], got 1.5/);
    expect(() => scoreNamespaces(INDEX, { ...query, toolVotes: new Map([[9, 1]]) })).toThrow(/tool index 9/);
  });
});

describe("selectNamespaces (adaptive B)", () => {
  const scores = [0.853553, 0.5, 0.3]; // fs (2 tools), git (1), solo (1)
  it("the smallest prefix with minNamespaces and minTools", () => {
    const r = selectNamespaces(GROUPS, scores, { minNamespaces: 1, minTools: 2 });
    expect(r.namespaces).toEqual([0]);
    expect([...r.tools]).toEqual([0, 1]);
    const r3 = selectNamespaces(GROUPS, scores, { minNamespaces: 1, minTools: 3 });
    expect(r3.namespaces).toEqual([0, 1]);
    expect([...r3.tools]).toEqual([0, 1, 2]);
  });
  it("widened to near-ties of the best (closeRatio)", () => {
    // floor = 0.5·0.853553 = 0.43: git (0.5) joins, solo (0.3) does not.
    const r = selectNamespaces(GROUPS, scores, { minNamespaces: 1, minTools: 1, closeRatio: 0.5 });
    expect(r.namespaces).toEqual([0, 1]);
    expect(r.reason).toMatch(/plus 1 within 50 % of the best/);
  });
  it("capped at maxNamespaces", () => {
    const r = selectNamespaces(GROUPS, scores, { minNamespaces: 3, minTools: 0, maxNamespaces: 2 });
    expect(r.namespaces).toEqual([0, 1]);
    expect(r.reason).toMatch(/capped at 2/);
  });
  it("ties broken by the smaller namespace index", () => {
    expect(
      selectNamespaces(GROUPS, [0.4, 0.4, 0.4], { minNamespaces: 1, minTools: 1, closeRatio: 1 }).namespaces,
    ).toEqual([0, 1, 2]);
    expect(
      selectNamespaces(GROUPS, [0.2, 0.4, 0.4], { minNamespaces: 1, minTools: 1, closeRatio: 1 }).namespaces,
    ).toEqual([1, 2]);
  });
  it("zero scores everywhere: the minimum B, nothing widened", () => {
    expect(selectNamespaces(GROUPS, [0, 0, 0], { minNamespaces: 2, minTools: 0 }).namespaces).toEqual([0, 1]);
  });
  it("no namespaces: empty answer with a reason", () => {
    const r = selectNamespaces(groupNamespaces([]), []);
    expect(r.namespaces).toEqual([]);
    expect(r.reason).toBe("no namespaces");
  });
  it("rejects a score array of the wrong length and bad bounds", () => {
    expect(() => selectNamespaces(GROUPS, [1, 2])).toThrow(/expected 3 namespace scores, got 2/);
    expect(() => selectNamespaces(GROUPS, scores, { minNamespaces: 0 })).toThrow(
      /minNamespaces must be an integer ≥ 1/,
    );
  });
});

// Random catalogs: n tools with unit vectors in d dimensions and token documents over a small vocabulary.
const VOCAB = ["read", "write", "file", "push", "branch", "email", "send", "query", "table", "deploy"];
const D = 4;
const catalog = fc.integer({ min: 1, max: 12 }).chain((n) =>
  fc.record({
    vectors: fc.array(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: D, maxLength: D }), {
      minLength: n,
      maxLength: n,
    }),
    docs: fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 6 }), { minLength: n, maxLength: n }),
    namespaces: fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: n, maxLength: n }),
    query: fc.array(fc.constantFrom(...VOCAB, "unknown"), { maxLength: 3 }),
    qv: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: D, maxLength: D }),
  }),
);

function unitRows(rows: number[][]): Float32Array {
  const out = new Float32Array(rows.length * D);
  rows.forEach((r, i) => {
    const norm = Math.hypot(...r);
    if (norm > 1e-6) for (let j = 0; j < D; j++) out[i * D + j] = r[j]! / norm;
  });
  return out;
}

describe("properties", () => {
  it("one tool per namespace: namespace scores equal the flat fused semantic scores, and B namespaces are the flat top-B tools", () => {
    fc.assert(
      fc.property(catalog, fc.double({ min: 0, max: 1, noNaN: true }), ({ vectors, docs, query, qv }, beta) => {
        const n = docs.length;
        const vec = unitRows(vectors);
        const toolBm25 = buildBm25Index(docs);
        const idx = buildNamespaceIndex(groupNamespaces(docs.map((_, i) => `tool-${i}`)), vec, D, toolBm25);
        const q = Array.from(unitRows([qv]));
        const r = scoreNamespaces(idx, { tokens: query, vector: q }, { beta, usageWeight: 0 });
        // Flat: exact cosine of every tool and every BM25 score, fused (fusion.ts).
        const cos = Array.from({ length: n }, (_, i) => ({
          id: i,
          score: vec.slice(i * D, (i + 1) * D).reduce((s, x, j) => s + x * q[j]!, 0),
        }));
        const bm = [...bm25Scores(toolBm25, query)].map((score, id) => ({ id, score })).filter((h) => h.score > 0);
        const flat = fuseScores(cos, bm, { beta, bm25Ideal: bm25IdealScore(toolBm25, query) });
        for (const h of flat) expect(r.score[h.id]).toBeCloseTo(h.semantic, 5);
        // Selecting B singleton namespaces keeps the flat top-B tools (scores compared, ties aside).
        const B = Math.min(3, n);
        const routed = selectNamespaces(idx.groups, r.score, { minNamespaces: B, minTools: 0, closeRatio: 1 });
        const kept = routed.namespaces.map((g) => flat.find((h) => h.id === g)!.semantic).sort((a, b) => b - a);
        const best = flat.slice(0, B).map((h) => h.semantic);
        // (closeRatio 1 may add namespaces tied with the best: the first B kept are the flat top-B.)
        expect(kept.length).toBeGreaterThanOrEqual(B);
        for (let i = 0; i < B; i++) expect(kept[i]).toBeCloseTo(best[i]!, 5);
      }),
      { numRuns: 150 },
    );
  });

  it("scores lie in [0, 1]; routing is deterministic; candidates are exactly the chosen namespaces' members", () => {
    fc.assert(
      fc.property(
        catalog,
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 12 }),
        ({ vectors, docs, namespaces, query, qv }, minNs, minTools) => {
          const vec = unitRows(vectors);
          const groups = groupNamespaces(namespaces);
          const idx = buildNamespaceIndex(groups, vec, D, buildBm25Index(docs));
          const votes = new Map([[0, 0.7]]);
          const q = Array.from(unitRows([qv]));
          const a = scoreNamespaces(idx, {
            tokens: query,
            vector: q,
            toolVotes: votes,
            successes: docs.map((_, i) => i % 3),
          });
          const b = scoreNamespaces(idx, {
            tokens: query,
            vector: q,
            toolVotes: votes,
            successes: docs.map((_, i) => i % 3),
          });
          expect([...a.score]).toEqual([...b.score]);
          for (const x of a.score) {
            expect(x).toBeGreaterThanOrEqual(0);
            expect(x).toBeLessThanOrEqual(1);
          }
          const r1 = selectNamespaces(groups, a.score, { minNamespaces: minNs, minTools });
          const r2 = selectNamespaces(groups, a.score, { minNamespaces: minNs, minTools });
          expect(r1).toEqual(r2);
          expect(r1.namespaces.length).toBeGreaterThanOrEqual(Math.min(minNs, groups.names.length));
          const chosen = new Set(r1.namespaces);
          const expected = namespaces.map((_, t) => t).filter((t) => chosen.has(groups.toolNamespace[t]!));
          expect([...r1.tools]).toEqual(expected);
          expect(
            r1.tools.length >= minTools || r1.namespaces.length === groups.names.length || r1.namespaces.length === 64,
          ).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("the centroid vector index (large catalogs) gives the exact scores when its shortlist covers every namespace", () => {
    fc.assert(
      fc.property(catalog, ({ vectors, docs, namespaces, query, qv }) => {
        const groups = groupNamespaces(namespaces);
        const vec = unitRows(vectors);
        const exact = buildNamespaceIndex(groups, vec, D, buildBm25Index(docs));
        const indexed = buildNamespaceIndex(groups, vec, D, buildBm25Index(docs), { centroidIndexFrom: 1 });
        expect(exact.centroidIndex).toBeUndefined();
        expect(indexed.centroidIndex).toBeDefined();
        const q = { tokens: query, vector: Array.from(unitRows([qv])) };
        const a = scoreNamespaces(exact, q);
        const b = scoreNamespaces(indexed, q, { centroidShortlist: groups.names.length });
        for (let g = 0; g < groups.names.length; g++) expect(b.score[g]).toBeCloseTo(a.score[g]!, 6);
      }),
    );
  });

  it("outside the centroid shortlist, a namespace with lexical evidence keeps its exact cosine; one without has cos 0", () => {
    // Query (0.6, 0.8): exact cosines solo 1, fs 0.989949, git 0.6. A shortlist of 1 keeps solo; "file"
    // matches fs only, so fs gets its exact cosine and git (no evidence) 0.
    const indexed = buildNamespaceIndex(GROUPS, VECTORS, 2, buildBm25Index(DOCS), { centroidIndexFrom: 1 });
    const r = scoreNamespaces(
      indexed,
      { tokens: ["file"], vector: [0.6, 0.8] },
      { centroidShortlist: 1, usageWeight: 0 },
    );
    expect(r.cosine[2]).toBeCloseTo(1, 6);
    expect(r.cosine[0]).toBeCloseTo(1.4 * Math.SQRT1_2, 6);
    expect(r.cosine[1]).toBe(0);
  });

  it("when B covers every namespace, two-hop searches every tool", () => {
    fc.assert(
      fc.property(catalog, ({ vectors, docs, namespaces, query, qv }) => {
        const groups = groupNamespaces(namespaces);
        const idx = buildNamespaceIndex(groups, unitRows(vectors), D, buildBm25Index(docs));
        const s = scoreNamespaces(idx, { tokens: query, vector: Array.from(unitRows([qv])) });
        const r = selectNamespaces(groups, s.score, { minNamespaces: groups.names.length, minTools: 0 });
        expect([...r.tools]).toEqual(docs.map((_, i) => i));
      }),
    );
  });
});

describe("decideRoute (the measured route of auto)", () => {
  // medians: flat [3, 1, 2] → 2 ms, two-hop [1, 1, 5] → 1 ms; mean overlap (1 + 1 + 0.7) / 3 = 0.9
  const samples = [
    { flatMs: 3, twoHopMs: 1, overlap: 1 },
    { flatMs: 1, twoHopMs: 1, overlap: 1 },
    { flatMs: 2, twoHopMs: 5, overlap: 0.7 },
  ];

  it("two-hop when 1.1 × its median ≤ flat's median and the mean top-10 overlap ≥ 0.9 (hand-computed)", () => {
    const d = decideRoute(samples);
    expect(d).toMatchObject({ mode: "two-hop", flatMs: 2, twoHopMs: 1 });
    expect(d.overlap).toBeCloseTo(0.9, 12);
    expect(d.reason).toBe("two-hop (3 queries: two-hop p50 1.00 ms vs flat 2.00 ms, top-10 overlap 0.90)");
  });

  it("flat when two-hop is not 1.1× faster (median 1.9 ms: 2.09 > 2) or agrees less (overlap 0.8)", () => {
    const slower = samples.map((x, i) => (i === 1 ? { ...x, twoHopMs: 1.9 } : i === 0 ? { ...x, twoHopMs: 1.95 } : x));
    expect(decideRoute(slower)).toMatchObject({ mode: "flat", twoHopMs: 1.95 });
    expect(decideRoute(slower).reason).toMatch(/two-hop not 1\.1× faster\)$/);
    const worse = samples.map((x, i) => (i === 2 ? { ...x, overlap: 0.4 } : x));
    expect(decideRoute(worse).mode).toBe("flat");
    expect(decideRoute(worse).reason).toMatch(/agrees on less than 0\.9\)$/);
    // an even count takes the mean of the middle two: flat [1, 2, 3, 4] → 2.5, two-hop 1 → two-hop (1.1 ≤ 2.5)
    expect(decideRoute([1, 2, 3, 4].map((f) => ({ flatMs: f, twoHopMs: 1, overlap: 1 })))).toMatchObject({
      mode: "two-hop",
      flatMs: 2.5,
    });
  });

  it("misuse throws with a code", () => {
    expect(() => decideRoute([])).toThrow(expect.objectContaining({ code: "bad-samples" }));
    expect(() => decideRoute([{ flatMs: 1, twoHopMs: 1, overlap: 1.5 }])).toThrow(
      expect.objectContaining({ code: "bad-samples" }),
    );
    expect(() => decideRoute(samples, { minSpeedup: 0 })).toThrow(expect.objectContaining({ code: "bad-min-speedup" }));
    expect(() => decideRoute(samples, { minOverlap: 2 })).toThrow(expect.objectContaining({ code: "bad-minOverlap" }));
  });
});
