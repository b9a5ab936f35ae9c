import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildCsr, type CsrEdge } from "../../../algorithms/graph/csr.ts";
import {
  buildNextStepModel,
  markovBaseline,
  mostPopular,
  type NextStepModel,
  nextStepTerms,
  suggestNextSteps,
} from "../../../algorithms/prediction/next-step.ts";
import { PredictionError } from "../../../algorithms/prediction/prediction-error.ts";

const H = 60 * 60 * 1000;
const NOW = 1_000_000_000_000;

/**
 * Fixture: 6 tools.
 *   0→1 (0.5), 0→2 (1.0), 0→3 (0.5), 1→2 (1.0), 2→4 (0.5), 3→5 (1.0)
 *   out-sum(0) = 2 → P(1|0) = 0.25, P(2|0) = 0.5, P(3|0) = 0.25; P(2|1) = 1
 *   community [0, 0, 0, 1, 1, -1]; pagerank [0.2, 0.4, 1.0, 0.1, 0.5, 0]
 *   lastUsedAt: tool 1 1 h ago, tool 3 25 h ago, tool 4 exactly 24 h ago, others never.
 */
const edges: CsrEdge[] = [
  { from: 0, to: 1, weight: 0.5 },
  { from: 0, to: 2, weight: 1.0 },
  { from: 0, to: 3, weight: 0.5 },
  { from: 1, to: 2, weight: 1.0 },
  { from: 2, to: 4, weight: 0.5 },
  { from: 3, to: 5, weight: 1.0 },
];
const community = Int32Array.from([0, 0, 0, 1, 1, -1]);
const pagerank = Float64Array.from([0.2, 0.4, 1.0, 0.1, 0.5, 0]);
const lastUsedAt = Float64Array.from([NaN, NOW - H, NaN, NOW - 25 * H, NOW - 24 * H, NaN]);

function fixture(): NextStepModel {
  return buildNextStepModel({ graph: buildCsr(6, edges), community, pagerank, lastUsedAt });
}

const tools = (r: { suggestions: { tool: number }[] }) => r.suggestions.map((s) => s.tool);

describe("suggestNextSteps: the four terms by hand", () => {
  it("ranks the fixture with the default weights", () => {
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW });
    // 2: 0.6·0.5 + 0.3·1 + 0.1·0 + 0.1·1.0 = 0.70
    // 1: 0.6·0.25 + 0.3·1 + 0.1·1 + 0.1·0.4 = 0.59
    // 3: 0.6·0.25 + 0 + 0 (25 h > 24 h) + 0.1·0.1 = 0.16
    // 4: 0 + 0 + 0.1·1 (exactly 24 h) + 0.1·0.5 = 0.15
    // 5: 0 (2-hop via 3, pagerank 0)
    expect(tools(r)).toEqual([2, 1, 3, 4, 5]);
    const [s2, s1, s3, s4, s5] = r.suggestions;
    expect(s2!.score).toBeCloseTo(0.7, 12);
    expect(s2!.confidence).toBeCloseTo(0.7 / 1.1, 12);
    expect(s1!.score).toBeCloseTo(0.59, 12);
    expect(s3!.score).toBeCloseTo(0.16, 12);
    expect(s4!.score).toBeCloseTo(0.15, 12);
    expect(s5!.score).toBe(0);
    expect(r.reason).toBeUndefined();
  });

  it("lists each term's value, weight and contribution", () => {
    const s1 = suggestNextSteps(fixture(), { context: [0], now: NOW }).suggestions.find((s) => s.tool === 1)!;
    expect(s1.terms.cooc).toEqual({ value: 0.25, weight: 0.6, contribution: 0.15 });
    expect(s1.terms.community).toEqual({ value: 1, weight: 0.3, contribution: 0.3 });
    expect(s1.terms.recency).toEqual({ value: 1, weight: 0.1, contribution: 0.1 });
    expect(s1.terms.pagerank.value).toBe(0.4);
    expect(s1.terms.pagerank.contribution).toBeCloseTo(0.04, 12);
    expect(s1.coocFrom).toBe(0);
  });

  it("decays earlier context tools geometrically (γ = 0.5)", () => {
    // context [1, 0]: u0 = 0, u1 = 1; denominator 1 + 0.5 = 1.5
    // cooc(2) = (0.5 + 0.5·P(2|1)=1) / 1.5 = 2/3; cooc(1) = cooc(3) = 0.25 / 1.5 = 1/6
    const r = suggestNextSteps(fixture(), { context: [1, 0], now: NOW });
    const byTool = new Map(r.suggestions.map((s) => [s.tool, s]));
    expect(byTool.get(2)!.terms.cooc.value).toBeCloseTo(2 / 3, 12);
    expect(byTool.get(1)!.terms.cooc.value).toBeCloseTo(1 / 6, 12);
    expect(byTool.get(3)!.terms.cooc.value).toBeCloseTo(1 / 6, 12);
    // 2's largest cooc part: from u1 = 1 (0.5·1 = 0.5) equals u0's 0.5 → first seen (u0 = 0) kept
    expect(byTool.get(2)!.coocFrom).toBe(0);
  });

  it("γ = 0 uses only the last tool", () => {
    const r = suggestNextSteps(fixture(), { context: [1, 0], now: NOW }, { contextDecay: 0 });
    const byTool = new Map(r.suggestions.map((s) => [s.tool, s]));
    expect(byTool.get(2)!.terms.cooc.value).toBe(0.5);
    expect(byTool.get(1)!.terms.cooc.value).toBe(0.25);
  });

  it("contextWindow 1 ignores earlier tools even with γ > 0", () => {
    const r = suggestNextSteps(fixture(), { context: [1, 0], now: NOW }, { contextWindow: 1 });
    expect(r.suggestions.find((s) => s.tool === 2)!.terms.cooc.value).toBe(0.5);
  });

  it("uses the transition-count CSR for cooc when given", () => {
    // counts 0→3: 3, 0→5: 1 → P(3|0) = 0.75, P(5|0) = 0.25; P(1|0) = 0 despite the graph edge 0→1
    const transitions = buildCsr(6, [
      { from: 0, to: 3, weight: 3 },
      { from: 0, to: 5, weight: 1 },
    ]);
    const model = buildNextStepModel({ graph: buildCsr(6, edges), transitions, community, pagerank, lastUsedAt });
    const r = suggestNextSteps(model, { context: [0], now: NOW }, { limit: 10 });
    const byTool = new Map(r.suggestions.map((s) => [s.tool, s]));
    expect(byTool.get(3)!.terms.cooc.value).toBe(0.75);
    expect(byTool.get(5)!.terms.cooc.value).toBe(0.25);
    expect(byTool.get(1)!.terms.cooc.value).toBe(0);
    expect(byTool.get(2)!.terms.cooc.value).toBe(0);
  });

  it("exponential recency: exp(−Δt/τ)", () => {
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW }, { recencyMode: "exponential" });
    const byTool = new Map(r.suggestions.map((s) => [s.tool, s]));
    expect(byTool.get(1)!.terms.recency.value).toBeCloseTo(Math.exp(-1 / 24), 12); // 1 h / 24 h
    expect(byTool.get(4)!.terms.recency.value).toBeCloseTo(Math.exp(-1), 12); // 24 h / 24 h
    expect(byTool.get(3)!.terms.recency.value).toBeCloseTo(Math.exp(-25 / 24), 12);
    expect(byTool.get(2)!.terms.recency.value).toBe(0); // never used
  });

  it("a use in the future (clock skew) counts as Δt = 0", () => {
    const model = buildNextStepModel({
      graph: buildCsr(2, [{ from: 0, to: 1, weight: 1 }]),
      lastUsedAt: Float64Array.from([NaN, NOW + H]),
    });
    expect(suggestNextSteps(model, { context: [0], now: NOW }).suggestions[0]!.terms.recency.value).toBe(1);
  });

  it("community is 0 when the last tool has no community", () => {
    const r = suggestNextSteps(fixture(), { context: [0, 3, 5], now: NOW }, { limit: 10 });
    for (const s of r.suggestions) expect(s.terms.community.value).toBe(0);
  });

  it("suggestion terms equal nextStepTerms for the same tool", () => {
    const model = fixture();
    const q = { context: [1, 0], now: NOW };
    for (const s of suggestNextSteps(model, q, { limit: 10 }).suggestions) {
      const t = nextStepTerms(model, q, s.tool);
      expect(s.terms.cooc.value).toBeCloseTo(t.cooc, 14);
      expect(s.terms.community.value).toBe(t.community);
      expect(s.terms.recency.value).toBe(t.recency);
      expect(s.terms.pagerank.value).toBe(t.pagerank);
    }
  });
});

describe("suggestNextSteps: candidates and exclusions", () => {
  it("excludes only the last tool by default (repeats allowed)", () => {
    const r = suggestNextSteps(fixture(), { context: [1, 0], now: NOW }, { limit: 10 });
    expect(tools(r)).toContain(1);
    expect(tools(r)).not.toContain(0);
  });

  it("repeats 'exclude-context' drops every context tool", () => {
    const r = suggestNextSteps(fixture(), { context: [1, 0], now: NOW }, { limit: 10, repeats: "exclude-context" });
    expect(tools(r)).not.toContain(1);
    expect(tools(r)).not.toContain(0);
  });

  it("repeats 'allow' can suggest the last tool", () => {
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW }, { limit: 10, repeats: "allow" });
    expect(tools(r)).toContain(0);
  });

  it("blocked tools are never suggested", () => {
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW }, { limit: 10, blocked: (t) => t === 2 });
    expect(tools(r)).toEqual([1, 3, 4, 5]);
  });

  it("hops 1 without fallbacks keeps only direct successors", () => {
    const r = suggestNextSteps(
      fixture(),
      { context: [0], now: NOW },
      { limit: 10, hops: 1, communityFallback: 0, pagerankFallback: 0, recentFallback: 0 },
    );
    expect(tools(r).sort()).toEqual([1, 2, 3]);
  });

  it("finds the same top list as a brute-force scan when fallbacks cover the graph", () => {
    fc.assert(
      fc.property(randomModel(), fc.integer({ min: 0, max: 1000 }), ({ model, n }, seed) => {
        const ctx = [seed % n, (seed * 7) % n];
        const q = { context: ctx, now: NOW };
        const r = suggestNextSteps(model, q, { limit: n, pagerankFallback: n });
        const w = { cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 };
        const brute = Array.from({ length: n }, (_, t) => t)
          .filter((t) => t !== ctx[ctx.length - 1])
          .map((t) => {
            const x = nextStepTerms(model, q, t);
            return {
              t,
              s: w.cooc * x.cooc + w.community * x.community + w.recency * x.recency + w.pagerank * x.pagerank,
              p: x.pagerank,
            };
          })
          .sort((a, b) => b.s - a.s || b.p - a.p || a.t - b.t);
        expect(r.suggestions.map((s) => s.tool)).toEqual(brute.map((b) => b.t));
        r.suggestions.forEach((s, i) => {
          expect(s.score).toBeCloseTo(brute[i]!.s, 12);
        });
      }),
      { numRuns: 60 },
    );
  });
});

describe("suggestNextSteps: the best `limit` kept while scoring", () => {
  it("equals the prefix of the full ranking (every candidate sorted), ties in score and PageRank included", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 120 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(0.25, 0.5, 1)), { maxLength: 400 }),
        fc.array(fc.constantFrom(0, 0.5, 1), { minLength: 120, maxLength: 120 }),
        fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 120, maxLength: 120 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(
          { cooc: 0.6, community: 0.3, recency: 0.1, pagerank: 0.1 },
          { cooc: 1, community: 0, recency: 0, pagerank: 0 },
          { cooc: 0, community: 1, recency: 0, pagerank: 0 },
        ),
        (n, raw, pr, comm, seed, weights) => {
          const model = buildNextStepModel({
            graph: buildCsr(
              n,
              raw.map(([a, b, w]) => ({ from: a % n, to: b % n, weight: w })),
            ),
            community: Int32Array.from(comm.slice(0, n)),
            pagerank: Float64Array.from(pr.slice(0, n)),
          });
          const q = { context: [seed % n, (seed * 7) % n], now: NOW };
          const full = suggestNextSteps(model, q, { weights, limit: 1000 });
          for (const limit of [0, 1, 3, 10, 64, 65]) {
            const r = suggestNextSteps(model, q, { weights, limit });
            expect(r.suggestions).toEqual(full.suggestions.slice(0, limit));
            expect(r.candidatesScored).toBe(full.candidatesScored);
          }
        },
      ),
      { numRuns: 80 },
    );
  });
});

describe("suggestNextSteps: edge cases", () => {
  it("empty graph → empty with reason", () => {
    const model = buildNextStepModel({ graph: buildCsr(0, []) });
    const r = suggestNextSteps(model, { context: [], now: NOW });
    expect(r.suggestions).toEqual([]);
    expect(r.reason).toBe("empty graph");
  });

  it("single tool as the context → no candidate, with reason", () => {
    const model = buildNextStepModel({ graph: buildCsr(1, []) });
    const r = suggestNextSteps(model, { context: [0], now: NOW });
    expect(r.suggestions).toEqual([]);
    expect(r.reason).toMatch(/no candidate/);
  });

  it("empty context → global fallback by PageRank, with reason", () => {
    const r = suggestNextSteps(fixture(), { context: [], now: NOW }, { limit: 3 });
    // 2: 0.1·1.0 = 0.10; 1: 0.1·1 + 0.1·0.4 = 0.14; 4: 0.1·1 + 0.1·0.5 = 0.15
    expect(tools(r)).toEqual([4, 1, 2]);
    expect(r.reason).toMatch(/empty context/);
    for (const s of r.suggestions) expect(s.terms.cooc.value).toBe(0);
  });

  it("last tool without out-edges → cooc 0 for every candidate", () => {
    const r = suggestNextSteps(fixture(), { context: [5], now: NOW }, { limit: 10 });
    expect(r.suggestions.length).toBeGreaterThan(0);
    for (const s of r.suggestions) {
      expect(s.terms.cooc.value).toBe(0);
      expect(s.coocFrom).toBeNull();
    }
  });

  it("last tool without out-edges and γ = 0 → cooc 0 even with a rich earlier tool", () => {
    const r = suggestNextSteps(fixture(), { context: [0, 5], now: NOW }, { limit: 10, contextDecay: 0 });
    for (const s of r.suggestions) expect(s.terms.cooc.value).toBe(0);
  });

  it("zero weights → every score and confidence 0, order by PageRank then id", () => {
    const zero = { cooc: 0, community: 0, recency: 0, pagerank: 0 };
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW }, { weights: zero, limit: 10 });
    for (const s of r.suggestions) {
      expect(s.score).toBe(0);
      expect(s.confidence).toBe(0);
    }
    expect(tools(r)).toEqual([2, 4, 1, 3, 5]);
  });

  it("partial weights take the defaults for missing fields", () => {
    const r = suggestNextSteps(fixture(), { context: [0], now: NOW }, { weights: { cooc: 1 } });
    // 2: 1·0.5 + 0.3 + 0 + 0.1 = 0.9, Σw = 1.5
    const s2 = r.suggestions.find((s) => s.tool === 2)!;
    expect(s2.score).toBeCloseTo(0.9, 12);
    expect(s2.confidence).toBeCloseTo(0.6, 12);
  });

  it("disconnected parts: a context in one part still gets fallback candidates from the other", () => {
    const model = buildNextStepModel({
      graph: buildCsr(4, [
        { from: 0, to: 1, weight: 1 },
        { from: 2, to: 3, weight: 1 },
      ]),
      pagerank: Float64Array.from([0, 0, 0, 1]),
    });
    const r = suggestNextSteps(model, { context: [0], now: NOW }, { limit: 10 });
    expect(tools(r)).toEqual([1, 3, 2]); // 1: 0.6; 3: 0.1; 2: 0
  });
});

describe("suggestNextSteps: misuse throws PredictionError", () => {
  it("context tool out of range", () => {
    expect(() => suggestNextSteps(fixture(), { context: [6], now: NOW })).toThrow(PredictionError);
    expect(() => suggestNextSteps(fixture(), { context: [-1], now: NOW })).toThrow(
      expect.objectContaining({ code: "bad-tool", message: expect.stringMatching(/^next-step: .*-1/) }),
    );
  });

  it("negative weight", () => {
    expect(() => suggestNextSteps(fixture(), { context: [0], now: NOW }, { weights: { cooc: -1 } })).toThrow(
      expect.objectContaining({ code: "bad-weights" }),
    );
  });

  it("pagerank outside [0, 1]", () => {
    expect(() => buildNextStepModel({ graph: buildCsr(2, []), pagerank: Float64Array.from([0.5, 2]) })).toThrow(
      expect.objectContaining({ code: "bad-pagerank" }),
    );
  });

  it("array of the wrong length", () => {
    expect(() => buildNextStepModel({ graph: buildCsr(2, []), community: new Int32Array(3) })).toThrow(
      expect.objectContaining({ code: "bad-length" }),
    );
  });

  it("bad options", () => {
    const q = { context: [0], now: NOW };
    expect(() => suggestNextSteps(fixture(), q, { contextDecay: 1.5 })).toThrow(
      expect.objectContaining({ code: "bad-option" }),
    );
    expect(() => suggestNextSteps(fixture(), q, { contextWindow: 0 })).toThrow(
      expect.objectContaining({ code: "bad-option" }),
    );
    expect(() => suggestNextSteps(fixture(), q, { limit: -1 })).toThrow(
      expect.objectContaining({ code: "bad-option" }),
    );
    expect(() => suggestNextSteps(fixture(), q, { pagerankFallback: 1.5 })).toThrow(
      expect.objectContaining({ code: "bad-option", message: expect.stringMatching(/pagerankFallback = 1.5/) }),
    );
  });

  it("non-finite now", () => {
    expect(() => suggestNextSteps(fixture(), { context: [0], now: Number.NaN })).toThrow(
      expect.objectContaining({ code: "bad-time" }),
    );
  });
});

function randomModel() {
  return fc
    .record({
      n: fc.integer({ min: 2, max: 25 }),
      raw: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.double({ min: 0.01, max: 1, noNaN: true })), { maxLength: 80 }),
      comm: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 25, maxLength: 25 }),
      pr: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 25, maxLength: 25 }),
      used: fc.array(fc.option(fc.integer({ min: 0, max: 72 }), { nil: undefined }), { minLength: 25, maxLength: 25 }),
    })
    .map(({ n, raw, comm, pr, used }) => {
      const graph = buildCsr(
        n,
        raw.map(([a, b, w]) => ({ from: a % n, to: b % n, weight: w })),
      );
      const model = buildNextStepModel({
        graph,
        community: Int32Array.from(comm.slice(0, n)),
        pagerank: Float64Array.from(pr.slice(0, n)),
        lastUsedAt: Float64Array.from(used.slice(0, n).map((h) => (h === undefined ? Number.NaN : NOW - h * H))),
      });
      return { model, n };
    });
}

describe("suggestNextSteps: properties", () => {
  it("scores finite, confidence in [0, 1], score = Σ contributions, sorted, blocked never suggested", () => {
    fc.assert(
      fc.property(
        randomModel(),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ({ model, n }, rawCtx, rawBlocked, gamma) => {
          const ctx = rawCtx.map((t) => t % n);
          const blocked = new Set(rawBlocked.map((t) => t % n));
          const q = { context: ctx, now: NOW };
          const opts = { limit: n, contextDecay: gamma, blocked: (t: number) => blocked.has(t) };
          const r = suggestNextSteps(model, q, opts);
          let prev = Number.POSITIVE_INFINITY;
          for (const s of r.suggestions) {
            expect(blocked.has(s.tool)).toBe(false);
            expect(Number.isFinite(s.score)).toBe(true);
            expect(s.confidence).toBeGreaterThanOrEqual(0);
            expect(s.confidence).toBeLessThanOrEqual(1);
            const sum =
              s.terms.cooc.contribution +
              s.terms.community.contribution +
              s.terms.recency.contribution +
              s.terms.pagerank.contribution;
            expect(s.score).toBeCloseTo(sum, 12);
            for (const v of [
              s.terms.cooc.value,
              s.terms.community.value,
              s.terms.recency.value,
              s.terms.pagerank.value,
            ]) {
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThanOrEqual(1 + 1e-12);
            }
            expect(s.score).toBeLessThanOrEqual(prev);
            prev = s.score;
          }
          expect(suggestNextSteps(model, q, opts)).toEqual(r);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("baselines", () => {
  it("markovBaseline ranks by P(B | last tool)", () => {
    const r = markovBaseline(buildCsr(6, edges), [3, 0]);
    // P(2|0) = 0.5, P(1|0) = P(3|0) = 0.25 (tie → id asc)
    expect(r.suggestions).toEqual([
      { tool: 2, score: 0.5 },
      { tool: 1, score: 0.25 },
      { tool: 3, score: 0.25 },
    ]);
  });

  it("markovBaseline: empty context, no out-edges and blocked give reasons", () => {
    const g = buildCsr(6, edges);
    expect(markovBaseline(g, []).reason).toBe("empty context");
    expect(markovBaseline(g, [5]).reason).toMatch(/no out-transitions/);
    expect(markovBaseline(g, [3], { blocked: (t) => t === 5 }).reason).toMatch(/blocked/);
  });

  it("mostPopular ranks by popularity, drops zero, honours exclude and limit", () => {
    const r = mostPopular([3, 0, 5, 5, 1], { exclude: [4], limit: 2 });
    expect(r.suggestions).toEqual([
      { tool: 2, score: 5 },
      { tool: 3, score: 5 },
    ]);
    expect(mostPopular([0, 0]).reason).toMatch(/no tool/);
  });
});
