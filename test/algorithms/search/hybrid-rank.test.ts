import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rankHybridCandidates } from "../../../algorithms/search/hybrid-rank.ts";

const cand = (id: number, semantic: number, cosine = semantic, bm25Norm = 0) => ({
  id,
  semantic,
  cosine,
  bm25: bm25Norm,
  bm25Norm,
});

describe("rankHybridCandidates", () => {
  it("global graph term, coherence α and memory by hand", () => {
    // tool 0: semantic 0.5, global 0.4, coherence 0.6 → α_est 0.7 (10 runs, no cold start)
    //   final = 0.5 + 0.3·0.5·0.4 = 0.56
    // tool 1: semantic 0.6, global 0, memory vote 0.5 with μ 0.8 → 1 − 0.4·0.6 = 0.76, graph 0 → 0.76
    const hits = rankHybridCandidates({
      candidates: [cand(0, 0.5), cand(1, 0.6)],
      executions: [10, 10],
      memory: new Map([[1, 0.5]]),
      memoryWeight: 0.8,
      global: [0.4, 0],
      graphWeight: 1,
      channel: "hybrid",
      coherence: [0.6, 0],
    });
    expect(hits.map((h) => h.index)).toEqual([1, 0]);
    expect(hits[0]!.semantic).toBeCloseTo(0.76, 12);
    expect(hits[0]!.final).toBeCloseTo(0.76, 12);
    expect(hits[1]!.alpha).toBeCloseTo(0.7, 12);
    expect(hits[1]!.alphaRegime).toBe("active-coherence");
    expect(hits[1]!.final).toBeCloseTo(0.56, 12);
    expect(hits[1]!.graphSource).toBe("global");
  });

  it("ties break by graph, then semantic, then index; top and exclude", () => {
    const input = {
      candidates: [cand(3, 0.5), cand(2, 0.5), cand(1, 0.4), cand(0, 0.9)],
      executions: [0, 0, 0, 0],
      memoryWeight: 0,
      graphWeight: 1,
      channel: "hybrid" as const,
      fixedAlpha: 1,
    };
    expect(rankHybridCandidates(input).map((h) => h.index)).toEqual([0, 2, 3, 1]);
    expect(rankHybridCandidates({ ...input, top: 2 }).map((h) => h.index)).toEqual([0, 2]);
    expect(rankHybridCandidates({ ...input, exclude: (i) => i === 0 }).map((h) => h.index)).toEqual([2, 3, 1]);
  });

  it("channel ablations rank by one channel; graphWeight scales the graph term", () => {
    const base = {
      candidates: [cand(0, 0.5, 0.2, 0.9), cand(1, 0.6, 0.7, 0.1)],
      executions: [10, 10],
      memoryWeight: 0,
      global: [1, 0],
      graphWeight: 0.5,
      fixedAlpha: 0.5,
    };
    expect(rankHybridCandidates({ ...base, channel: "bm25" }).map((h) => h.index)).toEqual([0, 1]);
    expect(rankHybridCandidates({ ...base, channel: "embedding" }).map((h) => h.index)).toEqual([1, 0]);
    // hybrid: tool 0: 0.5 + 0.5·0.5·0.5 = 0.625 > 0.6
    const h = rankHybridCandidates({ ...base, channel: "hybrid" });
    expect(h[0]!.index).toBe(0);
    expect(h[0]!.graph).toBe(0.5);
    expect(h[0]!.final).toBeCloseTo(0.625, 12);
  });

  it("content weight: 1 is the default bit for bit; 0 ranks by the memory vote alone", () => {
    // Content: tool 0 0.9, tool 1 0.2, tool 2 0.5; votes: tool 1 0.6, tool 2 0.3; μ 1, no graph.
    const base = {
      candidates: [cand(0, 0.9), cand(1, 0.2), cand(2, 0.5)],
      executions: [10, 10, 10],
      memory: new Map([
        [1, 0.6],
        [2, 0.3],
      ]),
      memoryWeight: 1,
      graphWeight: 0,
      channel: "hybrid" as const,
      fixedAlpha: 1,
    };
    const plain = rankHybridCandidates(base);
    expect(rankHybridCandidates({ ...base, contentWeight: 1 })).toEqual(plain);
    // w_c = 1: tool 0 0.9, tool 1 1 − 0.8·0.4 = 0.68, tool 2 1 − 0.5·0.7 = 0.65
    expect(plain.map((h) => h.index)).toEqual([0, 1, 2]);
    expect(plain[1]!.semantic).toBeCloseTo(0.68, 12);
    // w_c = 0: the votes' order (tool 1 0.6, tool 2 0.3, tool 0 0); the hit keeps its content score
    const memoryOnly = rankHybridCandidates({ ...base, contentWeight: 0 });
    expect(memoryOnly.map((h) => h.index)).toEqual([1, 2, 0]);
    expect(memoryOnly[0]!.final).toBeCloseTo(0.6, 12);
    expect(memoryOnly[2]!.content).toBe(0.9);
    expect(memoryOnly[2]!.contentWeight).toBe(0);
    // w_c = 0.5: tool 0 0.45, tool 1 1 − 0.9·0.4 = 0.64, tool 2 1 − 0.75·0.7 = 0.475
    expect(rankHybridCandidates({ ...base, contentWeight: 0.5 }).map((h) => h.index)).toEqual([1, 2, 0]);
    expect(() => rankHybridCandidates({ ...base, contentWeight: 1.5 })).toThrow(/contentWeight/);
  });

  it("description anchor: the best lexical and semantic match is moved up to rank 3, keeping its scores", () => {
    // Tool 4: cosine 0.8 and BM25 5 (both the strict best), content 0.8; tools 0–3 carry memory votes of 1
    // (μ 1, w_c 0.5): their semantic' is 1, tool 4's 0.4 → rank 5 without the anchor.
    const c = (id: number, cosine: number, bm25: number) => ({
      id,
      semantic: cosine,
      cosine,
      bm25,
      bm25Norm: bm25 / 5,
    });
    const input = {
      candidates: [c(0, 0.3, 1), c(1, 0.2, 0), c(2, 0.1, 2), c(3, 0.4, 0), c(4, 0.8, 5), c(5, 0.05, 0)],
      executions: [9, 9, 9, 9, 0, 0],
      memory: new Map([
        [0, 1],
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
      memoryWeight: 1,
      contentWeight: 0.5,
      graphWeight: 0,
      channel: "hybrid" as const,
      fixedAlpha: 1,
    };
    const hits = rankHybridCandidates(input);
    // Votes tie at 1: graph 0, semantic 1 → index order 0, 1, then the anchor, then 2, 3, 5.
    expect(hits.map((h) => h.index)).toEqual([0, 1, 4, 2, 3, 5]);
    expect(hits[2]!.anchored).toBe(true);
    expect(hits[2]!.final).toBeCloseTo(0.4, 12);
    expect(hits[0]!.anchored).toBeUndefined();
    // top keeps the full ranking's prefix.
    expect(rankHybridCandidates({ ...input, top: 3 }).map((h) => h.index)).toEqual([0, 1, 4]);
    expect(rankHybridCandidates({ ...input, top: 2 }).map((h) => h.index)).toEqual([0, 1]);
    expect(hits[2]!.anchorKind).toBe("best-match");
    // No anchor when the best BM25 and the best cosine are different tools, or on a tie, or in an ablation
    // (tool 4 has run here, so the unused-tool rule below does not apply).
    const ran = { ...input, executions: [9, 9, 9, 9, 1, 0] };
    const split = { ...ran, candidates: input.candidates.map((x) => (x.id === 0 ? { ...x, bm25: 6 } : x)) };
    expect(rankHybridCandidates(split).map((h) => h.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const tie = { ...ran, candidates: input.candidates.map((x) => (x.id === 3 ? { ...x, cosine: 0.8 } : x)) };
    expect(rankHybridCandidates(tie).some((h) => h.anchored)).toBe(false);
    expect(rankHybridCandidates({ ...input, channel: "semantic" }).map((h) => h.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // Not the best in both, but the best content score (0.8) and never run: the history cannot judge it.
    const unused = { ...split, executions: input.executions };
    const u = rankHybridCandidates(unused);
    expect(u.map((h) => h.index)).toEqual([0, 1, 4, 2, 3, 5]);
    expect(u[2]!.anchored).toBe(true);
    expect(u[2]!.anchorKind).toBe("unused-best-content");
    expect(rankHybridCandidates({ ...unused, top: 3 }).map((h) => h.index)).toEqual([0, 1, 4]);
    // It must share a word with the query (raw BM25 > 0): the same tool with its cosine alone is not anchored.
    const noWord = {
      ...unused,
      candidates: unused.candidates.map((x) => (x.id === 4 ? { ...x, bm25: 0, bm25Norm: 0 } : x)),
    };
    expect(rankHybridCandidates(noWord).map((h) => h.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(rankHybridCandidates(noWord).some((h) => h.anchored)).toBe(false);
    // Not the best content match but third by content (0.8 ran, 0.4 ran, 0.35 never ran), sharing a word:
    // anchored at rank 3. Its final 0.5 × 0.35 = 0.175 puts it last without the anchor.
    const third = {
      ...split,
      candidates: split.candidates.map((x) => (x.id === 5 ? { ...x, cosine: 0.35, semantic: 0.35, bm25: 1 } : x)),
    };
    const t = rankHybridCandidates(third);
    expect(t.map((h) => h.index)).toEqual([0, 1, 5, 2, 3, 4]);
    expect(t[2]!.anchorKind).toBe("unused-best-content");
    // Fourth by content (0.25 < tool 0's 0.3): left where the scores put it.
    const fourth = {
      ...split,
      candidates: split.candidates.map((x) => (x.id === 5 ? { ...x, cosine: 0.25, semantic: 0.25, bm25: 1 } : x)),
    };
    expect(rankHybridCandidates(fourth).map((h) => h.index)).toEqual([0, 1, 2, 3, 4, 5]);
    // A repeat of past requests recorded at 100: a tool in the catalog by then (added at 50) was there for those
    // runs to use and is not anchored; one added after them (150) is; no repeat: anchored whatever its age.
    const repeat = { ...third, repeatRecordedAt: 100 };
    expect(rankHybridCandidates({ ...repeat, addedAt: [0, 0, 0, 0, 0, 50] }).map((h) => h.index)).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
    expect(rankHybridCandidates({ ...repeat, addedAt: [0, 0, 0, 0, 0, 100] }).some((h) => h.anchored)).toBe(false);
    expect(rankHybridCandidates({ ...repeat, addedAt: [0, 0, 0, 0, 0, 150] }).map((h) => h.index)).toEqual([
      0, 1, 5, 2, 3, 4,
    ]);
    expect(rankHybridCandidates({ ...third, addedAt: [0, 0, 0, 0, 0, 50] }).map((h) => h.index)).toEqual([
      0, 1, 5, 2, 3, 4,
    ]);
    // Without addedAt every tool counts as there from the start: a repeat anchors no never-run tool.
    expect(rankHybridCandidates(repeat).some((h) => h.anchored)).toBe(false);
  });

  it("property: a never-run tool sharing a word, first of its kind in the content top 3, ranks in the top 3", () => {
    const candidate = fc.record({
      cosine: fc.double({ min: -1, max: 1, noNaN: true }),
      bm25: fc.constantFrom(0, 0.5, 1, 2, 3),
      ran: fc.boolean(),
      vote: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 12 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        (cs, mu, wc) => {
          const candidates = cs.map((x, id) => ({
            id,
            semantic: Math.max(0, x.cosine),
            cosine: x.cosine,
            bm25: x.bm25,
            bm25Norm: x.bm25 / 3,
          }));
          const input = {
            candidates,
            executions: cs.map((x) => (x.ran ? 3 : 0)),
            memory: new Map(cs.map((x, i) => [i, x.ran ? x.vote : 0] as const)),
            memoryWeight: mu,
            contentWeight: wc,
            graphWeight: 0,
            channel: "hybrid" as const,
            fixedAlpha: 1,
          };
          const full = rankHybridCandidates(input);
          const anchored = full.filter((h) => h.anchored);
          expect(anchored.length).toBeLessThanOrEqual(1);
          if (full.some((h) => h.anchorKind === "best-match")) return;
          const byContent = candidates
            .map((c) => ({ id: c.id, content: c.semantic }))
            .sort((a, b) => b.content - a.content || a.id - b.id)
            .slice(0, 3);
          const eligible = byContent.find((c) => c.content > 0 && !cs[c.id]!.ran && cs[c.id]!.bm25 > 0);
          if (eligible) expect(full.findIndex((h) => h.index === eligible.id)).toBeLessThan(3);
          else expect(anchored.length).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: the description anchor ranks in the top 3 whatever the memory, graph, α and weights", () => {
    const candidate = fc.record({
      cosine: fc.double({ min: -1, max: 1, noNaN: true }),
      bm25: fc.double({ min: 0, max: 20, noNaN: true }),
      semantic: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 30 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.record({
          mu: fc.double({ min: 0, max: 1, noNaN: true }),
          wc: fc.double({ min: 0, max: 1, noNaN: true }),
          wg: fc.double({ min: 0, max: 1, noNaN: true }),
          top: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        }),
        (cs, votes, global, w) => {
          const candidates = cs.map((x, id) => ({
            id,
            semantic: x.semantic,
            cosine: x.cosine,
            bm25: x.bm25,
            bm25Norm: x.bm25 / 20,
          }));
          const bestBm = Math.max(...candidates.map((x) => x.bm25));
          const bestCos = Math.max(...candidates.map((x) => x.cosine));
          const anchors = candidates.filter((x) => x.bm25 === bestBm && x.cosine === bestCos);
          const unique =
            candidates.filter((x) => x.bm25 === bestBm).length === 1 &&
            candidates.filter((x) => x.cosine === bestCos).length === 1;
          const hits = rankHybridCandidates({
            candidates,
            executions: candidates.map((_, i) => i % 7),
            memory: new Map(votes.slice(0, candidates.length).map((v, i) => [i, v])),
            memoryWeight: w.mu,
            contentWeight: w.wc,
            global: global.slice(0, candidates.length),
            graphWeight: w.wg,
            channel: "hybrid",
            coherence: global,
            top: w.top,
          });
          const full = rankHybridCandidates({
            candidates,
            executions: candidates.map((_, i) => i % 7),
            memory: new Map(votes.slice(0, candidates.length).map((v, i) => [i, v])),
            memoryWeight: w.mu,
            contentWeight: w.wc,
            global: global.slice(0, candidates.length),
            graphWeight: w.wg,
            channel: "hybrid",
            coherence: global,
          });
          // `top` is the full ranking's prefix; every candidate appears once.
          expect(hits.map((h) => h.index)).toEqual(full.slice(0, w.top ?? full.length).map((h) => h.index));
          expect(new Set(full.map((h) => h.index)).size).toBe(candidates.length);
          if (anchors.length === 1 && unique && bestBm > 0 && bestCos > 0) {
            expect(full.findIndex((h) => h.index === anchors[0]!.id)).toBeLessThan(3);
          } else {
            // Otherwise the strictly best content score, when its tool never ran (executions i % 7 = 0) and it
            // shares a word with the query (raw BM25 > 0).
            const bestContent = Math.max(...candidates.map((x) => x.semantic));
            const tops = candidates.filter((x) => x.semantic === bestContent);
            if (tops.length === 1 && bestContent > 0 && tops[0]!.id % 7 === 0 && tops[0]!.bm25 > 0)
              expect(full.findIndex((h) => h.index === tops[0]!.id)).toBeLessThan(3);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
