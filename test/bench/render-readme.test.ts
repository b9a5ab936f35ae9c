/** bench/README.md is generated: an unknown results file renders generically, placeholders fill from results. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fillPlaceholders, renderBenchReadme, renderGeneric, renderSummary } from "../../bench/render-readme.ts";

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
      ["- note: a\\|b", "- total: 12,345", "- ratio: 0.123", "", "runs:", "", "| name | p.p50 | p.p99 | samples |", "| --- | --- | --- | --- |", "| x | 1.50 | 200.3 | 1, 2 |", "| y | 2 | 3 | – |"].join("\n"),
    );
  });

  it("fills {{file#path}} from the results and marks a missing value visibly", () => {
    const routing = JSON.parse(readFileSync(join(RESULTS, "routing.json"), "utf8"));
    const tools = routing.latency[1].tools as number;
    expect(fillPlaceholders("at {{routing.json#latency.1.tools}} tools")).toBe(`at ${tools.toLocaleString("en-US")} tools`);
    expect(fillPlaceholders("{{nope.json#a.b}}")).toBe("(missing: nope.json#a.b)");
  });

  it("gives every results file a section with its raw file linked", () => {
    const md = renderBenchReadme();
    for (const f of ["routing.json", "latency.json", "ingest.json"]) expect(md).toContain(`](results/${f})`);
    expect(md).not.toContain("(missing:");
  });

  it("the README's results block is the generated summary, without figures every commit moves", () => {
    const summary = renderSummary();
    // The test count, the tarball size and the start-up times went stale between runs of their benches.
    expect(summary).not.toMatch(/\d+ passed|KiB|MiB|tarball \d|s built/);
    expect(summary).toContain("[bench/README.md](bench/README.md)");
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const block = readme.slice(readme.indexOf("<!-- results:start -->") + "<!-- results:start -->".length, readme.indexOf("<!-- results:end -->"));
    expect(block).toBe(`\n${summary}\n`);
  });
});
