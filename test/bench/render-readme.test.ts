/** bench/README.md is generated: an unknown results file renders generically, placeholders fill from results. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  fillPlaceholders,
  renderBenchPages,
  renderBenchReadme,
  renderGeneric,
  renderSummary,
  TOPICS,
} from "../../bench/render-readme.ts";

const RESULTS = join(import.meta.dirname, "../../bench/results");

describe("bench/render-readme", () => {
  it("renders a results file it does not know: values as a list, arrays of records as tables", () => {
    const md = renderGeneric({
      bench: "new-thing",
      machine: "m",
      note: "a|b",
      total: 12345,
      ratio: 0.123456,
      runs: [
        { name: "x", p: { p50: 1.5, p99: 200.25 }, samples: [1, 2] },
        { name: "y", p: { p50: 2, p99: 3 } },
      ],
    });
    expect(md).toBe(
      [
        "- note: a\\|b",
        "- total: 12,345",
        "- ratio: 0.123",
        "",
        "runs:",
        "",
        "| name | p.p50 | p.p99 | samples |",
        "| --- | --- | --- | --- |",
        "| x | 1.50 | 200.3 | 1, 2 |",
        "| y | 2 | 3 | – |",
      ].join("\n"),
    );
  });

  it("fills {{file#path}} from the results and marks a missing value visibly", () => {
    const routing = JSON.parse(readFileSync(join(RESULTS, "routing.json"), "utf8"));
    const tools = routing.latency[1].tools as number;
    expect(fillPlaceholders("at {{routing.json#latency.1.tools}} tools")).toBe(
      `at ${tools.toLocaleString("en-US")} tools`,
    );
    expect(fillPlaceholders("{{nope.json#a.b}}")).toBe("(missing: nope.json#a.b)");
  });

  it("gives every results file a section on its topic's page, its raw file linked, and a summary row", () => {
    const pages = renderBenchPages();
    const all = [...pages.values()].join("\n");
    for (const f of readdirSync(RESULTS).filter((x) => x.endsWith(".json"))) {
      expect(all).toContain(`](../results/${f})`);
      const stem = f.slice(0, -5);
      const topic = TOPICS.find((t) => t.match.test(stem))?.id ?? "other";
      expect(pages.has(`${topic}.md`)).toBe(true);
    }
    expect(all).not.toContain("(missing:");
    const readme = renderBenchReadme();
    expect(readme.split("\n").length).toBeLessThanOrEqual(150);
    for (const name of pages.keys()) expect(readme).toContain(`](pages/${name})`);
  });

  it("summarises accuracy as toolgraph's row against the best baseline row of each table", () => {
    const readme = renderBenchReadme();
    const nestful = JSON.parse(readFileSync(join(RESULTS, "accuracy-nestful.json"), "utf8")) as {
      tables: { title: string; headers: string[]; rows: unknown[][] }[];
    };
    const t = nestful.tables.find((x) => /^Retrieval — .*-traces-uselite \/ /.test(x.title))!;
    const col = t.headers.indexOf("mAP@10");
    const ours = t.rows.find((r) => String(r[0]).startsWith("toolgraph (fitted"))![col] as number;
    const bm25 = t.rows.find((r) => r[0] === "bm25")![col] as number;
    const row = readme.split("\n").find((l) => l.startsWith("| nestful test | Retrieval | mAP@10 |"))!;
    expect(row).toContain(`| ${ours.toPrecision(3)} |`);
    // The best of most-popular, bm25, embedding and memory-only: at least bm25's.
    const best = Number(/\| ([0-9.]+) \(/.exec(row)![1]);
    expect(best).toBeGreaterThanOrEqual(Number(bm25.toPrecision(3)));
  });

  it("the README's results block is the generated summary, without figures every commit moves", () => {
    const summary = renderSummary();
    // The test count, the tarball size and the start-up times went stale between runs of their benches.
    expect(summary).not.toMatch(/\d+ passed|KiB|MiB|tarball \d|s built/);
    expect(summary).toContain("[bench/README.md](bench/README.md)");
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const block = readme.slice(
      readme.indexOf("<!-- results:start -->") + "<!-- results:start -->".length,
      readme.indexOf("<!-- results:end -->"),
    );
    expect(block).toBe(`\n${summary}\n`);
  });
});
