import { describe, expect, it } from "vitest";
import { gatingCharts, latencyCharts } from "../../bench/charts.ts";
import { barChartSvg, formatValue, lineChartSvg, logTicks, niceTicks, tickLabels } from "../../bench/lib/charts.ts";

describe("chart ticks", () => {
  it("nice ticks are round steps covering the range (by hand)", () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.5, 0.9, 6)).toEqual([0.5, 0.6, 0.7, 0.8, 0.9]);
    expect(niceTicks(0, 5.11, 4)).toEqual([0, 2, 4, 6]);
    // raw step 0.0105 / 4 = 0.002625 → the next nice step above it is 0.005 (1, 2, 2.5, 5 × 10⁻³).
    expect(niceTicks(0, 0.0105, 4)).toEqual([0, 0.005, 0.01, 0.015]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });

  it("labels use the fewest decimals that keep them distinct and exact (never 0.01 / 0.01 / 0.00)", () => {
    expect(tickLabels([0, 0.005, 0.01])).toEqual(["0.000", "0.005", "0.010"]);
    expect(tickLabels([0, 0.2, 0.4])).toEqual(["0.0", "0.2", "0.4"]);
    expect(tickLabels([0, 2, 4])).toEqual(["0", "2", "4"]);
    expect(tickLabels([0, 0.0025, 0.005])).toEqual(["0.0000", "0.0025", "0.0050"]);
  });

  it("log ticks are the powers of ten around the data; values print with 3 significant digits", () => {
    expect(logTicks(0.02, 1300)).toEqual([0.01, 0.1, 1, 10, 100, 1000, 10000]);
    expect(formatValue(0.037249)).toBe("0.0372");
    expect(formatValue(1261.64)).toBe("1,262");
  });
});

describe("charts", () => {
  it("a bar chart has one bar per category and series, every category and value printed, the unit on the axis", () => {
    const svg = barChartSvg({
      title: "How long?",
      valueLabel: "latency (ms, log scale)",
      categories: ["search", "next step", "gating"],
      series: [
        { name: "p50", values: [1.2, 0.2, 0.02] },
        { name: "p99", values: [5.5, 1.8, null] },
      ],
      log: true,
    });
    expect(svg.match(/<rect x=/g)).toHaveLength(5); // 3 p50 + 2 p99 (one missing)
    for (const s of [
      "search",
      "next step",
      "gating",
      "p50",
      "p99",
      "1.2",
      "5.5",
      "0.02",
      "latency (ms, log scale)",
      ">0.01<",
      ">10<",
    ])
      expect(svg).toContain(s);
  });

  it("a line chart keeps every legend entry inside the picture", () => {
    const names = ["precision, raw score", "precision, calibrated", "coverage, raw score", "coverage, calibrated"];
    const svg = lineChartSvg({
      title: "t",
      xLabel: "x",
      yLabel: "y",
      yDomain: [0, 1],
      series: names.map((name, i) => ({
        name,
        points: [
          { x: 0.5, y: i / 4 },
          { x: 0.9, y: 1 - i / 4 },
        ],
      })),
    });
    const width = Number(/width="(\d+)"/.exec(svg)![1]);
    for (const n of names) {
      const m = new RegExp(`<text x="([\\d.]+)" y="[\\d.]+">${n}</text>`).exec(svg);
      expect(m, n).not.toBeNull();
      expect(Number(m![1]) + 7 * n.length).toBeLessThanOrEqual(width);
    }
  });

  it("latency: one chart per catalog size, p50 and p99, the background analytics refresh left out", () => {
    const op = (name: string, p50: number, p99: number) => ({ name, p50, p99, n: 200 });
    const charts = latencyCharts({
      machine: "m",
      startedAt: "2026-11-23T10:00:00Z",
      loadAverage: { start: [0.5], end: [1.5] },
      sizes: [
        { tools: 1000, operations: [op("search", 0.9, 4.8), op("analytics refresh", 118, 130)] },
        { tools: 10000, operations: [op("search", 1.2, 5.5), op("next step", 0.2, 1.8)] },
      ],
    });
    expect(charts.map((c) => c.name)).toEqual(["latency-1000-tools", "latency-10000-tools"]);
    expect(charts[1]!.question).toBe("How long does each operation take at 10,000 tools?");
    expect(charts[0]!.svg).not.toContain("analytics refresh");
    expect(charts[1]!.svg).toContain("p99");
  });

  it("gating: the title names the job (next step or search), thresholds are on x, both precision and coverage drawn", () => {
    const charts = gatingCharts({
      tables: [
        {
          title: "Gating — demo-traces / test next step (top-1 answers, 10 held out; more)",
          headers: [
            "threshold",
            "coverage (raw)",
            "precision (raw)",
            "coverage (calibrated)",
            "precision (calibrated)",
            "note",
          ],
          rows: [
            [0.5, 1, 0.8, 0.6, 0.9, ""],
            [0.9, 0.2, 0.95, 0, null, ""],
            ["fixed 0.70", 0.9, 0.8, 0.5, 0.9, ""],
          ],
        },
        { title: "Retrieval — demo", headers: [], rows: [] },
      ],
    });
    expect(charts).toHaveLength(1);
    expect(charts[0]!.name).toBe("gating-next-step-demo-traces-test");
    expect(charts[0]!.svg).toContain("Next-step gate on demo-traces (test split)");
    // precision (calibrated) has one point (null dropped): 2 + 2 + 2 + 1 circles.
    expect(charts[0]!.svg.match(/<circle /g)).toHaveLength(7);
    expect(charts[0]!.svg).toContain(">0.5<");
    expect(charts[0]!.svg).toContain(">0.9<");
  });
});
