/** Smoke test of bench/latency.ts: the core runs end to end at 300 tools, 2 repetitions; the result has its shape. No timing assertions. */
import { describe, expect, it } from "vitest";
import {
  BUDGETS,
  formatLatency,
  type LatencyResult,
  latencySvg,
  relatedToolSets,
  runLatency,
} from "../../bench/latency.ts";

const OPERATIONS = [
  "analytics refresh",
  "search",
  "search scoring",
  "search, repeated queries",
  "search with context",
  "search, sustained",
  "search, quiet peer",
  "search under a CPU-bound process",
  "intent memory recall",
  "next step",
  "next step scoring",
  "capability discovery",
  "DAG of 20 tools",
  "DAG of 20 tools (service)",
  "gating",
  "record one execution (embedded)",
];

describe("bench/latency runLatency", () => {
  let result: LatencyResult;

  it("runs at 300 tools with 2 repetitions and returns one size result", { timeout: 240_000 }, async () => {
    result = await runLatency({
      sizes: [300],
      reps: 2,
      serverSizes: [],
      useLiteQueries: 0,
      analyticsReps: 1,
      log: () => {},
    });
    expect(result.sizes).toHaveLength(1);
    expect(result.useLite).toBeUndefined();
    const s = result.sizes[0]!;
    expect(s.tools).toBe(300);
    expect(s.traces).toBe(600);
    expect(s.steps).toBeGreaterThan(600);
    expect(result.options).toMatchObject({
      sizes: [300],
      reps: 2,
      warmup: 2,
      embeddings: "hash:512",
      traces: [600],
      gcBetweenOperations: typeof (globalThis as { gc?: unknown }).gc === "function",
    });
  });

  it("reports every operation with n = reps and ordered, finite, non-negative percentiles", () => {
    const s = result.sizes[0]!;
    expect(s.operations.map((o) => o.name)).toEqual(OPERATIONS);
    for (const o of s.operations) {
      // The sustained row runs through every distinct intent not used by the other rows (capped at 2,000).
      if (o.name === "search, sustained") expect(o.n).toBeGreaterThanOrEqual(10);
      else expect(o.n, o.name).toBe(o.name === "analytics refresh" ? 1 : 2);
      for (const v of [o.p50, o.p95, o.p99, o.mean]) {
        expect(Number.isFinite(v), o.name).toBe(true);
        expect(v, o.name).toBeGreaterThanOrEqual(0);
      }
      expect(o.p50).toBeLessThanOrEqual(o.p95);
      expect(o.p95).toBeLessThanOrEqual(o.p99);
      expect(o.what.length).toBeGreaterThan(0);
    }
  });

  it("names each row's peer from the same run and reports p50 and p99 as ratios to it; records uptime", () => {
    const s = result.sizes[0]!;
    const row = (name: string) => s.operations.find((o) => o.name === name)!;
    for (const [name, peer] of [
      ["search", "search scoring"],
      ["search under a CPU-bound process", "search, quiet peer"],
      ["next step", "next step scoring"],
      ["DAG of 20 tools (service)", "DAG of 20 tools"],
    ] as const) {
      expect(row(name).peer).toBe(peer);
      expect(row(name).ratioToPeer!.p50).toBeCloseTo(row(name).p50 / row(peer).p50, 12);
      expect(row(name).ratioToPeer!.p99).toBeCloseTo(row(name).p99 / row(peer).p99, 12);
    }
    expect(row("analytics refresh").ratioToPeer!.p50).toBeCloseTo(row("analytics refresh").p50 / 2000, 12);
    expect(row("gating").peer).toBeUndefined();
    expect(result.uptime).toHaveLength(2);
    expect(result.uptime[0]).toMatch(/load average/);
  });

  it("reports the analytics parts, the query cache and memory", () => {
    const s = result.sizes[0]!;
    expect(Object.keys(s.analytics.parts).sort()).toEqual([
      "hypergraphPagerank",
      "louvain",
      "pagerank",
      "spectral",
      "total",
    ]);
    expect(s.analytics.communities).toBeGreaterThan(0);
    expect(s.queryCache.hits + s.queryCache.misses).toBeGreaterThan(0);
    expect(s.queryCache.hitRate).toBeGreaterThanOrEqual(0);
    expect(s.queryCache.hitRate).toBeLessThanOrEqual(1);
    expect(s.memory.peakRssMiB).toBeGreaterThan(0);
    expect(s.memory.maxRssMiB).toBeGreaterThan(0);
    expect(s.server).toBeUndefined();
  });

  it("marks every 10k budget 'not run' when 10k tools was not measured", () => {
    expect(result.budgets).toHaveLength(BUDGETS.length);
    for (const b of result.budgets) {
      expect(b.verdict).toBe("not run");
      expect(b.measuredMs).toBeNull();
    }
  });

  it("formats a markdown report and an SVG chart", () => {
    const md = formatLatency(result);
    expect(md).toContain("### 300 tools");
    expect(md).toContain("| search |");
    expect(md).toContain("### Budgets");
    const svg = latencySvg(result);
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("next step");
    expect(svg).not.toContain("analytics refresh");
  });
});

describe("bench/latency relatedToolSets", () => {
  it("samples each set inside one community of at least the set size", () => {
    // Communities: 0 holds tools 0..4, 1 holds 5..6, 2 holds 7.
    const community = Int32Array.from([0, 0, 0, 0, 0, 1, 1, 2]);
    const sets = relatedToolSets(community, 3, 4, () => 0.5);
    expect(sets).toHaveLength(4);
    for (const set of sets) {
      expect(new Set(set).size).toBe(3);
      for (const i of set) expect(community[i]).toBe(0);
    }
  });

  it("falls back to the largest communities in order when none is large enough", () => {
    const community = Int32Array.from([0, 0, 1, 1, 1, 2]);
    expect(relatedToolSets(community, 4, 1, () => 0.5)).toEqual([[2, 3, 4, 0]]);
  });
});
