/**
 * Every reason the code gives must be one a reader of the repository can open. Comments, strings and docs in
 * src/, algorithms/ and bench/ may cite files of the repository (docs/decisions/<topic>.md, algorithms/README.md)
 * and published literature (author, year, section), but not the design notes the project started from ("seed 003
 * §2.1", "seeds/…", "ADR-042"), nor issue numbers ("issue 20", "(#22)"), nor paths of one machine ("/work/…").
 *
 * Scanned: every text file the project writes under those folders. Not scanned: bench/data/<dataset>/ (upstream
 * files copied byte for byte, whose own READMEs may cite their trackers) and bench/results/ (machine-written
 * measurements). Each line is checked whole, which covers comments, strings and prose alike.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FOLDERS = ["src", "algorithms", "bench"];
const TEXT = /\.(ts|mts|cts|js|mjs|cjs|md|html|css|wat)$/;
/** Not the project's prose: upstream dataset files and machine-written results. */
const SKIP = [/^bench\/data\/[^/]+\//, /^bench\/results\//, /(^|\/)node_modules\//];

interface Rule {
  readonly name: string;
  readonly re: RegExp;
}

const RULES: readonly Rule[] = [
  // "seed 003", "seeds 000–004", "seed ADR-038", "Seed 001"
  { name: "design-note section", re: /\bseeds? (0\d\d\b|ADR\b)/gi },
  // "seeds/", "/shared/seeds/"
  { name: "design-note folder", re: /(^|[\s`'"(/])seeds\//g },
  { name: "ADR number", re: /\bADR-\d+\b/g },
  // "issue 9", "Issue 16:", "issues 20", "issue #22" (a link such as github.com/o/r/issues/22 is not matched)
  { name: "issue number", re: /\bissues? #?\d+\b/gi },
  { name: "machine path", re: /(^|[\s`'"(=])\/work\//g },
];

/** "#22" or "(#22)" as an issue reference; not "&#9;" (a character reference), "#fff" or "#555" (colours). */
const HASH_NUMBER = /(^|[\s([,;])#(\d{1,5})\b(?![-\w])/g;
const CSS_CONTEXT = /\b(colou?r|fill|stroke|background|border|outline|shadow)\b/i;

/** Whether `#digits` at this match is a colour in a CSS-like context rather than an issue reference. */
function isColour(line: string, digits: string): boolean {
  return [3, 4, 6, 8].includes(digits.length) && CSS_CONTEXT.test(line);
}

interface Finding {
  readonly line: number;
  readonly rule: string;
  readonly text: string;
}

/** The unreachable citations of one file's text, one finding per rule and line. */
function findCitations(text: string): Finding[] {
  const out: Finding[] = [];
  text.split("\n").forEach((line, i) => {
    for (const rule of RULES) {
      rule.re.lastIndex = 0;
      const m = rule.re.exec(line);
      if (m) out.push({ line: i + 1, rule: rule.name, text: m[0].trim() });
    }
    HASH_NUMBER.lastIndex = 0;
    for (let m = HASH_NUMBER.exec(line); m !== null; m = HASH_NUMBER.exec(line)) {
      if (!isColour(line, m[2]!)) {
        out.push({ line: i + 1, rule: "issue number", text: m[0].trim() });
        break;
      }
    }
  });
  return out;
}

function walk(dir: string, files: string[]): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(ROOT, path).split("\\").join("/");
    if (SKIP.some((re) => re.test(entry.isDirectory() ? `${rel}/` : rel))) continue;
    if (entry.isDirectory()) walk(path, files);
    else if (entry.isFile() && TEXT.test(entry.name)) files.push(rel);
  }
}

describe("findCitations", () => {
  it.each([
    ["seed 003 §2.1", "design-note section"],
    ["(Seed 000 Phase 3)", "design-note section"],
    ["seed ADR-038 §3.1", "design-note section"],
    ["Seeds: `/work/shared/seeds/` (000 thresholds)", "design-note folder"],
    ["see seeds/003.txt", "design-note folder"],
    ["(ADR-042, table capability_dependency)", "ADR number"],
    ["(issue 20)", "issue number"],
    ["Issue 16: each request is validated once", "issue number"],
    ["as asked in issue #9", "issue number"],
    ["fixed in #22", "issue number"],
    ["(#7)", "issue number"],
    ["the task (b) protocol in /work/shared/datasets/README.md", "machine path"],
  ])("flags %j as a %s", (line, rule) => {
    expect(findCitations(line).map((f) => f.rule)).toContain(rule);
  });

  it.each([
    ['out.push(`<text x="12" y="40" fill="#555">`)'],
    ["  color: #333; background: #fff;"],
    ["border: 1px solid #000000"],
    ['.replace(/\\t/g, "&#9;").replace(/\\n/g, "&#10;")'],
    ["#!/usr/bin/env node"],
    ["See [the decisions](#decisions-behind-the-defaults) and ## 2. Results"],
    ["Manning et al., IR book §8.4 (MRR); Robertson & Zaragoza (2009), §3"],
    ["const rng = mulberry32(seed); // seeded k-means++, seed: 42"],
    ['docs/decisions/gate-thresholds.md; algorithms/README.md, "DAG"'],
    ["https://github.com/modelcontextprotocol/typescript-sdk/issues/1234"],
    ["the issue's list of wrappers; issues with long inputs"],
    ["a `#private` field and ids like tool#name"],
  ])("does not flag %j", (line) => {
    expect(findCitations(line)).toEqual([]);
  });

  it("reports the 1-based line of each finding", () => {
    expect(findCitations("ok\n// (issue 6) and seed 002\nok")).toEqual([
      { line: 2, rule: "design-note section", text: "seed 002" },
      { line: 2, rule: "issue number", text: "issue 6" },
    ]);
  });
});

describe("src/, algorithms/ and bench/ cite only what a reader can open", () => {
  const files: string[] = [];
  for (const folder of FOLDERS) walk(join(ROOT, folder), files);

  it("scans the project's own files", () => {
    expect(files).toContain("algorithms/README.md");
    expect(files).toContain("bench/decisions.md");
    expect(files.some((f) => f.startsWith("src/"))).toBe(true);
    expect(files.some((f) => f.startsWith("bench/data/seal-tools/"))).toBe(false);
  });

  it("has no design-note section, ADR or issue number, or machine path", () => {
    const found = files.flatMap((file) =>
      findCitations(readFileSync(join(ROOT, file), "utf8")).map((f) => `${file}:${f.line}: ${f.rule} "${f.text}"`),
    );
    expect(found, `cite docs/decisions/<topic>.md or algorithms/README.md instead:\n${found.join("\n")}`).toEqual([]);
  });
});
